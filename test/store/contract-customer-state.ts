// The store contract, customer state part (src/domain/store/customer-state.ts): deactivating keeps everything and ends only
// the customer's portal sessions, reactivating restores it; the per-channel activity counts only that customer.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Outcome } from '../../src/domain/types.ts';
import { addCustomer, addSubmission, at, item, withStore, type StoreFactory } from './fixtures.ts';

const future = () => new Date(Date.now() + 3_600_000).toISOString();

function outcome(id: string, esito: 'ok' | 'errore'): Outcome {
  return { submissionId: id, esito, orders: [{ index: 0, riferimento_ordine: 'R', esito }] };
}

export function customerStateContract(makeStore: StoreFactory): void {
  void describe('customer state', () => {
    void it('deactivates and reactivates a customer, keeping its credentials and ending only its portal sessions', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'C001');
      const b = await addCustomer(store, 'C002');
      await store.addCredential({ id: randomUUID(), customerId: a.id, kind: 'password', lookup: 'c001', secretHash: 'h' });
      const sa = randomUUID();
      const sb = randomUUID();
      const now = new Date().toISOString();
      await store.createWebSession({ tokenHash: sa, kind: 'customer', subjectId: a.id, createdAt: now, expiresAt: future() });
      await store.createWebSession({ tokenHash: sb, kind: 'customer', subjectId: b.id, createdAt: now, expiresAt: future() });

      assert.equal((await store.getCustomer(a.id))?.deactivatedAt, undefined, 'a new customer is active');
      assert.equal(await store.setCustomerDeactivated(a.id, true), true);
      const off = (await store.getCustomer(a.id))?.deactivatedAt;
      assert.match(off ?? '', /^\d{4}-\d\d-\d\dT/);
      assert.equal((await store.getCustomerByCode('C001'))?.deactivatedAt, off, 'every lookup carries the state');
      assert.equal((await store.getCustomerByMailbox(a.mailbox))?.deactivatedAt, off);
      assert.equal((await store.listCustomers()).find((c) => c.id === a.id)?.deactivatedAt, off);
      assert.equal(await store.getWebSession(sa), undefined, 'its portal sessions are ended');
      assert.ok(await store.getWebSession(sb), 'another customer\'s session stays');
      assert.equal((await store.findCredential('password', 'c001'))?.customerId, a.id, 'its credentials stay');
      assert.equal((await store.getCustomer(b.id))?.deactivatedAt, undefined);

      assert.equal(await store.setCustomerDeactivated(a.id, true), true);
      assert.equal((await store.getCustomer(a.id))?.deactivatedAt, off, 'deactivating again keeps the first time');
      assert.equal(await store.setCustomerDeactivated(a.id, false), true);
      assert.equal((await store.getCustomer(a.id))?.deactivatedAt, undefined, 'reactivated');
      assert.equal(await store.setCustomerDeactivated(randomUUID(), true), false, 'no such customer');
    }));

    void it('counts one customer\'s submissions, refusals and orders per channel since a time', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'C001');
      const b = await addCustomer(store, 'C002');
      const s1 = await addSubmission(store, a, { receivedAt: at(10), channel: 'rest' });
      const s2 = await addSubmission(store, a, { receivedAt: at(20), channel: 'rest' });
      const s3 = await addSubmission(store, a, { receivedAt: at(30), channel: 'sftp' });
      await addSubmission(store, a, { receivedAt: at(1), channel: 'sftp' });
      const sb = await addSubmission(store, b, { receivedAt: at(30), channel: 'rest' });
      await store.completeSubmission(s1, 'processed', outcome(s1, 'ok'), at(11));
      await store.completeSubmission(s2, 'processed', outcome(s2, 'errore'), at(21));
      await store.registerOrders([
        item(a, s1, 'A1', { registeredAt: at(11), channel: 'rest' }), item(a, s3, 'A3', { registeredAt: at(31), channel: 'sftp' }),
        item(b, sb, 'B1', { registeredAt: at(31), channel: 'rest' }),
      ]);
      const rows = await store.customerActivity(a.id, at(5));
      assert.deepEqual(rows.map((r) => [r.channel, r.submissions, r.refused, r.orders]), [['rest', 2, 1, 1], ['sftp', 1, 0, 1]]);
      assert.deepEqual(await store.customerActivity(a.id, at(100)), [], 'nothing since then');
    }));
  });
}
