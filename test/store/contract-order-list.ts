// The store contract, issue 43: a customer's orders paged oldest first (listCustomerOrders, behind GET /api/v1/ordini
// without a reference) and articles taken out of the catalog (deactivate, activate, remove).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import type { CustomerOrderPage, Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, item, withStore, type StoreFactory } from './fixtures.ts';

/** Every page of `q`, `limit` at a time, each after the previous page's last order; `between` runs after each page. */
async function pages(store: Store, q: Omit<CustomerOrderPage, 'limit' | 'after'>, limit: number, between?: (n: number) => Promise<void>) {
  const seen: string[] = [];
  let after: CustomerOrderPage['after'];
  for (let n = 0; ; n++) {
    const page = await store.listCustomerOrders({ ...q, limit, after });
    seen.push(...page.map((o) => o.riferimento_ordine));
    const last = page[page.length - 1];
    if (page.length < limit || !last) return seen;
    after = { at: last.registeredAt, id: last.id_ordine };
    await between?.(n);
  }
}

export function orderListContract(makeStore: StoreFactory): void {
  void describe('listCustomerOrders', () => {
    void it('pages one customer\'s orders oldest first, never another\'s, and picks up orders registered meanwhile', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const sa = await addSubmission(store, a);
      const sb = await addSubmission(store, b);
      // Two orders share a registration time: the id breaks the tie, so a page boundary between them loses neither.
      await store.registerOrders([
        item(a, sa, 'A-3', { registeredAt: at(30) }), item(a, sa, 'A-1', { registeredAt: at(10) }),
        item(a, sa, 'A-2a', { registeredAt: at(20), id: '00000000-0000-7000-8000-00000000000a' }),
        item(a, sa, 'A-2b', { registeredAt: at(20), id: '00000000-0000-7000-8000-00000000000b' }),
        item(a, sa, 'A-4', { registeredAt: at(40) }),
        item(b, sb, 'B-1', { registeredAt: at(15) }), item(b, sb, 'B-2', { registeredAt: at(35) }),
      ]);
      const first = await store.listCustomerOrders({ customerId: a.id, limit: 10 });
      assert.deepEqual(first.map((o) => o.riferimento_ordine), ['A-1', 'A-2a', 'A-2b', 'A-3', 'A-4']);
      assert.deepEqual(first[0]!.righe.map((r) => r.codice_articolo), ['BV-STD', 'VOL-A4'], 'with their lines');
      let k = 0;
      const seen = await pages(store, { customerId: a.id }, 2, async () => {
        // Registered while the client pages: later than every order listed, so on a later page; B's never shows.
        await store.registerOrders([item(a, sa, `A-new-${k}`, { registeredAt: at(50 + k) }), item(b, sb, `B-new-${k}`, { registeredAt: at(50 + k) })]);
        k++;
      });
      assert.equal(new Set(seen).size, seen.length, 'no order twice');
      assert.deepEqual(seen.slice(0, 5), ['A-1', 'A-2a', 'A-2b', 'A-3', 'A-4']);
      assert.ok(seen.length > 5 && seen.slice(5).every((r) => r.startsWith('A-new-')), seen.join());
      assert.deepEqual(await store.listCustomerOrders({ customerId: 'nobody', limit: 10 }), []);
      const everyone = await store.listCustomerOrders({ limit: 4 });
      assert.deepEqual(everyone.map((o) => o.riferimento_ordine), ['A-1', 'B-1', 'A-2a', 'A-2b'], 'without a customer: every customer\'s');
    }));

    void it('filters by registration window and production state', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const sa = await addSubmission(store, a);
      const made = await store.registerOrders([
        item(a, sa, 'R1', { registeredAt: at(10) }), item(a, sa, 'R2', { registeredAt: at(20) }), item(a, sa, 'R3', { registeredAt: at(30) }),
      ]);
      const id2 = made[1]!.id_ordine;
      assert.equal(await store.setProductionState({
        orderId: id2, from: null, to: 'in_lavorazione', at: at(40), integration: 'MIS',
        event: { id: uuidv7(), type: 'ordine.stato_aggiornato', time: at(40), orderId: id2, customerId: a.id, data: {} },
      }), true);
      const refs = async (q: Omit<CustomerOrderPage, 'customerId' | 'limit'>) =>
        (await store.listCustomerOrders({ customerId: a.id, limit: 10, ...q })).map((o) => o.riferimento_ordine);
      assert.deepEqual(await refs({ from: at(20) }), ['R2', 'R3'], 'from is inclusive');
      assert.deepEqual(await refs({ to: at(30) }), ['R1', 'R2'], 'to is exclusive');
      assert.deepEqual(await refs({ from: '2025-01-01T01:00:20+01:00', to: at(21) }), ['R2'], 'any ISO spelling of an instant');
      assert.deepEqual(await refs({ productionState: 'in_lavorazione' }), ['R2']);
      assert.deepEqual(await refs({ productionState: null }), ['R1', 'R3'], 'null: nothing reported yet');
      assert.deepEqual(await refs({ productionState: 'spedito' }), []);
      const [r2] = await store.listCustomerOrders({ customerId: a.id, limit: 10, productionState: 'in_lavorazione' });
      assert.equal(r2?.productionState, 'in_lavorazione');
      assert.equal(r2?.productionHistory?.length, 1, 'with its history');
    }));
  });

  void describe('articles taken out of the catalog', () => {
    const catalog = [
      { codice_articolo: 'DEMO-1', descrizione: 'Demo uno', unita_misura: 'PZ' },
      { codice_articolo: 'DEMO-2', descrizione: 'Demo due', unita_misura: 'PZ' },
      { codice_articolo: 'KEEP', descrizione: 'Resta', unita_misura: 'RS' },
    ];

    void it('deactivates, activates again and removes, answering the codes it changed', () => withStore(makeStore, async (store) => {
      await store.upsertArticles(catalog);
      assert.deepEqual(await store.deactivateArticles(['DEMO-1', 'DEMO-1', 'NOPE']), ['DEMO-1']);
      assert.deepEqual(await store.deactivateArticles(['DEMO-1']), [], 'already deactivated');
      assert.deepEqual(await store.knownArticles(['DEMO-1', 'DEMO-2', 'KEEP']), new Set(['DEMO-2', 'KEEP']));
      assert.deepEqual(await store.inactiveArticles(['DEMO-1', 'DEMO-2', 'NOPE']), new Set(['DEMO-1']));
      assert.equal(await store.countArticles(), 2, 'the count is of articles in service');
      assert.deepEqual((await store.searchArticles({ text: 'DEMO', limit: 10 })).map((x) => x.codice_articolo), ['DEMO-2'], 'never suggested');
      const [inactive] = await store.listInactiveArticles(10);
      assert.deepEqual({ ...inactive, deactivatedAt: undefined }, { ...catalog[0], deactivatedAt: undefined });
      assert.match(inactive!.deactivatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

      // An import updates a deactivated article's description but leaves it out of service.
      await store.upsertArticles([{ codice_articolo: 'DEMO-1', descrizione: 'Demo uno, nuova', unita_misura: 'CF' }, catalog[2]!]);
      assert.deepEqual(await store.knownArticles(['DEMO-1']), new Set());
      assert.equal((await store.listInactiveArticles(10))[0]?.descrizione, 'Demo uno, nuova');

      assert.deepEqual(await store.activateArticles(['DEMO-1', 'KEEP']), ['DEMO-1']);
      assert.deepEqual(await store.searchArticles({ text: 'DEMO-1', limit: 10 }), [{ codice_articolo: 'DEMO-1', descrizione: 'Demo uno, nuova', unita_misura: 'CF' }]);
      assert.deepEqual(await store.listInactiveArticles(10), []);

      await store.deactivateArticles(['DEMO-2']);
      assert.deepEqual((await store.removeArticles(['DEMO-1', 'DEMO-2', 'NOPE'])).sort(), ['DEMO-1', 'DEMO-2'], 'active or deactivated');
      assert.deepEqual(await store.knownArticles(['DEMO-1', 'DEMO-2']), new Set());
      assert.deepEqual(await store.inactiveArticles(['DEMO-1', 'DEMO-2']), new Set());
      assert.equal(await store.countArticles(), 1);
    }));

    void it('gives the export its lines in the order asked, with descriptions and production state', () => withStore(makeStore, async (store) => {
      await store.upsertArticles([{ codice_articolo: 'BV-STD', descrizione: 'Biglietti', unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', descrizione: 'Volantini', unita_misura: 'RS' }]);
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const [r1, r2] = await store.registerOrders([item(c, sub, 'R1'), item(c, sub, 'R2', { order: { righe: [{ codice_articolo: 'GONE', quantita: 1.5, unita_misura: 'PZ' }] } })]);
      const id1 = r1!.id_ordine;
      const id2 = r2!.id_ordine;
      await store.setProductionState({
        orderId: id2, from: null, to: 'spedito', at: at(40), integration: 'MIS',
        event: { id: uuidv7(), type: 'ordine.stato_aggiornato', time: at(40), orderId: id2, customerId: c.id, data: {} },
      });
      await store.deactivateArticles(['VOL-A4']);
      assert.deepEqual(await store.orderExportLines([id2, id1, 'nope']), [
        { orderId: id2, index: 0, codice_articolo: 'GONE', quantita: 1.5, unita_misura: 'PZ', productionState: 'spedito' },
        { orderId: id1, index: 0, codice_articolo: 'BV-STD', descrizione: 'Biglietti', quantita: 500, unita_misura: 'PZ' },
        { orderId: id1, index: 1, codice_articolo: 'VOL-A4', descrizione: 'Volantini', quantita: 2.5, unita_misura: 'RS' },
      ]);
      assert.deepEqual(await store.orderExportLines([]), []);
    }));

    void it('leaves registered orders whole when their articles are deactivated or removed', () => withStore(makeStore, async (store) => {
      await store.upsertArticles([...catalog, { codice_articolo: 'BV-STD', descrizione: 'Biglietti', unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', descrizione: 'Volantini', unita_misura: 'RS' }]);
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const [r] = await store.registerOrders([item(c, sub, 'R1')]);
      const before = await store.getOrder(c.id, r!.id_ordine);
      await store.deactivateArticles(['BV-STD']);
      await store.removeArticles(['VOL-A4']);
      assert.deepEqual(await store.getOrder(c.id, r!.id_ordine), before);
    }));
  });
}
