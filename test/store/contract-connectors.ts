// The store contract, connectors part: sites, connectors with their key, rotation and revocation, the lookup
// table and the mapping (see src/domain/store/connectors.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import type { NewConnector, NewConnectorKey } from '../../src/domain/store/connectors.ts';
import type { Customer, Store } from '../../src/domain/store/store.ts';
import { addCustomer, at, withStore, type StoreFactory } from './fixtures.ts';

const isCode = (code: IntakeError['code']) => (e: unknown) => e instanceof IntakeError && e.code === code;

function key(keyId = randomUUID().replace(/-/g, '').slice(0, 12)): NewConnectorKey {
  return { credentialId: randomUUID(), keyId, secretHash: `sha256:${keyId}` };
}

function connector(customer: Customer, over: Partial<NewConnector> = {}): NewConnector {
  return {
    id: randomUUID(), customerId: customer.id, name: 'Switch Verona', format: 'xjdf', sites: ['VR'], allowIps: [], key: key(),
    createdAt: at(1), ...over,
  };
}

async function sites(store: Store, ...codes: string[]): Promise<void> {
  for (const c of codes) await store.createSite({ code: c, name: `Sito ${c}` });
}

export function connectorsContract(makeStore: StoreFactory): void {
  void describe('connectors', () => {
    void it('creates sites upper case, refuses a second one with the same code, lists them by code', () => withStore(makeStore, async (store) => {
      const vr = await store.createSite({ code: 'vr', name: 'Verona', createdAt: '2025-01-01T01:00:00+01:00' });
      assert.deepEqual(vr, { code: 'VR', name: 'Verona', createdAt: '2025-01-01T00:00:00.000Z' });
      await store.createSite({ code: 'MI', name: 'Milano' });
      await assert.rejects(store.createSite({ code: 'Vr', name: 'Verona 2' }), isCode('CONFLICT'));
      assert.deepEqual((await store.listSites()).map((s) => s.code), ['MI', 'VR']);
      assert.equal((await store.getSite('vr'))?.name, 'Verona');
      assert.equal(await store.getSite('TO'), undefined);
    }));

    void it('creates a connector with its sites, key and allow list, and reads it back', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      await sites(store, 'VR', 'MI');
      const n = connector(c, { sites: ['mi', 'VR', 'VR'], allowIps: ['10.0.0.0/8', '2001:db8::/32'], mapping: '$' });
      const made = await store.createConnector(n);
      assert.deepEqual(made, {
        id: n.id, customerId: c.id, customerCode: 'C001', customers: [{ id: c.id, code: 'C001' }], allCustomers: false,
        name: 'Switch Verona', format: 'xjdf', sites: ['MI', 'VR'],
        allowIps: ['10.0.0.0/8', '2001:db8::/32'], mapping: '$', keyId: n.key.keyId, createdAt: at(1),
      });
      assert.deepEqual(await store.getConnector(n.id), made);
      const found = await store.findConnectorByKey(n.key.keyId);
      assert.deepEqual(found, { connector: made, secretHash: n.key.secretHash });
      assert.equal(await store.findConnectorByKey('unknown'), undefined);
      assert.equal(await store.findCredential('api_key', n.key.keyId), undefined, 'a connector key is not an API key');
      assert.equal((await store.findCredential('connector', n.key.keyId))?.customerId, c.id);
    }));

    void it('refuses an unknown customer or site, and a repeated key id, storing nothing', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      await sites(store, 'VR');
      await assert.rejects(store.createConnector(connector(c, { sites: ['VR', 'TO'] })), (e: unknown) => isCode('NOT_FOUND')(e) && /TO/.test((e as Error).message));
      await assert.rejects(store.createConnector(connector(c, { customerId: 'nobody' })), isCode('NOT_FOUND'));
      const first = connector(c);
      await store.createConnector(first);
      await assert.rejects(store.createConnector(connector(c, { key: key(first.key.keyId) })), isCode('CONFLICT'));
      assert.deepEqual((await store.listConnectors({})).map((x) => x.id), [first.id]);
    }));

    void it('lists connectors, each customer only its own', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      await sites(store, 'VR', 'MI');
      const a1 = await store.createConnector(connector(a, { createdAt: at(1) }));
      const a2 = await store.createConnector(connector(a, { createdAt: at(2), format: 'json', sites: ['MI', 'VR'] }));
      const b1 = await store.createConnector(connector(b, { createdAt: at(3) }));
      assert.deepEqual((await store.listConnectors({ customerId: a.id })).map((x) => x.id), [a1.id, a2.id]);
      assert.deepEqual((await store.listConnectors({ customerId: b.id })).map((x) => x.id), [b1.id]);
      assert.deepEqual((await store.listConnectors({})).map((x) => x.id), [a1.id, a2.id, b1.id]);
      assert.deepEqual((await store.listConnectors({ customerId: a.id }))[1]!.sites, ['MI', 'VR']);
    }));

    void it('rotates the key: the old key is no longer found, the new one is, the connector is the same', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      await sites(store, 'VR');
      const n = connector(c);
      await store.createConnector(n);
      const next = key();
      const rotated = await store.rotateConnectorKey(n.id, next);
      assert.equal(rotated.keyId, next.keyId);
      assert.equal(await store.findConnectorByKey(n.key.keyId), undefined);
      assert.equal((await store.findConnectorByKey(next.keyId))?.connector.id, n.id);
      assert.equal(await store.findCredential('connector', n.key.keyId), undefined, 'the old key is revoked');
      await assert.rejects(store.rotateConnectorKey('nope', key()), isCode('NOT_FOUND'));
    }));

    void it('revokes a connector: its key no longer works, the profile stays readable, no rotation after', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      await sites(store, 'VR');
      const n = connector(c, { format: 'json', mapping: '{"a": 1}' });
      await store.createConnector(n);
      await store.replaceConnectorLookup(n.id, [{ productKey: 'biglietti', codice_articolo: 'BV-STD' }]);
      assert.equal(await store.revokeConnector(n.id), true);
      assert.equal(await store.revokeConnector(n.id), false, 'already revoked');
      assert.equal(await store.revokeConnector('nope'), false);
      assert.equal(await store.findConnectorByKey(n.key.keyId), undefined);
      const kept = await store.getConnector(n.id);
      assert.match(kept?.revokedAt ?? '', /^\d{4}-\d{2}-\d{2}T/);
      assert.equal(kept?.mapping, '{"a": 1}');
      assert.deepEqual(await store.connectorLookup(n.id), [{ productKey: 'biglietti', codice_articolo: 'BV-STD' }]);
      await assert.rejects(store.rotateConnectorKey(n.id, key()), isCode('NOT_FOUND'));
    }));

    void it('replaces the lookup table whole, and refuses a repeated key without changing it', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      await sites(store, 'VR');
      const n = connector(c);
      await store.createConnector(n);
      assert.deepEqual(await store.connectorLookup(n.id), []);
      const rows = [
        { productKey: 'volantino a4', codice_articolo: 'VOL-A4', unita_misura: 'PZ' },
        { productKey: 'biglietti', codice_articolo: 'BV-STD' },
      ];
      assert.equal(await store.replaceConnectorLookup(n.id, rows), 2);
      assert.deepEqual(await store.connectorLookup(n.id), [rows[1], rows[0]], 'sorted by key, unit only when set');
      await assert.rejects(store.replaceConnectorLookup(n.id, [rows[0]!, { ...rows[0]!, codice_articolo: 'X' }]), isCode('VALIDATION'));
      assert.equal((await store.connectorLookup(n.id)).length, 2, 'a refused import changes nothing');
      assert.equal(await store.replaceConnectorLookup(n.id, [rows[1]!]), 1);
      assert.deepEqual(await store.connectorLookup(n.id), [rows[1]]);
      await assert.rejects(store.replaceConnectorLookup('nope', rows), isCode('NOT_FOUND'));
      const many = Array.from({ length: 2_500 }, (_, i) => ({ productKey: `p${String(i).padStart(5, '0')}`, codice_articolo: 'BV-STD' }));
      assert.equal(await store.replaceConnectorLookup(n.id, many), 2_500);
      assert.equal((await store.connectorLookup(n.id)).length, 2_500);
    }));

    void it('stores and clears the mapping', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      await sites(store, 'VR');
      const n = connector(c, { format: 'json' });
      await store.createConnector(n);
      await store.setConnectorMapping(n.id, 'ordini.{"x": 1}');
      assert.equal((await store.getConnector(n.id))?.mapping, 'ordini.{"x": 1}');
      await store.setConnectorMapping(n.id, undefined);
      assert.equal((await store.getConnector(n.id))?.mapping, undefined);
      await assert.rejects(store.setConnectorMapping('nope', '$'), isCode('NOT_FOUND'));
    }));
  });
}
