// What only the shared engine promises about claims and leases: they hold across store instances (separate
// pools, as separate service processes have), and work held by an instance that vanished is taken over once its
// lease passes. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at } from './fixtures.ts';
import { adminQuery, PG_SKIP, testDatabaseUrl, withPgInstances } from './pg-schema.ts';

const LONG = 60_000;

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

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
});
