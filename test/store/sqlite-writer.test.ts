// The SQLite group commit (src/store/sqlite/writer.ts): one transaction per batch, a failed write rolled back alone,
// promises settled only after COMMIT. Most tests decide when a flush runs (an injected scheduler) so that what a
// batch holds is exact; the last one kills a real store's process mid-stream and checks what was acknowledged.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { MAX_BATCH, sqliteWriter } from '../../src/store/sqlite/writer.ts';
import { nodeArgs } from '../helpers/node-args.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'intake-writer-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
/** A fresh file with a table `t`, opened as the store opens it, and a second connection to look from outside. */
function open(): { db: Database.Database; other: Database.Database; rows: () => string[] } {
  const file = path.join(dir, `w${++n}.sqlite`);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.exec(`CREATE TABLE t (v TEXT PRIMARY KEY) STRICT;
    CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE child (p INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)`);
  const other = new Database(file);
  const rows = () => (other.prepare('SELECT v FROM t ORDER BY v').all() as { v: string }[]).map((r) => r.v);
  return { db, other, rows };
}

/** A scheduler the test drives: flushes run only when the test says so. */
function manual(): { schedule: (f: () => void) => void; runs: number; next: () => void } {
  const pending: (() => void)[] = [];
  const m = {
    runs: 0,
    schedule: (f: () => void) => {
      m.runs++;
      pending.push(f);
    },
    next: () => {
      const f = pending.shift();
      assert.ok(f, 'no flush was scheduled');
      f();
    },
  };
  return m;
}

const settled = (p: Promise<unknown>) => p.then((v) => ({ ok: true, v }), (e: unknown) => ({ ok: false, e }));

void describe('SQLite group commit', () => {
  void it('commits a batch in one transaction, in order, and resolves only after COMMIT', async () => {
    const { db, other, rows } = open();
    const m = manual();
    const w = sqliteWriter(db, m.schedule);
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
    const seen: string[][] = [];
    const resolved: string[] = [];
    const ps = ['a', 'b', 'c'].map((v) => w.write(() => {
      assert.ok(db.inTransaction, 'a write runs inside the batch transaction');
      // Each write sees the writes queued before it.
      seen.push((db.prepare('SELECT v FROM t ORDER BY v').all() as { v: string }[]).map((r) => r.v));
      ins.run(v);
      return v;
    }).then((x) => {
      // Whoever hears of a write can find it from another connection: it was committed before.
      assert.ok(rows().includes(x));
      resolved.push(x);
      return x;
    }));
    assert.equal(m.runs, 1, 'one flush for the whole batch');
    await Promise.resolve();
    assert.deepEqual(rows(), [], 'nothing is written before the flush');
    assert.deepEqual(resolved, []);
    m.next();
    assert.equal(db.inTransaction, false);
    assert.deepEqual(await Promise.all(ps), ['a', 'b', 'c']);
    assert.deepEqual(resolved, ['a', 'b', 'c']);
    assert.deepEqual(seen, [[], ['a'], ['a', 'b']]);
    other.close();
    db.close();
  });

  void it('rolls back only the write that failed and rejects only its caller', async () => {
    const { db, other, rows } = open();
    const m = manual();
    const w = sqliteWriter(db, m.schedule);
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
    const boom = new Error('boom');
    const ps = [
      w.write(() => ins.run('a')),
      w.write(() => {
        ins.run('b1');
        ins.run('b2');
        throw boom;
      }),
      // A constraint error half way through: its first insert goes too.
      w.write(() => {
        ins.run('c');
        ins.run('a');
      }),
      w.write(() => ins.run('d').changes),
    ].map(settled);
    m.next();
    const [a, b, c, d] = await Promise.all(ps);
    assert.equal(a!.ok, true);
    assert.deepEqual(b, { ok: false, e: boom });
    assert.equal(c!.ok, false);
    assert.equal((c as { e: { code?: string } }).e.code, 'SQLITE_CONSTRAINT_PRIMARYKEY');
    assert.deepEqual(d, { ok: true, v: 1 });
    assert.deepEqual(rows(), ['a', 'd']);
    other.close();
    db.close();
  });

  void it('runs a batch without savepoints; when a write fails, runs it again from a rollback, each write isolated', async () => {
    const { db, other, rows } = open();
    db.exec('CREATE TABLE counter (one INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counter VALUES (1, 0)');
    const m = manual();
    const w = sqliteWriter(db, m.schedule);
    const next = db.prepare('UPDATE counter SET n = n + 1 RETURNING n');
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
    const runs = { a: 0, b: 0, c: 0 };
    const numbered = (v: 'a' | 'c') => () => {
      runs[v]++;
      ins.run(v);
      return (next.get() as { n: number }).n;
    };
    const ok = [w.write(numbered('a')), w.write(numbered('c'))];
    m.next();
    assert.deepEqual(await Promise.all(ok), [1, 2]);
    assert.deepEqual(runs, { a: 1, b: 0, c: 1 }, 'nothing failed: each write ran once');

    db.exec("DELETE FROM t; UPDATE counter SET n = 0");
    runs.a = runs.c = 0;
    const boom = new Error('boom');
    const ps = [
      w.write(numbered('a')),
      w.write(() => {
        runs.b++;
        ins.run('b');
        next.get();
        throw boom;
      }),
      w.write(numbered('c')),
    ].map(settled);
    m.next();
    const [a, b, c] = await Promise.all(ps);
    // The batch was run again after the whole transaction was rolled back (c had not run yet): what the writes
    // answer is the second run's, and the failed write's number was given back, so the numbers have no gap and
    // none was taken twice.
    assert.deepEqual(a, { ok: true, v: 1 });
    assert.deepEqual(b, { ok: false, e: boom });
    assert.deepEqual(c, { ok: true, v: 2 });
    assert.deepEqual(runs, { a: 2, b: 2, c: 1 });
    assert.deepEqual(rows(), ['a', 'c']);
    assert.equal((other.prepare('SELECT n FROM counter').get() as { n: number }).n, 2);

    // Alone in its batch, a failing write is not run again: the rollback was its own.
    runs.b = 0;
    const alone = settled(w.write(() => {
      runs.b++;
      ins.run('z');
      throw boom;
    }));
    m.next();
    assert.deepEqual(await alone, { ok: false, e: boom });
    assert.equal(runs.b, 1);
    assert.deepEqual(rows(), ['a', 'c']);
    other.close();
    db.close();
  });

  void it('rejects the whole batch and keeps nothing of it when COMMIT fails', async () => {
    const { db, other, rows } = open();
    const m = manual();
    const w = sqliteWriter(db, m.schedule);
    const ps = [
      w.write(() => db.prepare('INSERT INTO t (v) VALUES (?)').run('a')),
      // A deferred foreign key is checked at COMMIT only: the savepoint is released, the commit refuses.
      w.write(() => db.prepare('INSERT INTO child (p) VALUES (42)').run()),
    ].map(settled);
    m.next();
    const results = await Promise.all(ps);
    for (const r of results) {
      assert.equal(r.ok, false);
      assert.equal((r as { e: { code?: string } }).e.code, 'SQLITE_CONSTRAINT_FOREIGNKEY');
    }
    assert.equal(db.inTransaction, false);
    assert.deepEqual(rows(), []);
    // The writer goes on working after a failed batch.
    const next = w.write(() => db.prepare('INSERT INTO t (v) VALUES (?)').run('b'));
    m.next();
    await next;
    assert.deepEqual(rows(), ['b']);
    other.close();
    db.close();
  });

  void it('rejects the writes whose transaction a failure took with it, and commits the later ones', async () => {
    const { db, other, rows } = open();
    const m = manual();
    const w = sqliteWriter(db, m.schedule);
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
    const gone = new Error('transaction rolled back');
    const ps = [
      w.write(() => ins.run('a')),
      // What SQLite does by itself on a full disk or an I/O error: the whole transaction is rolled back.
      w.write(() => {
        db.exec('ROLLBACK');
        throw gone;
      }),
      w.write(() => ins.run('c')),
    ].map(settled);
    m.next();
    const [a, b, c] = await Promise.all(ps);
    assert.deepEqual(a, { ok: false, e: gone }, 'its write was rolled back with the transaction, so it is not acknowledged');
    assert.deepEqual(b, { ok: false, e: gone });
    assert.equal(c!.ok, true);
    assert.deepEqual(rows(), ['c']);
    other.close();
    db.close();
  });

  void it('rejects the batch when the write lock cannot be had, and works again once it is free', async () => {
    const { db, other, rows } = open();
    db.pragma('busy_timeout = 0');
    const m = manual();
    const w = sqliteWriter(db, m.schedule);
    other.exec('BEGIN IMMEDIATE');
    const p = settled(w.write(() => db.prepare('INSERT INTO t (v) VALUES (?)').run('a')));
    m.next();
    const r = await p;
    assert.equal(r.ok, false);
    assert.equal((r as { e: { code?: string } }).e.code, 'SQLITE_BUSY');
    other.exec('COMMIT');
    const q = w.write(() => db.prepare('INSERT INTO t (v) VALUES (?)').run('b'));
    m.next();
    await q;
    assert.deepEqual(rows(), ['b']);
    other.close();
    db.close();
  });

  void it('commits a batch of only non-durable writes without fsync, and any durable write makes the batch synchronous=FULL', async () => {
    const { db, other, rows } = open();
    const m = manual();
    const w = sqliteWriter(db, m.schedule);
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
    // 2 is FULL (fsync at every commit), 1 NORMAL (no fsync at commit in WAL mode): what the COMMIT will do.
    const sync = () => db.pragma('synchronous', { simple: true }) as number;
    const lazy = [w.write(() => (ins.run('a'), sync()), false), w.write(() => (ins.run('b'), sync()), false)];
    m.next();
    assert.deepEqual(await Promise.all(lazy), [1, 1]);
    assert.deepEqual(rows(), ['a', 'b'], 'committed and visible at once all the same');
    assert.equal(sync(), 2, 'the connection is back to FULL for every other statement');
    const mixed = [w.write(() => (ins.run('c'), sync()), false), w.write(() => (ins.run('d'), sync()))];
    m.next();
    assert.deepEqual(await Promise.all(mixed), [2, 2]);
    // A failing lazy batch leaves the connection at FULL too.
    const bad = settled(w.write(() => {
      throw new Error('x');
    }, false));
    m.next();
    assert.equal((await bad).ok, false);
    assert.equal(sync(), 2);
    other.close();
    db.close();
  });

  void it('runs a batch holding a large write between largeBatch(true) and (false), outside its transaction, even when it fails', async () => {
    const { db, other, rows } = open();
    const m = manual();
    const calls: { on: boolean; inTransaction: boolean }[] = [];
    const w = sqliteWriter(db, m.schedule, { largeBatch: (on) => calls.push({ on, inTransaction: db.inTransaction }) });
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');

    // Small writes only: nothing is called.
    const small = [w.write(() => ins.run('a')), w.write(() => ins.run('b'))];
    m.next();
    await Promise.all(small);
    assert.deepEqual([...calls], []);

    // One large write among small ones: the whole batch is inside the calls, which are outside its transaction.
    const seen: boolean[] = [];
    const mixed = [
      w.write(() => ins.run('c')),
      w.write(() => {
        seen.push(calls.length === 1);
        ins.run('d');
      }, true, true),
    ];
    m.next();
    await Promise.all(mixed);
    assert.deepEqual(seen, [true], 'the large write runs after largeBatch(true)');
    assert.deepEqual([...calls], [{ on: true, inTransaction: false }, { on: false, inTransaction: false }]);

    // A large batch whose COMMIT fails (a deferred foreign key) still ends with largeBatch(false).
    calls.length = 0;
    const failing = w.write(() => db.prepare('INSERT INTO child (p) VALUES (42)').run(), true, true);
    m.next();
    assert.equal((await settled(failing)).ok, false);
    assert.deepEqual(calls.map((c) => c.on), [true, false]);
    assert.equal(db.inTransaction, false);
    assert.deepEqual(rows(), ['a', 'b', 'c', 'd']);
    other.close();
    db.close();
  });

  void it(`splits more than ${MAX_BATCH} queued writes into batches on later turns; flush() drains all at once`, async () => {
    const { db, other, rows } = open();
    const m = manual();
    const w = sqliteWriter(db, m.schedule);
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
    const ps = Array.from({ length: MAX_BATCH + 5 }, (_, i) => w.write(() => ins.run(String(i).padStart(4, '0'))));
    assert.equal(m.runs, 1);
    m.next();
    assert.equal(rows().length, MAX_BATCH);
    assert.equal(m.runs, 2, 'the rest is scheduled for a later turn');
    m.next();
    assert.equal(rows().length, MAX_BATCH + 5);
    await Promise.all(ps);

    const late = [w.write(() => ins.run('x')), w.write(() => ins.run('y'))];
    w.flush();
    await Promise.all(late);
    assert.ok(rows().includes('y'));
    other.close();
    db.close();
  });

  void it('batches by itself under the event loop: writes queued in one turn share a commit', async () => {
    const { db, other, rows } = open();
    const w = sqliteWriter(db);
    const ins = db.prepare('INSERT INTO t (v) VALUES (?)');
    // What another connection sees while each write runs: if each write committed by itself, the later ones
    // would see the earlier ones from outside.
    const outside: string[][] = [];
    await Promise.all(['a', 'b', 'c'].map((v) => w.write(() => {
      outside.push(rows());
      ins.run(v);
    })));
    assert.deepEqual(rows(), ['a', 'b', 'c']);
    assert.deepEqual(outside, [[], [], []]);
    other.close();
    db.close();
  });

  void it('keeps every acknowledged write when the process is killed mid-stream', async () => {
    const file = path.join(dir, 'crash.sqlite');
    const child = spawn(process.execPath, [...nodeArgs(path.join(import.meta.dirname, 'sqlite-writer-child.ts')), file], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    const acked: string[] = [];
    // Killed as soon as enough acknowledgements were read: the kill lands among writes queued and committing.
    const WANT = 2000;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${acked.length} acknowledgements within 60 s`)), 60_000);
      void exited.then(() => reject(new Error('the child exited before it was killed')));
      createInterface({ input: child.stdout }).on('line', (line) => {
        const m = /^ack (\S+)$/.exec(line);
        if (m) acked.push(m[1]!);
        if (acked.length === WANT) {
          child.kill('SIGKILL');
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await exited;
    const db = new Database(file, { readonly: true });
    const stored = new Set((db.prepare('SELECT id FROM submissions').all() as { id: string }[]).map((r) => r.id));
    db.close();
    const lost = acked.filter((id) => !stored.has(id));
    assert.deepEqual(lost, [], `${lost.length} acknowledged submissions are missing after the kill`);
    assert.ok(stored.size >= acked.length);
  });
});
