// The store contract, the synchronous path's one write: saveSingleOrder saves a submission of one order already
// processed, registers the order and records the outcome its registration makes (singleOrderOutcome), or records
// the outcome of an order refused before registration. What it must promise: the outcome recorded is the one
// returned and the one judging would build; the submission never waits as received (no sweeper, no claim can
// take it); attempts and events as completeSubmission writes them; a faulty request in a crowd fails alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { singleOrderOutcome } from '../../src/domain/registered-outcome.ts';
import type { Outcome } from '../../src/domain/types.ts';
import { addCustomer, at, item, newSubmission, withStore, type StoreFactory } from './fixtures.ts';
import { settled as readable } from './contract-retention.ts';


export function saveSingleOrderContract(makeStore: StoreFactory): void {
  void describe('saveSingleOrder', () => {
    void it('saves the submission processed, with its order registered, its outcome, attempt and event', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const s = newSubmission(c, { singleOrder: true, raw: Buffer.from('{"riferimento_ordine":"R1"}') });
      const it1 = item(c, s.id, 'R1');
      const { results, outcome } = await store.saveSingleOrder(s, { item: it1 }, at(20));
      assert.deepEqual(results, [{ status: 'created', id_ordine: it1.id, numero_ordine: '2025-000001' }]);
      assert.deepEqual(outcome, singleOrderOutcome(it1, results[0]!));
      assert.equal(outcome.esito, 'ok');
      const saved = await store.getSubmission(s.id);
      assert.equal(saved?.state, 'processed');
      assert.deepEqual(saved?.outcome, outcome);
      assert.deepEqual(saved?.raw, s.raw);
      assert.equal(saved?.attempts, 1);
      assert.equal((await store.getOrder(c.id, it1.id))?.submissionId, s.id);
      assert.deepEqual((await store.latestAttempt(c.id, 'R1'))?.outcome, outcome.orders[0]);
      // Never received in the table: nothing for a sweeper or another instance to take.
      assert.deepEqual(await store.pendingSubmissionIds(10), []);
      assert.deepEqual(await store.claimSubmissions('instance-b', 10, 60_000), []);
      const events = await readable(store, 1);
      assert.deepEqual(events.map((e) => [e.type, e.data.id_ordine]), [['ordine.registrato', it1.id]]);
    }));

    void it('a repeat is a duplicate, a changed repeat a conflict with its refusal event', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const [first, again, changed] = [1, 2, 3].map(() => newSubmission(c, { singleOrder: true }));
      const a = await store.saveSingleOrder(first!, { item: item(c, first!.id, 'R1') }, at(20));
      const b = await store.saveSingleOrder(again!, { item: item(c, again!.id, 'R1') }, at(21));
      const x = await store.saveSingleOrder(changed!, { item: item(c, changed!.id, 'R1', { contentHash: 'other' }) }, at(22));
      const numero = a.results[0]!.numero_ordine;
      assert.deepEqual(b.results, [{ status: 'duplicate', id_ordine: a.results[0]!.id_ordine, numero_ordine: numero }]);
      assert.equal(b.outcome.orders[0]?.duplicate, true);
      assert.equal(x.outcome.esito, 'errore');
      assert.equal(x.outcome.orders[0]?.code, 'CONFLICT');
      assert.match(x.outcome.orders[0]?.errori?.[0]?.messaggio ?? '', new RegExp(`numero ${numero}`));
      for (const [s, o] of [[first!, a.outcome], [again!, b.outcome], [changed!, x.outcome]] as const) {
        assert.deepEqual((await store.getSubmission(s.id))?.outcome, o);
      }
      const events = await readable(store, 2);
      assert.deepEqual(events.map((e) => e.type), ['ordine.registrato', 'ordine.rifiutato']);
      assert.equal(events[1]?.data.riferimento_ordine, 'R1');
    }));

    void it('an order refused before registration: its outcome recorded as given, nothing registered', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const s = newSubmission(c, { singleOrder: true });
      const refused: Outcome = {
        submissionId: s.id, esito: 'errore',
        orders: [{ index: 0, codice_cliente: 'C001', riferimento_ordine: 'R-BAD', esito: 'errore', code: 'VALIDATION', message: ['righe: vuoto'] }],
      };
      const done = await store.saveSingleOrder(s, { outcome: refused }, at(20));
      assert.deepEqual(done, { results: [], outcome: refused });
      const saved = await store.getSubmission(s.id);
      assert.equal(saved?.state, 'processed');
      assert.deepEqual(saved?.outcome, refused);
      assert.equal(await store.getOrderByRef(c.id, 'R-BAD'), undefined);
      assert.deepEqual((await store.latestAttempt(c.id, 'R-BAD'))?.outcome, refused.orders[0]);
      assert.deepEqual((await readable(store, 1)).map((e) => e.type), ['ordine.rifiutato']);
    }));

    void it('many at once: each numbered once; a faulty one fails alone and leaves nothing', () => withStore(makeStore, async (store) => {
      // Called in one turn, so that they share a group commit (SQLite: one transaction on the write thread, run again
      // write by write when one fails; PostgreSQL: the group statements).
      const c = await addCustomer(store, 'C001');
      const subs = Array.from({ length: 24 }, () => newSubmission(c, { singleOrder: true }));
      const bad = 9;
      const settled = await Promise.allSettled(subs.map((s, k) =>
        store.saveSingleOrder(s, { item: item(k === bad ? { ...c, id: 'no-such-customer' } : c, s.id, `R${k}`) }, at(20))));
      settled.forEach((r, k) => assert.equal(r.status, k === bad ? 'rejected' : 'fulfilled', `request ${k}`));
      assert.equal(await store.getSubmission(subs[bad]!.id), undefined, 'the faulty request left no submission behind');
      const numbers = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value.results[0]!.numero_ordine] : []));
      assert.equal(new Set(numbers).size, subs.length - 1);
      // SQLite numbers without gaps (docs/development/numbering.md): the failed write gave its number back.
      if (store.kind === 'sqlite') assert.deepEqual([...numbers].sort().at(-1), `2025-${String(subs.length - 1).padStart(6, '0')}`);
      for (const [k, s] of subs.entries()) if (k !== bad) assert.equal((await store.getSubmission(s.id))?.state, 'processed');
    }));
  });
}
