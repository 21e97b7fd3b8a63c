// The store contract, lifecycle part (src/domain/store/lifecycle.ts): a version is written only over the version and
// production state it was judged against, keeps the superseded one whole and replaces the lines; a cancellation is a
// compare-and-set too; at most one request per order waits, and a submission finds the request it made; every write
// carries its events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import type { NewEvent } from '../../src/domain/store/events.ts';
import type { StoredVersion } from '../../src/domain/store/lifecycle.ts';
import type { Store } from '../../src/domain/store/store.ts';
import type { Order, RegisteredOrder } from '../../src/domain/types.ts';
import type { Customer } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, item, withStore, type StoreFactory } from './fixtures.ts';
import { readWhen } from '../helpers/wait.ts';

function ev(type: NewEvent['type'], o: RegisteredOrder): NewEvent {
  return { id: uuidv7(), type, time: at(50), orderId: o.id_ordine, customerId: o.customerId, data: { id_ordine: o.id_ordine, tipo: type } };
}

function whole(o: RegisteredOrder): StoredVersion {
  const order: Order = { codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine, data_ordine: o.data_ordine, righe: o.righe };
  if (o.data_consegna !== undefined) order.data_consegna = o.data_consegna;
  return { versione: o.versione, ricevuto_il: o.registeredAt, canale: o.channel, azione: 'nuovo', order, submissionId: o.submissionId };
}

async function registered(store: Store, c: Customer, ref: string): Promise<RegisteredOrder> {
  const sub = await addSubmission(store, c);
  const [r] = await store.registerOrders([item(c, sub, ref)]);
  return (await store.getOrder(c.id, r!.id_ordine))!;
}

const content = (o: RegisteredOrder, quantita: number): Order => ({
  codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine, data_ordine: '2025-03-02', data_consegna: '2025-04-01', note: 'urgente',
  righe: [{ codice_articolo: 'BV-STD', quantita, unita_misura: 'PZ' }],
});

export function lifecycleContract(makeStore: StoreFactory): void {
  void describe('order lifecycle', () => {
    void it('writes a version over the one it was judged against only, and keeps the superseded one whole', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const o = await registered(store, c, 'V-1');
      assert.equal(o.versione, 1);
      const sub = await addSubmission(store, c);
      const write = (from: number, quantita: number) => store.writeVersion({
        orderId: o.id_ordine, from, fromState: null, order: content(o, quantita), contentHash: `h${quantita}`, at: at(10), channel: 'soap',
        submissionId: sub, previous: whole(o), events: [ev('ordine.modificato', o)],
      });
      assert.equal(await write(1, 7), true);
      assert.equal(await write(1, 8), false, 'a second writer judged against version 1 writes nothing');
      const now = (await store.getOrder(c.id, o.id_ordine))!;
      assert.equal(now.versione, 2);
      assert.equal(now.versionChannel, 'soap');
      assert.equal(now.versionAt, at(10));
      assert.equal(now.numero_ordine, o.numero_ordine);
      assert.equal(now.note, 'urgente');
      assert.equal(now.data_ordine, '2025-03-02');
      assert.deepEqual(now.righe, [{ codice_articolo: 'BV-STD', quantita: 7, unita_misura: 'PZ' }]);
      const versions = await store.orderVersions(o.id_ordine);
      assert.deepEqual(versions.map((v) => [v.versione, v.azione, v.canale]), [[1, 'nuovo', o.channel]]);
      assert.deepEqual(versions[0]!.order.righe, o.righe);
      assert.equal((await store.getOrderByRef(c.id, 'V-1'))!.versione, 2);
      const events = await readWhen(() => store.readEvents(null, 1000), (e) => e.some((x) => x.type === 'ordine.modificato'), 15_000);
      assert.equal(events.filter((x) => x.type === 'ordine.modificato').length, 1, 'the losing write wrote no event');
    }));

    void it('cancels only from the state it was judged in, with a history step', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const o = await registered(store, c, 'X-1');
      const cancel = (fromState: 'in_lavorazione' | null) => store.cancelOrder({
        orderId: o.id_ordine, from: 1, fromState, at: at(20), motivo: 'doppio', by: 'cliente', events: [ev('ordine.annullato', o)],
      });
      assert.equal(await cancel('in_lavorazione'), false);
      assert.equal(await cancel(null), true);
      assert.equal(await cancel(null), false);
      const now = (await store.getOrder(c.id, o.id_ordine))!;
      assert.equal(now.productionState, 'annullato');
      assert.deepEqual(now.productionHistory, [{ stato: 'annullato', aggiornato_il: at(20), nota: 'doppio' }]);
    }));

    void it('keeps one waiting request per order, finds a submission\'s own, and decides it once', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const o = await registered(store, c, 'R-1');
      const s1 = await addSubmission(store, c);
      const s2 = await addSubmission(store, c);
      const ask = (submissionId: string) => store.addRequest({
        id_richiesta: uuidv7(), orderId: o.id_ordine, customerId: c.id, tipo: 'modifica', motivo: 'più copie',
        order: content(o, 9), contentHash: 'h9', baseVersion: 1, submissionId, channel: 'rest', createdAt: at(30), event: ev('ordine.richiesta', o),
      });
      const first = await ask(s1);
      assert.equal(first.status, 'created');
      assert.equal(first.request.stato_richiesta, 'in_attesa');
      assert.deepEqual(first.request.order?.righe, [{ codice_articolo: 'BV-STD', quantita: 9, unita_misura: 'PZ' }]);
      const again = await ask(s1);
      assert.equal(again.status, 'existing');
      assert.equal(again.request.id_richiesta, first.request.id_richiesta);
      const other = await ask(s2);
      assert.equal(other.status, 'pending');
      assert.equal(other.request.id_richiesta, first.request.id_richiesta);

      const refuse = () => store.refuseRequest({ orderId: o.id_ordine, id: first.request.id_richiesta, nota: 'già in macchina', at: at(40), event: ev('ordine.richiesta_esito', o) });
      assert.equal(await refuse(), true);
      assert.equal(await refuse(), false);
      const [r] = await store.orderRequests(o.id_ordine);
      assert.equal(r!.stato_richiesta, 'rifiutata');
      assert.equal(r!.nota, 'già in macchina');
      assert.equal(r!.decidedAt, at(40));
      const late = await store.writeVersion({
        orderId: o.id_ordine, from: 1, fromState: null, order: content(o, 9), contentHash: 'h9', at: at(45), channel: 'rest', submissionId: s1,
        previous: whole(o), request: { id: first.request.id_richiesta }, events: [ev('ordine.modificato', o)],
      });
      assert.equal(late, false, 'accepting a request refused meanwhile writes nothing');
      assert.equal((await store.getOrder(c.id, o.id_ordine))!.versione, 1);
      assert.equal((await ask(s2)).status, 'created', 'once decided, another request may wait');
      assert.equal((await store.orderRequests(o.id_ordine)).length, 2);
    }));

    void it('never gives two concurrent writers the same version', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const o = await registered(store, c, 'C-1');
      const sub = await addSubmission(store, c);
      // Every writer judged against version 1: exactly one may win, whichever connection or thread it runs on.
      const wins = await Promise.all(Array.from({ length: 6 }, (_, i) => store.writeVersion({
        orderId: o.id_ordine, from: 1, fromState: null, order: content(o, 10 + i), contentHash: `c${i}`, at: at(60), channel: 'rest',
        submissionId: sub, previous: whole(o), events: [ev('ordine.modificato', o)],
      })));
      assert.equal(wins.filter(Boolean).length, 1);
      assert.deepEqual((await store.orderVersions(o.id_ordine)).map((v) => v.versione), [1]);
      assert.equal((await store.getOrder(c.id, o.id_ordine))!.versione, 2);
    }));
  });
}
