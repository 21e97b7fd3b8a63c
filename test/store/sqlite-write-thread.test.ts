// The SQLite write thread (src/store/sqlite/offload.ts, sqlite-write-thread.ts) when things go wrong: a thread that
// dies mid-stream rejects what it was sent and had not answered (nothing hangs), and the next write starts a new
// one; a thread that keeps dying is given up and every write is refused at once; close() commits and answers what
// is queued. What the thread committed and answered is in the file whatever happens after.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { threadRunner, type ThreadRunner } from '../../src/store/sqlite/offload.ts';
import { newWriteLock } from '../../src/store/sqlite/write-lock.ts';
import { nextTurn } from '../helpers/service.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'intake-write-thread-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
/** A migrated store file, a runner on it, and a look at the leases from another connection. */
async function open(): Promise<{ runner: ThreadRunner; leases: () => string[]; close: () => void }> {
  const file = path.join(dir, `t${++n}.sqlite`);
  const store = await openSqliteStore(file);
  await store.migrate();
  await store.close();
  const runner = threadRunner({ file, outbox: true, lock: newWriteLock().buffer });
  const other = new Database(file);
  const leases = () => (other.prepare('SELECT name FROM leases ORDER BY name').all() as { name: string }[]).map((r) => r.name);
  return { runner, leases, close: () => other.close() };
}

const settled = (p: Promise<unknown>) => p.then((v) => ({ ok: true as const, v }), (e: unknown) => ({ ok: false as const, e }));

void describe('SQLite write thread', () => {
  void it('a write resolves after its commit, visible from another connection', async () => {
    const { runner, leases, close } = await open();
    try {
      assert.equal(await runner.run('acquireLease', ['a', 'h', Date.now() + 60_000, Date.now()]), true);
      assert.deepEqual(leases(), ['a']);
    } finally {
      await runner.close();
      close();
    }
  });

  void it('a thread that dies rejects the writes it had not answered, keeps what it answered, and is replaced', async () => {
    const { runner, leases, close } = await open();
    try {
      assert.equal(await runner.run('acquireLease', ['before', 'h', Date.now() + 60_000, Date.now()]), true);
      // Many writes in flight, then the thread is stopped under them.
      const inFlight = Array.from({ length: 200 }, (_, i) => settled(runner.run('acquireLease', [`x${i}`, 'h', Date.now() + 60_000, Date.now()])));
      await nextTurn();
      await runner.kill();
      const results = await Promise.all(inFlight);
      const rejected = results.filter((r) => !r.ok);
      for (const r of rejected) assert.match(String((r as { e: Error }).e.message), /write thread stopped/);
      // Every write answered ok is in the file; the rejected ones may or may not be (as after a dropped connection).
      const stored = new Set(leases());
      results.forEach((r, i) => {
        if (r.ok) assert.ok(stored.has(`x${i}`), `x${i} was answered but is not stored`);
      });
      assert.ok(stored.has('before'));
      // The next write starts a new thread.
      assert.equal(await runner.run('acquireLease', ['after', 'h', Date.now() + 60_000, Date.now()]), true);
      assert.ok(leases().includes('after'));
    } finally {
      await runner.close();
      close();
    }
  });

  void it('a thread that keeps dying is given up: writes are refused at once, not left waiting', async () => {
    const { runner, close } = await open();
    const error = console.error;
    console.error = () => undefined; // the runner reports the give-up loudly; not in the test output
    try {
      for (let i = 0; i < 3; i++) {
        await runner.run('acquireLease', [`k${i}`, 'h', Date.now() + 60_000, Date.now()]);
        await runner.kill();
      }
      await assert.rejects(runner.run('acquireLease', ['late', 'h', Date.now() + 60_000, Date.now()]), /died 3 times/);
    } finally {
      console.error = error;
      await runner.close();
      close();
    }
  });

  void it("the store's own transactions and the thread's take turns (neither waits for ever)", { timeout: 60_000 }, async () => {
    const file = path.join(dir, `t${++n}.sqlite`);
    const store = await openSqliteStore(file);
    try {
      await store.migrate();
      for (let i = 0; i < 20; i++) {
        // A group commit on the store's connection (BEGIN … COMMIT), then writes on the thread, interleaved.
        const [claimed, leased] = await Promise.all([
          store.claimDeliveries('h', 1000, 10),
          store.acquireLease(`l${i}`, 'h', 60_000),
          store.countRetry('nope').catch(() => 0),
        ]);
        assert.deepEqual(claimed, []);
        assert.equal(leased, true);
      }
    } finally {
      await store.close();
    }
  });

  void it('close() commits and answers what is queued', async () => {
    const { runner, leases, close } = await open();
    try {
      const queued = Array.from({ length: 50 }, (_, i) => runner.run('acquireLease', [`q${i}`, 'h', Date.now() + 60_000, Date.now()]));
      await runner.close();
      assert.deepEqual(await Promise.all(queued), queued.map(() => true));
      assert.equal(leases().length, 50);
      await assert.rejects(runner.run('acquireLease', ['z', 'h', 1, 1]), /closed/);
    } finally {
      close();
    }
  });
});
