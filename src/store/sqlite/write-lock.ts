/**
 * One writer at a time between the store's own connection (main thread) and the write thread's (a second
 * connection on the same file, write-thread.ts).
 *
 * SQLite lets only one connection write at a time; the other waits in its busy handler, which SLEEPS (1, 2, 5, 10 …
 * ms) between tries. On the main thread that sleep would stop the event loop, and against a write thread that
 * commits back to back under load it could starve for the whole busy timeout. So both sides take this lock, in
 * shared memory, before they write: the main thread waits only for the write thread's current transaction to end
 * (one commit, as long as any write of its own would take), and says that it wants the lock so that the write
 * thread does not start another transaction first. The write thread waits in its own thread, never the event loop.
 *
 * The main connection is wrapped (lockedConnection) so that every writing statement, transaction and exec takes
 * the lock, and gives it back once the connection is outside a transaction again: the code of the store's parts
 * stays as it is. Reads outside a transaction take no lock (WAL: readers never wait for the writer).
 */
import type Database from 'better-sqlite3';

const OWNER = 0;
const MAIN_WANTS = 1;
const FREE = 0;
const MAIN = 1;
const THREAD = 2;
/** Waits re-check at least this often (ms), so a lost wake-up costs a moment, never a hang. */
const RECHECK_MS = 20;

export interface WriteLock {
  /** The shared memory, to hand to the write thread. */
  readonly buffer: SharedArrayBuffer;
}

export function newWriteLock(): WriteLock {
  return { buffer: new SharedArrayBuffer(8) };
}

/** As SQLite's busy_timeout on the store's connections: past it, the main thread's write fails as busy. */
const BUSY_MS = 5000;

/** Take the lock as the main thread: blocks until the write thread's current transaction has ended. */
function lockMain(s: Int32Array): void {
  Atomics.store(s, MAIN_WANTS, 1);
  const deadline = Date.now() + BUSY_MS;
  try {
    while (Atomics.compareExchange(s, OWNER, FREE, MAIN) !== FREE) {
      if (Date.now() > deadline) {
        throw Object.assign(new Error('database is locked (the SQLite write thread held its transaction too long)'), { code: 'SQLITE_BUSY' });
      }
      Atomics.wait(s, OWNER, THREAD, RECHECK_MS);
    }
  } finally {
    Atomics.store(s, MAIN_WANTS, 0);
  }
}

/** The write thread is gone (its transaction with it): a lock it held is free. */
export function releaseDeadThread(buffer: SharedArrayBuffer): void {
  const s = new Int32Array(buffer);
  if (Atomics.compareExchange(s, OWNER, THREAD, FREE) === THREAD) Atomics.notify(s, OWNER);
}

/** Take the lock as the write thread; the main thread goes first when it asks. */
export function lockThread(s: Int32Array): void {
  for (;;) {
    if (Atomics.load(s, MAIN_WANTS) === 0 && Atomics.compareExchange(s, OWNER, FREE, THREAD) === FREE) return;
    Atomics.wait(s, OWNER, Atomics.load(s, OWNER), RECHECK_MS);
  }
}

export function unlock(s: Int32Array): void {
  Atomics.store(s, OWNER, FREE);
  Atomics.notify(s, OWNER);
}

/** Atomics.waitAsync (Node 16+; typed from ES2024 on). */
const waitAsync = (Atomics as unknown as {
  waitAsync(a: Int32Array, i: number, v: number, ms: number): { async: true; value: Promise<string> } | { async: false; value: string };
}).waitAsync;

/** Statements that take SQLite's write lock although SQLite calls them read-only (transaction control). */
const CONTROL = /^\s*(BEGIN|SAVEPOINT|RELEASE|COMMIT|END|ROLLBACK)\b/i;

/**
 * `db` with every write taking `lock` first (main thread side). Reentrant: inside a transaction the lock is already
 * held, and it is given back only when the connection leaves the transaction (COMMIT, ROLLBACK, or an autocommit
 * write's end).
 */
export function lockedConnection(db: Database.Database, lock: WriteLock): {
  conn: Database.Database;
  /**
   * The scheduler for this connection's group commit (sqliteWriter): the flush runs once the lock is taken,
   * waiting for it without blocking the event loop, and keeps it from its first statement to its last.
   */
  scheduleFlush: (flush: () => void) => void;
} {
  const s = new Int32Array(lock.buffer);
  let held = false;
  let pinned = false;
  const releaseIfDone = () => {
    if (held && !pinned && !db.inTransaction) {
      held = false;
      unlock(s);
    }
  };
  function around<A extends unknown[], R>(f: (...a: A) => R): (...a: A) => R {
    return (...a: A): R => {
      // Taken at BEGIN, given back by the COMMIT (or ROLLBACK) that ends the transaction, whichever call it is.
      if (!held) {
        lockMain(s);
        held = true;
      }
      try {
        return f(...a);
      } finally {
        releaseIfDone();
      }
    };
  }

  async function lockMainAsync(): Promise<void> {
    Atomics.store(s, MAIN_WANTS, 1);
    try {
      // Another statement of this thread may take it meanwhile (synchronously): then wait for its end too.
      while (held || Atomics.compareExchange(s, OWNER, FREE, MAIN) !== FREE) {
        const w = waitAsync(s, OWNER, Atomics.load(s, OWNER), RECHECK_MS);
        if (w.async) await w.value;
        else await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      Atomics.store(s, MAIN_WANTS, 0);
    }
    held = true;
  }

  const scheduleFlush = (flush: () => void): void => {
    setImmediate(() => {
      lockMainAsync().then(() => {
        pinned = true;
        try {
          flush();
        } finally {
          pinned = false;
          releaseIfDone();
        }
      }, () => undefined);
    });
  };
  // The proxy's own target is an empty object: the statement's own properties may be fixed (non-configurable),
  // and a proxy may not answer differently from its target for those.
  const lockedStatement = (target: Database.Statement): Database.Statement => new Proxy({} as Database.Statement, {
    get(_, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (prop === 'run' || prop === 'get' || prop === 'all') return around((v as (...a: unknown[]) => unknown).bind(target));
      // pluck(), raw(), bind() … return the statement itself: keep it wrapped.
      if (typeof v === 'function') {
        return (...a: unknown[]) => {
          const r = (v as (...x: unknown[]) => unknown).apply(target, a);
          return r === target ? lockedStatement(target) : r;
        };
      }
      return v;
    },
  });
  const conn = new Proxy(db, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function') return v;
      const f = (v as (...a: unknown[]) => unknown).bind(target);
      if (prop === 'prepare') {
        return (sql: string) => {
          const stmt = f(sql) as Database.Statement;
          return stmt.readonly && !CONTROL.test(sql) ? stmt : lockedStatement(stmt);
        };
      }
      if (prop === 'exec') return around(f);
      if (prop === 'transaction') {
        return (fn: (...a: unknown[]) => unknown) => {
          const t = f(fn) as Database.Transaction<(...a: unknown[]) => unknown>;
          const wrapped = around(t) as unknown as Record<string, unknown>;
          for (const mode of ['deferred', 'immediate', 'exclusive'] as const) wrapped[mode] = around(t[mode]);
          return wrapped;
        };
      }
      return f;
    },
  });
  return { conn, scheduleFlush };
}
