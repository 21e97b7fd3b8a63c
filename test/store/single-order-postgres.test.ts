// PostgreSQL's one statement for a single order (src/store/postgres/single-batch.ts): what it stores is what the
// JavaScript builders make (singleOrderOutcome, registeredEvent, refusalEvents), key order included (the outcome
// columns are `json`, which keeps the text), for every answer, with and without a production site; and an order
// whose insert found the identity committed by another instance after the statement's snapshot is still saved with
// the right outcome. Skipped, visibly, without INTAKE_TEST_DATABASE_URL (fails in CI).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { singleOrderOutcome } from '../../src/domain/registered-outcome.ts';
import type { RegisterItem, Store } from '../../src/domain/store/store.ts';
import { registeredEvent, refusalEvents } from '../../src/store/common/events.ts';
import { fillHoles, fillHolesSql, withHoles } from '../../src/store/postgres/json-holes.ts';
import { addCustomer, at, item, newSubmission } from './fixtures.ts';
import { adminQuery, PG_SKIP, READABLE_WITHIN_MS, withPgInstances } from './pg-schema.ts';
import { waitFor } from '../helpers/service.ts';

const HOLD_KEY = 515_151;

/** The stored texts of a submission: its outcome, its attempts' outcomes, its events' data (jsonb: parsed). */
async function stored(url: string, submissionId: string, orderIds: string[]) {
  const [sub] = await adminQuery<{ outcome: string; state: string; attempts: number; claimed_by: string | null }>(url,
    'SELECT outcome::text AS outcome, state, attempts, claimed_by FROM submissions WHERE id = $1', [submissionId]);
  const attempts = await adminQuery<{ idx: number; outcome: string; esito: string }>(url,
    'SELECT idx, outcome::text AS outcome, esito FROM order_attempts WHERE submission_id = $1 ORDER BY idx', [submissionId]);
  const events = await adminQuery<{ type: string; time: Date; order_id: string | null; data: Record<string, unknown> }>(url,
    `SELECT type, time, order_id, data FROM order_events WHERE order_id = ANY($1::text[]) ORDER BY seq`, [orderIds]);
  return { sub: sub!, attempts, events };
}

/** Same keys in the same order, same values: the text, normalised by a parse. */
const sameText = (text: string, value: unknown, what: string) => assert.equal(JSON.stringify(JSON.parse(text)), JSON.stringify(value), what);

void describe('a single order on PostgreSQL, one statement', { skip: PG_SKIP }, () => {
  void it('stores the outcome, attempt and events the builders make: created, duplicate, conflict, with and without a site', () =>
    withPgInstances(1, async ([store], schema) => {
      const c = await addCustomer(store!, 'C001');
      for (const site of [undefined, 'VR-2']) {
        // A reference with what JSON must escape, and the escape of a hole's stand-in written by the customer.
        const ref = `R"\\u0001\u0001 è ${site ?? 'none'}`;
        const calls: [string, Partial<RegisterItem>][] = [['created', {}], ['duplicate', {}], ['conflict', { contentHash: 'other' }]];
        for (const [want, over] of calls) {
          const s = newSubmission(c, { singleOrder: true, ...(site ? { site } : {}), reservedOrderId: `reserved-${want}-${site}` });
          const it1 = item(c, s.id, ref, { ...over, ...(site ? { site } : {}) });
          const done = await store!.saveSingleOrder(s, { item: it1 }, at(30));
          const result = done.results[0]!;
          assert.equal(result.status, want);
          const outcome = singleOrderOutcome(it1, result);
          assert.deepEqual(done.outcome, outcome);
          const { sub, attempts, events } = await stored(schema.url, s.id, [result.id_ordine, s.reservedOrderId!]);
          sameText(sub.outcome, outcome, `${want} ${site}: the submission's outcome`);
          assert.deepEqual([sub.state, sub.attempts, sub.claimed_by], ['processed', 1, null]);
          assert.equal(attempts.length, 1);
          sameText(attempts[0]!.outcome, outcome.orders[0], `${want} ${site}: the attempt's outcome`);
          assert.equal(attempts[0]!.esito, outcome.orders[0]!.esito);
          const judged = { customerId: c.id, customerCode: c.code, channel: s.channel, receivedAt: s.receivedAt, reservedOrderId: s.reservedOrderId };
          const expected = want === 'created'
            ? [registeredEvent(it1, result.numero_ordine, it1.registeredAt)]
            : refusalEvents(outcome, judged, at(30));
          const mine = events.filter((e) => want === 'created' || e.order_id === s.reservedOrderId);
          assert.deepEqual(mine.map((e) => ({ type: e.type, time: e.time.toISOString(), orderId: e.order_id, data: e.data })),
            expected.map((e) => ({ type: e.type, time: e.time, orderId: e.orderId, data: e.data })), `${want} ${site}: events`);
          if (want === 'duplicate') assert.deepEqual(events.filter((e) => e.order_id === s.reservedOrderId), []);
        }
      }
    }));

  void it('fills holes in SQL as JavaScript does', () => withPgInstances(1, async (_stores, schema) => {
    const templates = withHoles((id, numero) => [JSON.stringify({ a: `x${id}"y`, b: numero, c: '\\u0001\u0001' })]);
    for (const [id, numero] of [['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', '2025-000001'], ['odd "id" \\ \u0001', '']]) {
      const [row] = await adminQuery<{ t: string }>(schema.url, `SELECT ${fillHolesSql('$1::text', '$2::text', '$3::text')}::json::text AS t`,
        [templates[0], id, numero]);
      assert.deepEqual(JSON.parse(row!.t), JSON.parse(fillHoles(templates[0]!, id!, numero!)));
    }
  }));

  void it('saves an order whose identity another instance commits after the statement looked, with the winner\'s answer', () =>
    withPgInstances(2, async ([a, b], schema) => {
      const c = await addCustomer(a!, 'C001');
      const winnerSub = newSubmission(c, { singleOrder: true });
      const holder = new pg.Client({ connectionString: schema.url });
      await holder.connect();
      try {
        // The winner's registration stays open after inserting its order (an AFTER trigger waits on a lock the test
        // holds): the loser's statement does not see it, takes a number, and its insert waits for the winner's end.
        await holder.query(`CREATE FUNCTION hold_winner() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF NEW.submission_id = '${winnerSub.id}' THEN PERFORM pg_advisory_xact_lock(${HOLD_KEY}); END IF; RETURN NULL; END $$`);
        await holder.query('CREATE TRIGGER hold_winner AFTER INSERT ON orders FOR EACH ROW EXECUTE FUNCTION hold_winner()');
        await holder.query('SELECT pg_advisory_lock($1)', [HOLD_KEY]);
        const winnerItem = item(c, winnerSub.id, 'RACE');
        const winner = b!.saveSingleOrder(winnerSub, { item: winnerItem }, at(20));
        const winnerPid = await waitFor(async () => (await holder.query<{ pid: number }>(
          `SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`, [HOLD_KEY])).rows[0]?.pid,
        10_000, 'the winner to hold its order uncommitted');
        const loserSub = newSubmission(c, { singleOrder: true, receivedAt: at(1) });
        const loserItem = item(c, loserSub.id, 'RACE', { contentHash: 'other' });
        const loser = a!.saveSingleOrder(loserSub, { item: loserItem }, at(21));
        // Its statement only: other sessions of the cluster (other tests) may be waiting on locks of their own.
        await waitFor(async () => (await holder.query(
          `SELECT 1 FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid)) AND wait_event = 'transactionid'`, [winnerPid])).rowCount === 1 || undefined,
        10_000, 'the loser\'s insert to wait for the winner');
        await holder.query('SELECT pg_advisory_unlock($1)', [HOLD_KEY]);
        const [w, l] = await Promise.all([winner, loser]);
        assert.deepEqual(w.results, [{ status: 'created', id_ordine: winnerItem.id, numero_ordine: '2025-000001' }]);
        assert.deepEqual(l.results, [{ status: 'conflict', id_ordine: winnerItem.id, numero_ordine: '2025-000001' }]);
        assert.deepEqual(l.outcome, singleOrderOutcome(loserItem, l.results[0]!));
        const saved = await a!.getSubmission(loserSub.id);
        assert.deepEqual([saved?.state, saved?.outcome, saved?.attempts], ['processed', l.outcome, 1]);
        assert.deepEqual((await a!.latestAttempt(c.id, 'RACE'))?.outcome, l.outcome.orders[0]);
        // Readable once no older transaction of the cluster is open (events.ts): polled, other tests run beside.
        const events = await waitFor(async () => {
          const got = await a!.readEvents(null, 10);
          return got.length === 2 ? got : undefined;
        }, READABLE_WITHIN_MS, 'both events to be readable');
        assert.deepEqual(events.map((e) => e.type), ['ordine.registrato', 'ordine.rifiutato']);
        // The number the lost insert took is a gap (docs/development/numbering.md), never given again.
        const next = newSubmission(c, { singleOrder: true });
        const n = await a!.saveSingleOrder(next, { item: item(c, next.id, 'NEXT') }, at(22));
        assert.equal(n.results[0]!.numero_ordine, '2025-000003');
      } finally {
        await holder.end();
      }
    }));

  void it('a faulty call in a group fails alone with its own error, on any instance', () =>
    withPgInstances(1, async ([store]: Store[]) => {
      const c = await addCustomer(store!, 'C001');
      const subs = Array.from({ length: 6 }, () => newSubmission(c, { singleOrder: true }));
      const settled = await Promise.allSettled(subs.map((s, k) =>
        store!.saveSingleOrder(k === 2 ? { ...s, customerId: 'nobody' } : s, { item: item(k === 2 ? { ...c, id: 'nobody' } : c, s.id, `F${k}`) }, at(20))));
      settled.forEach((r, k) => assert.equal(r.status, k === 2 ? 'rejected' : 'fulfilled', `call ${k}`));
      assert.match(String((settled[2] as PromiseRejectedResult).reason), /not stored/);
      assert.equal(await store!.getSubmission(subs[2]!.id), undefined);
    }));
});
