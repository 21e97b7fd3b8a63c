// The bound on connections that writers of orders hold (store/postgres/order-writers.ts), against a real PostgreSQL:
// statements blocked on a table lock hold at most their permits, the rest of the pool still answers, a writer that
// waits too long for a permit fails with a clear error, and a transaction's permit is given back at its release.
// The whole service under such a lock: test/multi/locked-orders.test.ts. Skipped, visibly, without
// INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { orderWriters, writerPermits } from '../../src/store/postgres/order-writers.ts';
import { waitFor } from '../helpers/service.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from './pg-schema.ts';

void describe('writers of orders on PostgreSQL', () => {
  void it('keep back a quarter of the pool, at least one connection, and leave at least one to write', () => {
    assert.deepEqual([2, 3, 4, 8, 10, 40].map(writerPermits), [1, 2, 3, 6, 8, 30]);
  });

  void it('hold at most their permits while blocked, leave the rest of the pool free, and time out waiting', { skip: PG_SKIP }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'writers');
    const name = `writers-${schema.name}`;
    const pool = new pg.Pool({ connectionString: schema.url, max: 4, application_name: name });
    const locker = new pg.Client({ connectionString: schema.url });
    try {
      await pool.query('CREATE TABLE t (n int)');
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE t IN SHARE MODE');
      const writers = orderWriters(pool, 2, 300);

      const blocked = [writers.query('INSERT INTO t VALUES (1)'), writers.query('INSERT INTO t VALUES (2)')];
      const waiting = async (): Promise<number> => (await adminQuery<{ n: number }>(testDatabaseUrl!,
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [name]))[0]!.n;
      await waitFor(async () => ((await waiting()) === 2 ? true : undefined), 10_000, 'both writers waiting on the lock');
      assert.deepEqual(writers.use(), { allowed: 2, inUse: 2, waiting: 0 });
      // A third writer finds no permit: it waits in memory, holding no connection, and gives up after 300 ms.
      const third = writers.query('INSERT INTO t VALUES (3)');
      assert.deepEqual(writers.use(), { allowed: 2, inUse: 2, waiting: 1 }, 'what GET /metrics shows');
      await assert.rejects(third, /timeout exceeded after 300 ms waiting for a connection to write orders/);
      assert.equal(writers.use().waiting, 0, 'the one that gave up no longer waits');
      // The pool's other connections still answer.
      assert.deepEqual((await Promise.all([pool.query('SELECT 1 AS one'), pool.query('SELECT 2 AS one')])).map((r) => r.rows[0].one), [1, 2]);
      assert.equal(await waiting(), 2, 'no more writers waiting than permits');

      await locker.query('COMMIT');
      await Promise.all(blocked);
      // A transaction holds its permit from connect to release, and gives it back once.
      const c1 = await writers.connect();
      const c2 = await writers.connect();
      await assert.rejects(writers.connect(), /timeout exceeded/);
      c1.release();
      const c3 = await writers.connect();
      c2.release();
      c3.release();
      assert.deepEqual(writers.use(), { allowed: 2, inUse: 0, waiting: 0 }, 'every permit given back');
      const { rows } = await writers.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
      assert.equal(rows[0]!.n, 2, 'the blocked writes went in once the lock was released; the timed-out one never ran');
    } finally {
      await locker.end().catch(() => undefined);
      await pool.end();
      await schema.drop();
    }
  });
});
