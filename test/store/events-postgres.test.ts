// The proof that the PostgreSQL feed never skips an event whose transaction commits after a later one (several
// instances commit out of allocation order). The interleaving is forced, not hoped for: transaction A writes its
// event with the store's own statement and is held open while B registers an order and commits. A naive
// `seq > last` reader would return B, then never A. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { insertEventsQuery } from '../../src/store/postgres/events.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, item } from './fixtures.ts';
import { createSchema, PG_SKIP, READABLE_WITHIN_MS, testDatabaseUrl, type TestSchema } from './pg-schema.ts';
import { waitFor } from '../helpers/service.ts';

async function setup(): Promise<{ schema: TestSchema; store: Store; a: pg.Client }> {
  const schema = await createSchema(testDatabaseUrl!);
  const store = await openPostgresStore(testDatabaseUrl!, { schema: schema.name, max: 4 });
  await store.migrate();
  const a = new pg.Client({ connectionString: schema.url });
  await a.connect();
  return { schema, store, a };
}

function event(customerId: string, n: number) {
  return { id: uuidv7(), type: 'ordine.registrato' as const, time: new Date().toISOString(), customerId, data: { n } };
}

void describe('PostgreSQL event feed: commits out of allocation order', { skip: PG_SKIP }, () => {
  void it('holds back a later commit until the earlier transaction ends, then returns both in order', async () => {
    const { schema, store, a } = await setup();
    try {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      await store.registerOrders([item(c, sub, 'FIRST')]);
      // Other transactions on the server (tests running beside this one) may hold the stream back for a moment.
      const [first] = await waitFor(async () => {
        const got = await store.readEvents(null, 10);
        return got.length === 1 ? got : undefined;
      }, READABLE_WITHIN_MS, 'the first event');
      assert.ok(first);

      // A: an instance's transaction that has written its event (lower xid, lower seq) and has not committed.
      await a.query('BEGIN');
      await a.query(...insertEventsQuery([event(c.id, 1)]));
      // B: another instance registers and commits (higher xid, higher seq).
      const [b] = await store.registerOrders([item(c, sub, 'SECOND')]);
      const seqs = (await a.query<{ seq: string; n: string | null }>(`SELECT seq::text, data->>'n' AS n FROM order_events ORDER BY seq`)).rows;
      assert.equal(seqs.at(-1)?.n, null, 'B really took a higher seq than A');

      assert.deepEqual(await store.readEvents(first.cursor, 10), [], 'B is not returned while A may still commit before it');
      assert.deepEqual(await store.readEvents(null, 10), [first]);
      assert.equal(await store.hasUnreadableEvents!(), true, 'B is committed and waits: the hand-off must look again soon');

      await a.query('COMMIT');
      const after = await waitFor(async () => {
        const got = await store.readEvents(first.cursor, 10);
        return got.length >= 2 ? got : undefined;
      }, READABLE_WITHIN_MS, 'both events once A committed');
      assert.deepEqual(after.map((e) => e.data.n ?? e.data.id_ordine), [1, b!.id_ordine], 'A then B: nothing skipped');
      assert.deepEqual(await store.readEvents(after[1]!.cursor, 10), [], 'nothing repeated');
      // Other tests' transactions on the server may hold ours back a moment longer: wait for the state.
      await waitFor(async () => ((await store.hasUnreadableEvents!()) ? undefined : true), READABLE_WITHIN_MS, 'no event left waiting');
      assert.deepEqual((await store.readEvents(after[0]!.cursor, 10)).map((e) => e.id), [after[1]!.id]);
    } finally {
      await a.end();
      await store.close();
      await schema.drop();
    }
  });

  void it('orders by transaction, not by seq: an event allocated later in an older transaction comes first', async () => {
    const { schema, store, a } = await setup();
    try {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      // A takes its transaction id first, but allocates its seq only after B has committed.
      await a.query('BEGIN');
      await a.query('SELECT pg_current_xact_id()');
      const [b] = await store.registerOrders([item(c, sub, 'B')]);
      assert.deepEqual(await store.readEvents(null, 10), [], 'B waits for A, which is older');
      await a.query(...insertEventsQuery([event(c.id, 1)]));
      await a.query('COMMIT');
      const got = await waitFor(async () => {
        const read = await store.readEvents(null, 10);
        return read.length >= 2 ? read : undefined;
      }, READABLE_WITHIN_MS, 'both events once A committed');
      assert.deepEqual(got.map((e) => e.data.n ?? e.data.id_ordine), [1, b!.id_ordine]);
      // A rolled-back transaction leaves nothing behind and holds nothing back once it ended.
      await a.query('BEGIN');
      await a.query(...insertEventsQuery([event(c.id, 2)]));
      const [d] = await store.registerOrders([item(c, sub, 'D')]);
      assert.deepEqual(await store.readEvents(got[1]!.cursor, 10), []);
      await a.query('ROLLBACK');
      const rest = await waitFor(async () => {
        const read = await store.readEvents(got[1]!.cursor, 10);
        return read.length >= 1 ? read : undefined;
      }, READABLE_WITHIN_MS, 'D once A rolled back');
      assert.deepEqual(rest.map((e) => e.data.id_ordine), [d!.id_ordine]);
    } finally {
      await a.end();
      await store.close();
      await schema.drop();
    }
  });

  void it('orders transactions by number across a power of ten (xid 9,999 before 10,000)', async () => {
    const { schema, store, a } = await setup();
    try {
      const c = await addCustomer(store, 'C001');
      // Four events whose xids straddle the highest power of ten below the server's current xid (so all are below
      // every snapshot's xmin, and readable): as text, 10000 sorts before 9999. The xid column is the store's to
      // fill; setting it here only places the events, their visibility is that of this committed INSERT.
      const now = BigInt((await a.query<{ x: string }>('SELECT pg_current_xact_id()::text AS x')).rows[0]!.x);
      let ten = 10n;
      while (ten * 10n + 2n < now) ten *= 10n;
      const xids = [ten - 2n, ten - 1n, ten, ten + 1n];
      const ids = xids.map(() => uuidv7());
      // Inserted highest first, so that seq does not happen to agree with xid order.
      for (const k of [3, 2, 1, 0]) {
        await a.query(`INSERT INTO order_events (xid, id, type, time, customer_id, data)
          VALUES ($1::xid8, $2, 'ordine.registrato', now(), $3, '{}'::jsonb)`, [String(xids[k]), ids[k], c.id]);
      }
      const whole = await waitFor(async () => {
        const got = await store.readEvents(null, 10);
        return got.length >= 4 ? got : undefined;
      }, READABLE_WITHIN_MS, 'the four events');
      assert.deepEqual(whole.map((e) => e.id), ids, 'by xid as a number');
      for (const page of [1, 3]) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let got = await store.readEvents(cursor, page); got.length > 0; got = await store.readEvents(cursor, page)) {
          seen.push(...got.map((e) => e.id));
          cursor = got.at(-1)!.cursor;
        }
        assert.deepEqual(seen, ids, `pages of ${page}: nothing skipped or repeated`);
      }
    } finally {
      await a.end();
      await store.close();
      await schema.drop();
    }
  });
});
