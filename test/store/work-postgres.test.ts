// What only the shared engine promises about claims and leases: they hold across store instances (separate
// pools, as separate service processes have), and work held by an instance that vanished is taken over once its
// lease passes. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at } from './fixtures.ts';
import { adminQuery, PG_SKIP, testDatabaseUrl, withPgInstances } from './pg-schema.ts';
import { waitFor } from '../helpers/service.ts';
import { waitUntil } from '../helpers/wait.ts';

const LONG = 60_000;

const until = (check: () => Promise<boolean>, what: string, timeoutMs = 5_000) => waitUntil(check, what, timeoutMs);

const withInstances = (count: number, fn: (stores: Store[], schema: string) => Promise<void>) =>
  withPgInstances(count, (stores, schema) => fn(stores, schema.name));

void describe('claims and leases across PostgreSQL store instances', { skip: PG_SKIP }, () => {
  void it('hands every submission to exactly one of several instances sweeping at once', () => withInstances(4, async (stores) => {
    const c = await addCustomer(stores[0]!, 'C001');
    const ids = await Promise.all(Array.from({ length: 200 }, (_, i) => addSubmission(stores[0]!, c, { receivedAt: at(i) })));
    const got = await Promise.all(stores.flatMap((s, k) => [0, 1].map(async (j) => {
      const mine: string[] = [];
      for (;;) {
        const batch = await s.claimSubmissions(`instance-${k}-worker-${j}`, 5, LONG);
        if (batch.length === 0) return mine;
        mine.push(...batch);
      }
    })));
    const all = got.flat();
    assert.equal(all.length, ids.length, 'no id handed out twice');
    assert.deepEqual(new Set(all), new Set(ids));
    assert.ok(got.filter((g) => g.length > 0).length > 1, 'the work was spread, not taken by one sweeper');
  }));

  void it('lets one instance claim a submission another is racing for, never both', () => withInstances(3, async (stores) => {
    const c = await addCustomer(stores[0]!, 'C001');
    for (let round = 0; round < 20; round++) {
      const id = await addSubmission(stores[0]!, c);
      const wins = await Promise.all(stores.map((s, k) => s.claimSubmission(id, `i${k}`, LONG)));
      assert.equal(wins.filter(Boolean).length, 1, `round ${round}: ${JSON.stringify(wins)}`);
    }
  }));

  void it('takes over the claims and the lease of an instance that is gone, after its lease', () => withInstances(2, async ([survivor, doomed]) => {
    const c = await addCustomer(survivor!, 'C001');
    const id = await addSubmission(survivor!, c);
    assert.deepEqual(await doomed!.claimSubmissions('doomed', 10, 1_000), [id]);
    assert.equal(await doomed!.acquireLease('imap:c001', 'doomed', 1_000), true);
    await doomed!.close();
    assert.deepEqual(await survivor!.claimSubmissions('survivor', 10, LONG), [], 'the lease still runs');
    assert.equal(await survivor!.acquireLease('imap:c001', 'survivor', LONG), false);
    let taken: string[] = [];
    await until(async () => (taken = await survivor!.claimSubmissions('survivor', 10, LONG)).length > 0, 'the claim to lapse');
    assert.deepEqual(taken, [id]);
    await until(() => survivor!.acquireLease('imap:c001', 'survivor', LONG), 'the named lease to lapse');
  }));

  void it('measures leases on the database clock', () => withInstances(1, async ([store], schema) => {
    const c = await addCustomer(store!, 'C001');
    const id = await addSubmission(store!, c);
    assert.equal(await store!.claimSubmission(id, 'a', LONG), true);
    await store!.acquireLease('n', 'a', LONG);
    // Whatever this machine's clock says, the lease ends a minute after the database's now().
    const [row] = await adminQuery<{ sub: number; lease: number }>(testDatabaseUrl!, `SELECT
        extract(epoch FROM (SELECT lease_until FROM ${schema}.submissions WHERE id = $1) - now()) AS sub,
        extract(epoch FROM (SELECT lease_until FROM ${schema}.leases WHERE name = 'n') - now()) AS lease`, [id]);
    assert.ok(Number(row!.sub) > 55 && Number(row!.sub) <= 60, `claim lease ${row!.sub}s`);
    assert.ok(Number(row!.lease) > 55 && Number(row!.lease) <= 60, `named lease ${row!.lease}s`);
  }));

  // A registration locks its submission FOR SHARE (register-batch.ts) and may wait long on a lock on orders; the
  // renewals of its holder used to wait behind it, one pool connection each, until e-mail found none (451 at RCPT).
  void it('renews the claims it holds without waiting for one a transaction has locked, and keeps that one', () => withPgInstances(1, async ([store], schema) => {
    const c = await addCustomer(store!, 'C001');
    const [locked, free] = [await addSubmission(store!, c), await addSubmission(store!, c)];
    assert.deepEqual(new Set(await store!.claimSubmissions('a', 10, LONG)), new Set([locked, free]));
    const leases = async () => new Map((await adminQuery<{ id: string; lease: Date }>(testDatabaseUrl!,
      `SELECT id, lease_until AS lease FROM ${schema.name}.submissions WHERE id = ANY($1::text[])`, [[locked, free]]))
      .map((r) => [r.id, r.lease.getTime()]));
    const before = await leases();
    const locker = new pg.Client({ connectionString: schema.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM submissions WHERE id = $1 FOR SHARE', [locked]);
      const { rows: [me] } = await locker.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      let settled = false;
      const renewing = store!.renewClaims('a', [locked!, free!], 2 * LONG).finally(() => {
        settled = true;
      });
      // Either the renewal answers, or a session is seen waiting for the locker: the failure this test is about.
      const blocked = waitFor(async () => {
        if (settled) return false;
        const [row] = await adminQuery<{ n: number }>(testDatabaseUrl!,
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))', [me!.pid]);
        return row!.n > 0 ? true : undefined;
      }, 20_000, 'the renewal to answer or to wait for the lock');
      const waited = await blocked;
      if (waited) await locker.query('ROLLBACK');
      const kept = await renewing;
      assert.equal(waited, false, 'the renewal waited for the row the transaction had locked');
      assert.deepEqual(kept, [locked, free], 'the locked claim is still held, not reported lost');
      const after = await leases();
      assert.ok(after.get(free!)! > before.get(free!)!, 'the free claim was renewed');
      assert.equal(after.get(locked!), before.get(locked!), 'the locked one is left as it was, for the next round');
      await locker.query('COMMIT');
      assert.deepEqual(await store!.renewClaims('a', [locked!, free!], 2 * LONG), [locked, free]);
      assert.ok((await leases()).get(locked!)! > before.get(locked!)!, 'renewed once the lock is gone');
      assert.deepEqual(await store!.renewClaims('b', [locked!], LONG), [], 'a claim held by another is still not kept');
    } finally {
      await locker.end();
    }
  }));
});
