// Instrumentation of better-sqlite3 for durability.test.ts, on whichever thread imports it: the test's own (the
// store's connection) and the store's write thread (imported there first, through the store's writeThreadProbe
// option). It tracks the synchronous mode set with exec or pragma, and records a commit whenever a writing
// statement leaves the connection outside a transaction (COMMIT, or a write in autocommit mode), with whether it
// fsynced (FULL) or not (NORMAL), in a log in shared memory that both threads append to: [count, kind, kind, …],
// kind 1 = durable commit, 2 = commit without fsync. A thread appends before its commit is answered to anyone, so
// whoever hears of a write finds its commit in the log.
import { workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

export const PROBE_ENTRIES = 1 << 16;
export const DURABLE = 1;
export const LAZY = 2;

export function newProbeBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(4 * (PROBE_ENTRIES + 1));
}

/** Patch this thread's better-sqlite3 to log into `buffer`; returns the function that undoes it. */
export function instrument(buffer: SharedArrayBuffer): () => void {
  const log = new Int32Array(buffer);
  const proto = Database.prototype as unknown as {
    exec(sql: string): unknown; pragma(sql: string, o?: unknown): unknown; prepare(sql: string): Database.Statement;
  };
  let synchronousFull = true;
  const trackMode = (sql: string) => {
    const m = /synchronous\s*=\s*(\w+)/i.exec(sql);
    if (m) synchronousFull = ['full', '2', 'extra', '3'].includes(m[1]!.toLowerCase());
  };
  const { exec, pragma, prepare } = proto;
  proto.exec = function (this: Database.Database, sql: string) {
    trackMode(sql);
    return exec.call(this, sql);
  };
  proto.pragma = function (this: Database.Database, sql: string, o?: unknown) {
    trackMode(sql);
    return pragma.call(this, sql, o);
  };
  proto.prepare = function (this: Database.Database, sql: string) {
    const stmt = prepare.call(this, sql);
    const control = /^\s*(BEGIN|SAVEPOINT|RELEASE|ROLLBACK|PRAGMA)\b/i.test(sql);
    if (stmt.reader || control) return stmt;
    const run = stmt.run.bind(stmt);
    const inTransaction = () => this.inTransaction;
    Object.defineProperty(stmt, 'run', {
      value: (...args: unknown[]) => {
        const result = run(...args);
        if (!inTransaction()) {
          const at = Atomics.add(log, 0, 1) + 1;
          if (at <= PROBE_ENTRIES) Atomics.store(log, at, synchronousFull ? DURABLE : LAZY);
        }
        return result;
      },
    });
    return stmt;
  };
  return () => Object.assign(proto, { exec, pragma, prepare });
}

// Imported as the write thread's probe: instrument that thread at once.
const probe = (workerData as { probe?: { buffer: SharedArrayBuffer } } | null)?.probe;
if (probe) instrument(probe.buffer);
