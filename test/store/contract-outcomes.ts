// The store contract, outcome part: a large file's outcome is kept compact (its orders only in order_attempts,
// src/store/common/outcome-form.ts) and every read gives back the whole Outcome, exactly as it was recorded.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import type { OrderOutcome, Outcome } from '../../src/domain/types.ts';
import { COMPACT_OUTCOME_ORDERS } from '../../src/store/common/outcome-form.ts';
import { addCustomer, addSubmission, at, withStore, type StoreFactory } from './fixtures.ts';

/** `n` orders of every kind an outcome holds: registered, duplicate, refused, without a reference, another owner's. */
function outcomeOf(submissionId: string, n: number, otherCustomer: string): Outcome {
  const orders: OrderOutcome[] = Array.from({ length: n }, (_, i): OrderOutcome => {
    if (i % 97 === 5) return { index: i, esito: 'errore', code: 'VALIDATION', message: ['riferimento_ordine must be a string'] };
    if (i % 89 === 7) return { index: i, codice_cliente: 'A001', riferimento_ordine: '', esito: 'errore', code: 'VALIDATION', message: ['riferimento_ordine should not be empty'] };
    if (i % 13 === 3) {
      return {
        index: i, codice_cliente: 'A001', riferimento_ordine: `R-${i}`, esito: 'errore', code: 'BUSINESS',
        errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo "X" non presente in anagrafica' }],
      };
    }
    const ok: OrderOutcome = {
      index: i, codice_cliente: 'A001', riferimento_ordine: `R-${i}`, esito: 'ok', duplicate: i % 7 === 0,
      id_ordine: `id-${i}`, numero_ordine: `2026-${String(i).padStart(6, '0')}`,
    };
    return i % 501 === 11 ? { ...ok, sito_produzione: 'MI', customerId: otherCustomer } : ok;
  });
  return { submissionId, esito: 'errore', orders };
}

export function outcomesContract(makeStore: StoreFactory): void {
  void describe('outcomes of large files', () => {
    void it('reads back a compact outcome whole, in every read, with the keys in their order', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const id = await addSubmission(store, a, { receivedAt: at(1), reservedOrderId: 'reserved-1' });
      const outcome = outcomeOf(id, COMPACT_OUTCOME_ORDERS * 2 + 3, b.id);
      await store.completeSubmission(id, 'processed', outcome, at(2));
      const read = (await store.getSubmission(id))!.outcome!;
      assert.deepEqual(read, outcome);
      assert.equal(JSON.stringify(read), JSON.stringify(outcome), 'same keys in the same order');
      assert.equal(JSON.stringify((await store.getSubmissionOutcomes(a.id, [id])).get(id)), JSON.stringify(outcome));
      assert.equal(JSON.stringify((await store.findSubmissionByReservedOrderId(a.id, 'reserved-1'))!.outcome), JSON.stringify(outcome));
      assert.equal((await store.listSubmissions({ customerId: a.id }))[0]!.esito, 'errore', 'the verdict is in the stored outcome');
    }));

    void it('records a large file\'s attempts batch by batch, then its verdict, over an earlier judgement of more orders', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const id = await addSubmission(store, a, { receivedAt: at(1) });
      await store.completeSubmission(id, 'processed', outcomeOf(id, COMPACT_OUTCOME_ORDERS * 2, b.id), at(2));
      await store.resetSubmission(id);
      const outcome = outcomeOf(id, COMPACT_OUTCOME_ORDERS + 7, b.id);
      const batch = 400;
      for (let first = 0; first < outcome.orders.length; first += batch) {
        await store.recordAttempts(id, outcome.orders.slice(first, first + batch), { durable: false });
      }
      // What judging keeps: the refused orders and those without an attempt row, holes elsewhere.
      const kept = new Array<OrderOutcome>(outcome.orders.length);
      outcome.orders.forEach((o, i) => {
        if (o.esito !== 'ok' || !o.riferimento_ordine) kept[i] = o;
      });
      await store.completeSubmission(id, 'processed', { ...outcome, orders: kept }, at(3), { attemptsRecorded: true });
      assert.equal(JSON.stringify((await store.getSubmission(id))!.outcome), JSON.stringify(outcome));
      assert.equal(JSON.stringify((await store.getSubmissionOutcomes(a.id, [id])).get(id)), JSON.stringify(outcome));
      assert.equal((await store.latestAttempt(a.id, `R-${COMPACT_OUTCOME_ORDERS + 100}`)), undefined, 'the earlier judgement\'s rows past the file are gone');
    }));

    void it('replaces a compact outcome by a later judgement, smaller or whole', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const id = await addSubmission(store, a, { receivedAt: at(1) });
      await store.completeSubmission(id, 'processed', outcomeOf(id, COMPACT_OUTCOME_ORDERS * 2, a.id), at(2));
      // Each later judgement follows a reset (an operator's reprocess): without one the first outcome stands.
      await store.resetSubmission(id);
      const fewer = outcomeOf(id, COMPACT_OUTCOME_ORDERS + 1, a.id);
      await store.completeSubmission(id, 'processed', fewer, at(3));
      assert.equal(JSON.stringify((await store.getSubmission(id))!.outcome), JSON.stringify(fewer));
      await store.resetSubmission(id);
      const whole: Outcome = { submissionId: id, esito: 'ok', orders: outcomeOf(id, 3, a.id).orders.filter((o) => o.esito === 'ok') };
      await store.completeSubmission(id, 'processed', whole, at(4));
      assert.deepEqual((await store.getSubmission(id))!.outcome, whole);
    }));

    void it('replaces the earlier judgements of several submissions recorded together', () => withStore(makeStore, async (store) => {
      // Recorded in the same turn, the outcomes go as one group statement on PostgreSQL (complete-batch.ts), which
      // finds and deletes each submission's attempts past its new count.
      const a = await addCustomer(store, 'A001');
      const ids = [await addSubmission(store, a, { receivedAt: at(1) }), await addSubmission(store, a, { receivedAt: at(1) })];
      for (const id of ids) await store.completeSubmission(id, 'processed', outcomeOf(id, COMPACT_OUTCOME_ORDERS * 2, a.id), at(2));
      for (const id of ids) await store.resetSubmission(id);
      const fewer = ids.map((id) => outcomeOf(id, COMPACT_OUTCOME_ORDERS + 1, a.id));
      await Promise.all(ids.map((id, i) => store.completeSubmission(id, 'processed', fewer[i]!, at(3))));
      for (const [i, id] of ids.entries()) assert.equal(JSON.stringify((await store.getSubmission(id))!.outcome), JSON.stringify(fewer[i]));
    }));

    void it('keeps the outcome recorded first: a late judgement, whole or batch by batch, writes nothing', () => withStore(makeStore, async (store) => {
      // Two instances judged one file (the first stalled past its lease, the second took it over and finished
      // first); the first's attempts and verdict arrive after, and must neither replace nor mix with what stands.
      const a = await addCustomer(store, 'A001');
      const id = await addSubmission(store, a, { receivedAt: at(1) });
      const first = outcomeOf(id, COMPACT_OUTCOME_ORDERS * 2, a.id);
      assert.equal(await store.completeSubmission(id, 'processed', first, at(2)), true);
      const before = JSON.stringify((await store.getSubmission(id))!.outcome);
      assert.equal(before, JSON.stringify(first));
      const late = outcomeOf(id, COMPACT_OUTCOME_ORDERS + 7, a.id);
      late.orders = late.orders.map((o) => (o.esito === 'ok' ? { ...o, numero_ordine: `9999-${o.index}` } : o));
      await store.recordAttempts(id, late.orders.filter((o) => o.esito === 'ok' && o.riferimento_ordine));
      assert.equal(await store.completeSubmission(id, 'processed', { ...late, orders: late.orders.filter((o) => o.esito !== 'ok') }, at(3),
        { attemptsRecorded: true }), false, 'the late verdict is not recorded');
      assert.equal(await store.completeSubmission(id, 'failed', { submissionId: id, esito: 'errore', orders: [] }, at(4)), false,
        'nor a late failure');
      const now = (await store.getSubmission(id))!;
      assert.equal(JSON.stringify(now.outcome), before, 'the first outcome stands, attempts included');
      assert.equal(now.state, 'processed');
      assert.equal(now.attempts, 1);
      assert.equal(now.processedAt, at(2));
      assert.equal(JSON.stringify((await store.getSubmissionOutcomes(a.id, [id])).get(id)), before);
      assert.deepEqual((await store.latestAttempt(a.id, 'R-8'))?.outcome, first.orders[8], 'an attempt the late judgement would overwrite is kept');
    }));

    void it('refuses attempts for a submission it does not hold, with the same refusal on both engines', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      await assert.rejects(store.recordAttempts('missing', outcomeOf('missing', 3, a.id).orders),
        (e: unknown) => e instanceof IntakeError && e.code === 'NOT_FOUND' && e.message === 'submission missing not found');
    }));
  });
}
