// Peppol identifiers, GTINs and article cross-references (migration 035) on both engines: what resolves a UBL
// document's buyer and item identifiers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isIntakeError } from '../../src/domain/errors.ts';
import { postgres, sqliteMemory } from './backends.ts';
import { addCustomer, withStore, type StoreFactory } from './fixtures.ts';
import { PG_SKIP, testDatabaseUrl } from './pg-schema.ts';

function peppolContract(name: string, make: StoreFactory): void {
  void describe(`peppol identifiers and cross-references: ${name}`, () => {
    void it('replaces a customer\'s identifiers, finds customers by them and refuses another customer\'s', () => withStore(make, async (store) => {
      const a = await addCustomer(store, 'C001');
      const b = await addCustomer(store, 'C002');
      await store.setPeppolIds(a.id, [{ scheme: '0211', identifier: 'IT01234567890' }, { scheme: '9906', identifier: 'UFABC1' }]);
      assert.deepEqual(await store.listPeppolIds(a.id), [{ scheme: '0211', identifier: 'IT01234567890' }, { scheme: '9906', identifier: 'UFABC1' }]);
      const found = await store.customersByPeppolId([{ scheme: '9906', identifier: 'UFABC1' }, { scheme: '0088', identifier: '123' }]);
      assert.deepEqual([...found], [['9906:UFABC1', a.id]]);
      await assert.rejects(store.setPeppolIds(b.id, [{ scheme: '0211', identifier: 'IT01234567890' }]),
        (e: unknown) => isIntakeError(e) && e.code === 'CONFLICT' && /0211:IT01234567890 \(C001\)/.test(e.message));
      assert.deepEqual(await store.listPeppolIds(b.id), [], 'a refused change changes nothing');
      await store.setPeppolIds(a.id, [{ scheme: '0088', identifier: '123' }]);
      assert.deepEqual(await store.listPeppolIds(a.id), [{ scheme: '0088', identifier: '123' }], 'the list is replaced');
      await store.setPeppolIds(b.id, [{ scheme: '0211', identifier: 'IT01234567890' }]);
      assert.equal((await store.customersByPeppolId([{ scheme: '0211', identifier: 'IT01234567890' }])).get('0211:IT01234567890'), b.id);
      await store.setPeppolIds(a.id, []);
      assert.deepEqual(await store.listPeppolIds(a.id), []);
    }));

    void it('maps GTINs and a customer\'s own codes to articles, the last import winning', () => withStore(make, async (store) => {
      const a = await addCustomer(store, 'C001');
      const b = await addCustomer(store, 'C002');
      await store.upsertArticleGtins([{ gtin: '08001234567890', codice_articolo: 'BV-STD' }, { gtin: '08001234567890', codice_articolo: 'VOL-A5' }]);
      await store.upsertArticleGtins([{ gtin: '04000000000001', codice_articolo: 'BV-STD' }]);
      assert.deepEqual([...await store.articlesByGtin(['08001234567890', '04000000000001', '1'])].sort(),
        [['04000000000001', 'BV-STD'], ['08001234567890', 'VOL-A5']]);
      await store.upsertArticleXrefs(a.id, [{ codice_cliente_articolo: 'ASL-77', codice_articolo: 'BV-STD' }]);
      await store.upsertArticleXrefs(a.id, [{ codice_cliente_articolo: 'ASL-77', codice_articolo: 'VOL-A4' }, { codice_cliente_articolo: 'ASL-78', codice_articolo: 'BV-STD' }]);
      assert.deepEqual([...await store.articleXrefs(a.id, ['ASL-77', 'X'])], [['ASL-77', 'VOL-A4']]);
      assert.deepEqual([...await store.articleXrefs(b.id, ['ASL-77'])], [], 'cross-references are per customer');
      assert.equal(await store.countArticleXrefs(a.id), 2);
      assert.equal(await store.countArticleXrefs(b.id), 0);
    }));

    void it('keeps the highest Order Change sequence of an order', () => withStore(make, async (store) => {
      assert.equal(await store.ublChangeSequence('o-1'), undefined);
      await store.recordUblChangeSequence('o-1', 5);
      await store.recordUblChangeSequence('o-1', 3);
      assert.equal(await store.ublChangeSequence('o-1'), 5, 'a lower one does not lower it');
      await store.recordUblChangeSequence('o-1', 7);
      assert.equal(await store.ublChangeSequence('o-1'), 7);
    }));
  });
}

peppolContract('sqlite', sqliteMemory);
if (testDatabaseUrl) peppolContract('postgres', postgres(testDatabaseUrl));
else void describe('peppol identifiers: postgres', { skip: PG_SKIP }, () => {});
