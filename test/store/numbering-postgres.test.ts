// What order numbering promises on PostgreSQL (docs/development/numbering.md), where several instances number at
// once: no registration waits for another's commit (no lock on a numbering row held across an fsync), numbers are
// unique per year and increase in allocation order, gaps are possible, and New Year's Eve across instances gives
// each year its own series from 000001; past 999,999 a number grows a seventh digit on every registering statement.
// Skipped, visibly, without INTAKE_TEST_DATABASE_URL (fails in CI).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { RegisterResult, Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, item, newSubmission } from './fixtures.ts';
import { PG_SKIP, withPgInstances } from './pg-schema.ts';
import { waitFor } from '../helpers/service.ts';


const withInstances = (count: number, fn: (stores: Store[], url: string) => Promise<void>) =>
  withPgInstances(count, (stores, schema) => fn(stores, schema.url));

async function client(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

const HOLD_KEY = 424_242;

void describe('order numbering on PostgreSQL', { skip: PG_SKIP }, () => {
  void it('lets a registration commit while another instance\'s registration is still open, with the earlier number', () =>
    withInstances(2, async ([a, b], url) => {
      const c = await addCustomer(a!, 'C001');
      const sub = await addSubmission(a!, c);
      const holder = await client(url);
      try {
        // A trigger makes the order 'SLOW' wait, inside its registering transaction (after its number is taken),
        // for an advisory lock the test holds: that transaction stays open as long as the test wants.
        await holder.query(`CREATE FUNCTION hold_slow() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF NEW.riferimento_ordine = 'SLOW' THEN PERFORM pg_advisory_xact_lock(${HOLD_KEY}); END IF; RETURN NEW; END $$`);
        await holder.query('CREATE TRIGGER hold_slow BEFORE INSERT ON orders FOR EACH ROW EXECUTE FUNCTION hold_slow()');
        await holder.query('SELECT pg_advisory_lock($1)', [HOLD_KEY]);
        const slow = a!.registerOrders([item(c, sub, 'SLOW')]);
        await waitFor(async () => (await holder.query(
          `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`, [HOLD_KEY])).rowCount === 1 || undefined,
        10_000, 'the SLOW registration to wait inside its transaction');
        // Before migration 012 this waited on the year's order_sequences row until SLOW committed: for ever here.
        const fast = await Promise.race([
          b!.registerOrders([item(c, sub, 'FAST')]),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('FAST waited for SLOW to commit')), 10_000)),
        ]);
        assert.equal(fast[0]!.status, 'created');
        assert.equal(await a!.getOrderByRef(c.id, 'SLOW'), undefined, 'SLOW is still uncommitted');
        await holder.query('SELECT pg_advisory_unlock($1)', [HOLD_KEY]);
        const [s] = await slow;
        assert.equal(s!.numero_ordine, '2025-000001', 'SLOW took its number first');
        assert.equal(fast[0]!.numero_ordine, '2025-000002', 'numbers follow allocation, not commit order');
      } finally {
        await holder.end();
      }
    }));

  void it('never repeats a number across instances, and each year starts its own series at New Year', () =>
    withInstances(3, async (stores) => {
      const c = await addCustomer(stores[0]!, 'C001');
      const sub = await addSubmission(stores[0]!, c);
      // Three instances cross midnight at once: single orders (one statement) and batches spanning both years.
      const calls = Array.from({ length: 30 }, (_, k) => {
        const s = stores[k % 3]!;
        if (k % 3 === 0) return s.registerOrders([item(c, sub, `B${k}`, { year: 2025 }), item(c, sub, `B${k}n`, { year: 2026 })]);
        return s.registerOrders([item(c, sub, `S${k}`, { year: k % 2 === 0 ? 2025 : 2026 })]);
      });
      const results: RegisterResult[] = (await Promise.all(calls)).flat();
      assert.ok(results.every((r) => r.status === 'created'));
      const byYear = (y: string) => results.map((r) => r.numero_ordine).filter((n) => n.startsWith(`${y}-`)).sort();
      const series = (y: number, n: number) => Array.from({ length: n }, (_, i) => `${y}-${String(i + 1).padStart(6, '0')}`);
      // Nothing failed, so nothing was skipped: each year is exactly 1..n.
      assert.deepEqual(byYear('2025'), series(2025, byYear('2025').length));
      assert.deepEqual(byYear('2026'), series(2026, byYear('2026').length));
      assert.equal(byYear('2025').length + byYear('2026').length, 40);
    }));

  void it('numbers sequential registrations in increasing order, and leaves a gap, never a repeat, after a failure', () =>
    withInstances(2, async ([a, b]) => {
      const c = await addCustomer(a!, 'C001');
      const sub = await addSubmission(a!, c);
      const [r1] = await a!.registerOrders([item(c, sub, 'R1')]);
      await assert.rejects(b!.registerOrders([item(c, sub, 'R2'), item(c, 'no-such-submission', 'R3')]));
      const [r4] = await b!.registerOrders([item(c, sub, 'R4')]);
      const [r5] = await a!.registerOrders([item(c, sub, 'R5')]);
      assert.equal(r1!.numero_ordine, '2025-000001');
      // Each item of the failed call took its number before the call failed (R3 at its insert): 000002 and 000003
      // are gaps, never given again.
      assert.equal(r4!.numero_ordine, '2025-000004');
      assert.equal(r5!.numero_ordine, '2025-000005');
    }));

  void it('starts a year above the floor a copy from SQLite left, and raises a sequence made before the copy', () =>
    withInstances(1, async ([s], url) => {
      const c = await addCustomer(s!, 'C001');
      const sub = await addSubmission(s!, c);
      const admin = await client(url);
      try {
        await admin.query('INSERT INTO order_sequences (year, last) VALUES (2030, 41)');
        const [a] = await s!.registerOrders([item(c, sub, 'A', { year: 2030 })]);
        assert.equal(a!.numero_ordine, '2030-000042');
        // db copy raises the floor again while the sequence exists (copySequences calls the same function).
        await admin.query('UPDATE order_sequences SET last = 99 WHERE year = 2030');
        await admin.query('SELECT order_number_sequence(2030)');
        const [b] = await s!.registerOrders([item(c, sub, 'B', { year: 2030 })]);
        assert.equal(b!.numero_ordine, '2030-000100');
        // A floor below the sequence never lowers it.
        await admin.query('UPDATE order_sequences SET last = 5 WHERE year = 2030');
        await admin.query('SELECT order_number_sequence(2030)');
        const [d] = await s!.registerOrders([item(c, sub, 'D', { year: 2030 })]);
        assert.equal(d!.numero_ordine, '2030-000101');
      } finally {
        await admin.end();
      }
    }));

  void it('numbers past 999,999 with seven digits on every registering statement, as numeroOrdine does', () =>
    withInstances(1, async ([a], url) => {
      const c = await addCustomer(a!, 'C001');
      const sub = await addSubmission(a!, c);
      // The first registration makes the year's sequence; then it is moved to just below the millionth order.
      const [first] = await a!.registerOrders([item(c, sub, 'FIRST')]);
      assert.equal(first!.numero_ordine, '2025-000001');
      const admin = await client(url);
      try {
        await admin.query(`SELECT setval('order_number_2025', 999998)`);
      } finally {
        await admin.end();
      }
      // registerAlone's statement (one durable order).
      const [alone] = await a!.registerOrders([item(c, sub, 'ALONE')]);
      // The group statement (register-batch.ts): two lazy single orders queued in one turn go as one group.
      const grouped = (await Promise.all(['G1', 'G2'].map((ref) => a!.registerOrders([item(c, sub, ref)], { durable: false })))).flat();
      // The one-order write (single-batch.ts), then a batch of two in one transaction (numbered in JavaScript).
      const s = newSubmission(c, { singleOrder: true });
      const single = await a!.saveSingleOrder(s, { item: item(c, s.id, 'SINGLE') }, at(20));
      const batch = await a!.registerOrders([item(c, sub, 'B1'), item(c, sub, 'B2')]);
      // registerAlone's statement again, now past the six digits as well (its first run took the last six-digit one).
      const [aloneAfter] = await a!.registerOrders([item(c, sub, 'ALONE2')]);
      assert.equal(alone!.numero_ordine, '2025-999999');
      assert.deepEqual(grouped.map((r) => r.numero_ordine).sort(), ['2025-1000000', '2025-1000001']);
      assert.deepEqual(single.results.map((r) => r.numero_ordine), ['2025-1000002']);
      assert.deepEqual(batch.map((r) => r.numero_ordine), ['2025-1000003', '2025-1000004']);
      assert.equal(aloneAfter!.numero_ordine, '2025-1000005');
      // What was answered is what is stored.
      for (const r of [alone!, ...grouped, ...single.results, ...batch, aloneAfter!]) {
        assert.equal((await a!.getOrder(c.id, r.id_ordine))?.numero_ordine, r.numero_ordine);
      }
    }));
});
