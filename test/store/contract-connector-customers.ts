// The store contract, migration 009: connectors bound to several customers or all, their customer table and
// product key, the details a ticket leaves with its order, and the connector path's lookups scoped to the binding.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import type { Outcome } from '../../src/domain/types.ts';
import { unattributedOwner, type NewConnector } from '../../src/domain/store/connectors.ts';
import type { Customer, Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, item, withStore, type StoreFactory } from './fixtures.ts';

const isCode = (code: IntakeError['code']) => (e: unknown) => e instanceof IntakeError && e.code === code;

function connector(owner: Customer, over: Partial<NewConnector> = {}): NewConnector {
  const keyId = randomUUID().replace(/-/g, '').slice(0, 12);
  return {
    id: randomUUID(), customerId: owner.id, name: 'Prinect', format: 'xjdf', sites: ['VR'], allowIps: [],
    key: { credentialId: randomUUID(), keyId, secretHash: `sha256:${keyId}` }, createdAt: at(1), ...over,
  };
}

/** One registered order of `customer` with reference `ref`, brought by its own submission. */
async function register(store: Store, customer: Customer, ref: string): Promise<string> {
  const sub = await addSubmission(store, customer, { channel: 'connector' });
  const [r] = await store.registerOrders([item(customer, sub, ref)]);
  return r!.id_ordine;
}

export function connectorCustomersContract(makeStore: StoreFactory): void {
  void describe('connectors serving several customers (migration 009)', () => {
    void it('binds a connector to several customers or to all; an unknown customer stores nothing', () => withStore(makeStore, async (store) => {
      const [owner, a, b] = [await addCustomer(store, 'P000'), await addCustomer(store, 'C002'), await addCustomer(store, 'C001')];
      await store.createSite({ code: 'VR', name: 'Verona' });
      const several = await store.createConnector(connector(owner, { customerIds: [a.id, b.id, a.id], productKey: '{@DescriptiveName}' }));
      assert.deepEqual(several.customers, [{ id: b.id, code: 'C001' }, { id: a.id, code: 'C002' }]);
      assert.equal(several.allCustomers, false);
      assert.equal(several.customerCode, 'P000', 'the owner stays the one whose key it is');
      assert.equal(several.productKey, '{@DescriptiveName}');
      const all = await store.createConnector(connector(owner, { allCustomers: true, customerIds: [a.id] }));
      assert.deepEqual({ customers: all.customers, allCustomers: all.allCustomers }, { customers: [], allCustomers: true });
      assert.deepEqual((await store.getConnector(all.id))?.allCustomers, true);
      const alone = await store.createConnector(connector(a));
      assert.deepEqual(alone.customers, [{ id: a.id, code: 'C002' }], 'without customerIds: the owner alone');
      await assert.rejects(store.createConnector(connector(owner, { customerIds: [a.id, 'nobody'] })), isCode('NOT_FOUND'));
      assert.equal((await store.listConnectors({})).length, 3);
    }));

    void it('replaces and reads the customer table; refuses repeats and unknown customers, keeping the old table', () => withStore(makeStore, async (store) => {
      const [a, b] = [await addCustomer(store, 'C001'), await addCustomer(store, 'C002')];
      await store.createSite({ code: 'VR', name: 'Verona' });
      const c = await store.createConnector(connector(a, { customerIds: [a.id, b.id] }));
      assert.equal(await store.replaceConnectorCustomerIds(c.id, [{ externalId: 'MIS-2', customerId: b.id }, { externalId: 'MIS-1', customerId: a.id }]), 2);
      const table = [{ externalId: 'MIS-1', customerId: a.id, customerCode: 'C001' }, { externalId: 'MIS-2', customerId: b.id, customerCode: 'C002' }];
      assert.deepEqual(await store.connectorCustomerIds(c.id), table);
      await assert.rejects(store.replaceConnectorCustomerIds(c.id, [{ externalId: 'X', customerId: a.id }, { externalId: 'X', customerId: b.id }]), isCode('VALIDATION'));
      await assert.rejects(store.replaceConnectorCustomerIds(c.id, [{ externalId: 'Y', customerId: 'nobody' }]), isCode('NOT_FOUND'));
      assert.deepEqual(await store.connectorCustomerIds(c.id), table, 'a refused import changes nothing');
      await assert.rejects(store.replaceConnectorCustomerIds('nope', []), isCode('NOT_FOUND'));
      assert.equal(await store.replaceConnectorCustomerIds(c.id, [{ externalId: 'MIS-3', customerId: a.id }]), 1);
      assert.deepEqual((await store.connectorCustomerIds(c.id)).map((r) => r.externalId), ['MIS-3']);
    }));

    void it('sets and clears the product key template', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'C001');
      await store.createSite({ code: 'VR', name: 'Verona' });
      const c = await store.createConnector(connector(a));
      assert.equal(c.productKey, undefined);
      await store.setConnectorProductKey(c.id, 'auto||{@ProductType}');
      assert.equal((await store.getConnector(c.id))?.productKey, 'auto||{@ProductType}');
      await store.setConnectorProductKey(c.id, undefined);
      assert.equal((await store.getConnector(c.id))?.productKey, undefined);
      await assert.rejects(store.setConnectorProductKey('nope', 'x'), isCode('NOT_FOUND'));
    }));

    void it("keeps a ticket's first details with its order, shown only to the order's customer", () => withStore(makeStore, async (store) => {
      const [a, b] = [await addCustomer(store, 'C001'), await addCustomer(store, 'C002')];
      const id = await register(store, a, 'JOB-42');
      await store.saveOrderTickets([{ orderId: id, details: '{"file":["http://example.org/a.pdf"]}' }]);
      await store.saveOrderTickets([{ orderId: id, details: '{"file":["http://example.org/other.pdf"]}' }]);
      assert.equal(await store.orderTicket(a.id, id), '{"file":["http://example.org/a.pdf"]}');
      assert.equal(await store.orderTicket(b.id, id), undefined);
      assert.equal(await store.orderTicket(a.id, 'nope'), undefined);
      await store.saveOrderTickets([]);
    }));

    void it('finds orders and attempts only among the customers a connector is bound to', () => withStore(makeStore, async (store) => {
      const [a, b, other] = [await addCustomer(store, 'C001'), await addCustomer(store, 'C002'), await addCustomer(store, 'C003')];
      await store.createSite({ code: 'VR', name: 'Verona' });
      const two = await store.createConnector(connector(a, { customerIds: [a.id, b.id] }));
      const all = await store.createConnector(connector(a, { allCustomers: true }));
      const [ia, ib, io] = [await register(store, a, 'JOB-42'), await register(store, b, 'JOB-42'), await register(store, other, 'JOB-42')];
      assert.deepEqual(await store.connectorOrderOwners(two.id, { id: ia }), [a.id]);
      assert.deepEqual(await store.connectorOrderOwners(two.id, { id: io }), [], "another customer's order is not found");
      assert.deepEqual(new Set(await store.connectorOrderOwners(two.id, { ref: 'JOB-42' })), new Set([a.id, b.id]));
      assert.deepEqual(await store.connectorOrderOwners(two.id, { ref: 'JOB-42', customerId: b.id }), [b.id]);
      assert.deepEqual(await store.connectorOrderOwners(two.id, { ref: 'JOB-42', customerId: other.id }), []);
      assert.deepEqual(await store.connectorOrderOwners(two.id, {}), []);
      assert.deepEqual(new Set(await store.connectorOrderOwners(all.id, { ref: 'JOB-42' })), new Set([a.id, b.id, other.id]));
      assert.deepEqual(await store.connectorOrderOwners(all.id, { id: ib }), [b.id]);

      // Attempts: filed under the order's customer, or the connector's unattributed owner (OrderOutcome.customerId).
      const sub = await addSubmission(store, a, { channel: 'connector', connectorId: two.id, receivedAt: at(5) });
      const outcome: Outcome = {
        submissionId: sub, esito: 'errore', orders: [
          { index: 0, riferimento_ordine: 'R-B', esito: 'errore', code: 'BUSINESS', errori: [{ campo: 'x', messaggio: 'y' }], customerId: b.id },
          { index: 1, riferimento_ordine: 'R-X', esito: 'errore', code: 'FORBIDDEN_CUSTOMER', customerId: unattributedOwner(two.id) },
        ],
      };
      await store.completeSubmission(sub, 'processed', outcome, at(6));
      assert.equal((await store.connectorLatestAttempt(two.id, 'R-B'))?.outcome.riferimento_ordine, 'R-B');
      assert.equal((await store.connectorLatestAttempt(two.id, 'R-B', b.id))?.submissionId, sub);
      assert.equal(await store.connectorLatestAttempt(two.id, 'R-B', other.id), undefined);
      assert.equal((await store.connectorLatestAttempt(two.id, 'R-X'))?.outcome.code, 'FORBIDDEN_CUSTOMER');
      assert.equal(await store.connectorLatestAttempt(all.id, 'R-X'), undefined, "another connector's unattributed attempts stay its own");
      assert.equal(await store.latestAttempt(a.id, 'R-B'), undefined, "the owner's REST view does not show C002's refusal");
      assert.equal((await store.latestAttempt(b.id, 'R-B'))?.submissionId, sub, 'C002 sees its own');
      assert.equal(await store.latestAttempt(a.id, 'R-X'), undefined, 'an unattributed refusal is no customer\'s');
    }));
  });
}
