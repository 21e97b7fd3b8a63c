// The store contract, outbox part: every order event is written in the transaction of its change (registration,
// refusal, production report), read back in one order through cursors that never skip nor repeat; integration
// keys; production state as compare-and-set. The PostgreSQL-only proof that commits out of allocation order are
// never skipped is in events-postgres.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import { IntakeError } from '../../src/domain/errors.ts';
import type { OrderEvent } from '../../src/domain/order-events.ts';
import { storeEventReader } from '../../src/handoff/reader.ts';
import { statusById, statusByRef } from '../../src/intake/status.ts';
import type { Outcome } from '../../src/domain/types.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, item, withStore, type StoreFactory } from './fixtures.ts';
import { readWhen } from '../helpers/wait.ts';

const isCursorError = (e: unknown): boolean => e instanceof IntakeError && e.code === 'INVALID_CURSOR' && e.http === 400;

/** The whole stream, read `page` events at a time from the start, checking that cursors only grow. */
async function readAll(store: Store, page = 2): Promise<OrderEvent[]> {
  const all: OrderEvent[] = [];
  let cursor: string | null = null;
  for (;;) {
    const got = await store.readEvents(cursor, page);
    assert.ok(got.length <= page, 'never more than the limit');
    if (got.length === 0) return all;
    all.push(...got);
    cursor = got[got.length - 1]!.cursor;
  }
}

/**
 * The stream once `count` events are readable. On PostgreSQL an event becomes readable only when every transaction
 * on the server that was writing before it has ended (postgres/events.ts), and other tests' transactions run
 * meanwhile; so wait for the state, with a bound, instead of reading once. SQLite answers at once.
 */
async function settled(store: Store, count: number): Promise<OrderEvent[]> {
  return readWhen(() => store.readEvents(null, 1000), (got) => got.length >= count, 15_000);
}

/** The same data the REST GET answers, through the same JSON round trip a client makes. */
const json = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

export function eventsContract(makeStore: StoreFactory): void {
  void describe('order events (outbox)', () => {
    void it('writes ordine.registrato with each order created, holding the order as GET shows it', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const batch = await store.registerOrders([item(c, sub, 'R1'), item(c, sub, 'R2', { site: 'VR', order: { data_consegna: undefined } })]);
      const [alone] = await store.registerOrders([item(c, sub, 'R3')]);
      const other = await addSubmission(store, c);
      // A duplicate, a conflict and a reprocessing change nothing: no event.
      await store.registerOrders([item(c, other, 'R1')]);
      await store.registerOrders([item(c, other, 'R2', { contentHash: 'different' })]);
      await store.registerOrders([item(c, sub, 'R1'), item(c, sub, 'R2')]);
      await store.registerOrders([item(c, sub, 'R3')]);

      await settled(store, 3);
      const events = await readAll(store);
      assert.deepEqual(events.map((e) => e.type), ['ordine.registrato', 'ordine.registrato', 'ordine.registrato']);
      const ids = [batch[0]!.id_ordine, batch[1]!.id_ordine, alone!.id_ordine];
      assert.deepEqual(events.map((e) => e.data.id_ordine), ids, 'in registration order');
      for (const [k, e] of events.entries()) {
        // Only GET reads the lists of versions and requests; an event carries the order without them.
        const { versioni: _v, richieste: _r, ...view } = (await statusById(store, c.id, ids[k]!))!;
        assert.deepEqual(json(e.data), json(view), 'data is the REST view of the order');
        assert.match(e.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/, 'a UUIDv7');
        assert.equal(e.time, at(10));
      }
      assert.equal(events[1]!.data.sito_produzione, 'VR');
      assert.equal(new Set(events.map((e) => e.id)).size, 3);
      assert.equal(new Set(events.map((e) => e.cursor)).size, 3);
    }));

    void it('writes nothing when the registration is rolled back', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      await assert.rejects(store.registerOrders([item(c, sub, 'R1'), item(c, 'no-such-submission', 'R2')]));
      await assert.rejects(store.registerOrders([item(c, 'no-such-submission', 'R3')]));
      assert.deepEqual(await store.readEvents(null, 10), []);
    }));

    void it('writes ordine.rifiutato with the outcome that refuses, holding the refusal as GET shows it', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const file = await addSubmission(store, c, { channel: 'ftp', receivedAt: at(1) });
      const outcome: Outcome = {
        submissionId: file, esito: 'errore', orders: [
          { index: 0, codice_cliente: c.code, riferimento_ordine: 'OK1', esito: 'ok', id_ordine: 'x', numero_ordine: '2025-000001' },
          { index: 1, codice_cliente: c.code, riferimento_ordine: 'BAD1', esito: 'errore', code: 'BUSINESS',
            errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto' }] },
          { index: 2, esito: 'errore', code: 'VALIDATION', message: ['riferimento_ordine must be a string'] },
        ],
      };
      await store.completeSubmission(file, 'processed', outcome, at(5));
      const single = await addSubmission(store, c, { singleOrder: true, reservedOrderId: uuidv7(), receivedAt: at(2) });
      await store.completeSubmission(single, 'processed', {
        submissionId: single, esito: 'errore', fileError: { code: 'NOT_PARSEABLE', message: ['Unexpected token'] }, orders: [],
      }, at(6));
      const fine = await addSubmission(store, c);
      await store.completeSubmission(fine, 'processed', { submissionId: fine, esito: 'ok', orders: [outcome.orders[0]!] }, at(7));

      await settled(store, 3);
      const events = await readAll(store);
      assert.deepEqual(events.map((e) => e.type), ['ordine.rifiutato', 'ordine.rifiutato', 'ordine.rifiutato']);
      assert.deepEqual(json(events[0]!.data), json(await statusByRef(store, c.id, 'BAD1')), 'the refusal as GET ?riferimento_ordine= shows it');
      assert.deepEqual(events[0]!.data.errori, outcome.orders[1]!.errori);
      assert.equal(events[0]!.time, at(5));
      assert.deepEqual(json(events[1]!.data), {
        stato: 'rifiutato', codice_cliente: c.code, canale: 'ftp', ricevuto_il: at(1), message: ['riferimento_ordine must be a string'],
      }, 'an order whose code could not be read carries the sender\'s');
      const reserved = (await store.getSubmission(single))!.reservedOrderId!;
      // GET by its reserved id, plus the sender's code: the customer asking knows who it is, a feed reader does not.
      assert.deepEqual(json(events[2]!.data), { ...json(await statusById(store, c.id, reserved)) as object, codice_cliente: c.code },
        'a single order refused as a file: GET by its reserved id');
      assert.equal(events[2]!.data.id_ordine, reserved);
    }));

    void it('records outcomes that arrive together (PostgreSQL: one statement) as it records them one by one', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const refused = (s: string, ref: string): Outcome => ({
        submissionId: s, esito: 'errore', orders: [{ index: 0, codice_cliente: c.code, riferimento_ordine: ref, esito: 'errore', code: 'BUSINESS',
          errori: [{ campo: 'righe[0].codice_articolo', messaggio: `Articolo sconosciuto in ${ref}` }] }],
      });
      // Judged once with two orders, reset (an operator's reprocess), then judged again (in the crowd below) with
      // one: the other attempt must go.
      const again = await addSubmission(store, c, { channel: 'ftp', receivedAt: at(1) });
      await store.completeSubmission(again, 'processed', {
        submissionId: again, esito: 'errore', orders: [refused(again, 'OLD1').orders[0]!, { ...refused(again, 'OLD2').orders[0]!, index: 1 }],
      }, at(2));
      await store.resetSubmission(again);
      // Judged once, then a late second judgement in the crowd (an instance that lost its lease): it writes nothing.
      const late = await addSubmission(store, c, { channel: 'ftp', receivedAt: at(1) });
      assert.equal(await store.completeSubmission(late, 'processed', refused(late, 'FIRST'), at(2)), true);
      const subs = await Promise.all(Array.from({ length: 12 }, () => addSubmission(store, c, { channel: 'ftp', receivedAt: at(3) })));
      const calls = subs.map((s, k) => store.completeSubmission(s, 'processed', refused(s, `B${k}`), at(4)));
      calls.push(store.completeSubmission(again, 'processed', refused(again, 'OLD1'), at(4)));
      const lateCall = store.completeSubmission(late, 'processed', refused(late, 'SECOND'), at(4));
      const missing = assert.rejects(store.completeSubmission('no-such-submission', 'processed', refused('x', 'X'), at(4)),
        (e: unknown) => e instanceof IntakeError && e.code === 'NOT_FOUND', 'an unknown id fails alone');
      assert.deepEqual(await Promise.all(calls), calls.map(() => true), 'every received submission recorded');
      assert.equal(await lateCall, false, 'the late judgement of a processed submission recorded nothing');
      await missing;
      const kept = await store.getSubmission(late);
      assert.deepEqual(kept?.outcome, refused(late, 'FIRST'), 'the outcome recorded first stands');
      assert.equal(kept?.attempts, 1);
      assert.equal(await store.latestAttempt(c.id, 'SECOND'), undefined, 'no attempt of the late judgement');
      assert.equal((await store.latestAttempt(c.id, 'FIRST'))?.submissionId, late, 'the first judgement\'s attempt kept');

      for (const [k, s] of subs.entries()) {
        const got = await store.getSubmission(s);
        assert.equal(got?.state, 'processed');
        assert.deepEqual(got?.outcome, refused(s, `B${k}`));
        assert.equal((await store.latestAttempt(c.id, `B${k}`))?.submissionId, s);
      }
      assert.equal(await store.latestAttempt(c.id, 'OLD2'), undefined, 'the attempt of the earlier judgement was replaced');
      // again's first judgement (2), late's (1, not its late one), the crowd's, again's second.
      const events = await settled(store, 2 + 1 + subs.length + 1);
      assert.equal(events.length, 2 + 1 + subs.length + 1);
      assert.ok(!events.some((e) => e.data.riferimento_ordine === 'SECOND'), 'no refusal event from the late judgement');
      for (const [k] of subs.entries()) {
        const e = events.find((x) => x.data.riferimento_ordine === `B${k}`);
        assert.deepEqual(json(e?.data), json(await statusByRef(store, c.id, `B${k}`)), 'the refusal as GET shows it');
        assert.equal(e?.time, at(4));
      }
    }));

    void it('refuses a cursor that does not parse or names no event', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      await store.registerOrders([item(c, sub, 'R1')]);
      const [e] = await settled(store, 1);
      assert.deepEqual(await store.readEvents(e!.cursor, 10), []);
      for (const bad of ['', 'abc', '-1', '0', '1.5', '99999999999999999999999', `${e!.cursor}9`, `9${e!.cursor}`, '1_2_3', "1'; DROP TABLE x"]) {
        await assert.rejects(store.readEvents(bad, 10), isCursorError, `cursor ${JSON.stringify(bad)}`);
      }
    }));

    void it('reads after any cursor without skipping or repeating, whatever the page size', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      for (let k = 0; k < 7; k++) {
        const sub = await addSubmission(store, c);
        await store.registerOrders(k % 2 ? [item(c, sub, `A${k}`), item(c, sub, `B${k}`)] : [item(c, sub, `A${k}`)]);
      }
      const whole = await settled(store, 10);
      assert.equal(whole.length, 10);
      for (const page of [1, 3, 10, 50]) assert.deepEqual(await readAll(store, page), whole);
      const reader = storeEventReader(store);
      assert.deepEqual(await reader.readAfter(null, 1000), whole, 'the EventReader the ways out consume');
      assert.deepEqual(await reader.readAfter(whole[3]!.cursor, 2), whole.slice(4, 6));
      for (const [k, e] of whole.entries()) assert.deepEqual(await store.readEvents(e.cursor, 1000), whole.slice(k + 1));
    }));

    void it('pages in numeric order when one transaction writes ten events or more', () => withStore(makeStore, async (store) => {
      // Twelve orders in one registration: on PostgreSQL one transaction, so one xid and seq 1..12. Ordered as text
      // (the bug this guards against: ORDER BY named the text casts of the output), seq 10 came before 9 and a page
      // ending on 11 made the next read skip 2..9.
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const refs = Array.from({ length: 12 }, (_, k) => `R${k}`);
      await store.registerOrders(refs.map((r) => item(c, sub, r)));
      const whole = await settled(store, refs.length);
      assert.deepEqual(whole.map((e) => e.data.riferimento_ordine), refs, 'the stream in registration order');
      for (const page of [1, 5, 7]) assert.deepEqual(await readAll(store, page), whole, `pages of ${page}`);
    }));

    void it('records production reports as compare-and-set, with their history and event', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const [r] = await store.registerOrders([item(c, sub, 'R1')]);
      const id = r!.id_ordine;
      const change = (from: 'in_lavorazione' | null, to: 'in_lavorazione' | 'spedito', n: number, nota?: string) => ({
        orderId: id, from, to, nota, at: at(n), integration: 'MIS',
        event: { id: uuidv7(), type: 'ordine.stato_aggiornato' as const, time: at(n), orderId: id, customerId: c.id, data: { id_ordine: id, n } },
      });
      assert.equal(await store.setProductionState(change(null, 'in_lavorazione', 20, 'in macchina')), true);
      assert.equal(await store.setProductionState(change(null, 'spedito', 21)), false, 'the state is no longer the one seen');
      assert.equal(await store.setProductionState(change('in_lavorazione', 'spedito', 22)), true);
      const o = await store.getOrder(c.id, id);
      assert.equal(o?.productionState, 'spedito');
      assert.deepEqual(o?.productionHistory, [
        { stato: 'in_lavorazione', nota: 'in macchina', aggiornato_il: at(20) },
        { stato: 'spedito', aggiornato_il: at(22) },
      ]);
      assert.deepEqual(await store.getOrderAnyCustomer(id), o);
      assert.equal(await store.getOrderAnyCustomer('nope'), undefined);
      await settled(store, 3);
      const events = await readAll(store);
      assert.deepEqual(events.map((e) => [e.type, e.data.n]), [['ordine.registrato', undefined], ['ordine.stato_aggiornato', 20], ['ordine.stato_aggiornato', 22]]);
    }));

    void it('keeps integration keys: one active per name, rotated and revoked at once', () => withStore(makeStore, async (store) => {
      await store.addIntegration({ id: 'i1', name: 'MIS', keyId: 'KEY1', secretHash: 'sha256:aa', createdAt: at(1) });
      await assert.rejects(store.addIntegration({ id: 'i2', name: 'MIS', keyId: 'KEY2', secretHash: 'sha256:bb', createdAt: at(2) }),
        (e: unknown) => e instanceof IntakeError && e.code === 'CONFLICT');
      assert.equal((await store.findIntegration('KEY1'))?.name, 'MIS');
      assert.equal(await store.rotateIntegration('MIS', { keyId: 'KEY3', secretHash: 'sha256:cc' }, at(3)), true);
      assert.equal(await store.findIntegration('KEY1'), undefined, 'the old key stops at once');
      assert.equal((await store.findIntegration('KEY3'))?.secretHash, 'sha256:cc');
      assert.equal(await store.rotateIntegration('nope', { keyId: 'KEY4', secretHash: 'x' }, at(3)), false);
      assert.equal(await store.revokeIntegration('MIS', at(4)), true);
      assert.equal(await store.revokeIntegration('MIS', at(4)), false);
      assert.equal(await store.findIntegration('KEY3'), undefined);
      await store.addIntegration({ id: 'i5', name: 'MIS', keyId: 'KEY5', secretHash: 'sha256:dd', createdAt: at(5) });
      assert.deepEqual((await store.listIntegrations()).map((i) => [i.id, i.keyId, i.rotatedAt, i.revokedAt]),
        [['i1', 'KEY3', at(3), at(4)], ['i5', 'KEY5', undefined, undefined]]);
    }));
  });
}
