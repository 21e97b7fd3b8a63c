/**
 * The write thread of the embedded store (a worker_thread; started by offload.ts). It owns a second
 * connection on the store's file and runs the intake path's writes (write-ops.ts) in group commits
 * (writer.ts), so that their statements and their fsync no longer hold the service's event loop.
 *
 * Messages in: `{ type: 'ops', ops: [{ id, op, args, durable }] }` (in the order they were called on the main
 * thread, which is the order they are run and committed in), `{ type: 'close' }` (commit what is queued, answer,
 * close the connection, exit). Messages out: `{ type: 'ready' }`, `{ type: 'done', results: [{ id, ok, value |
 * error }] }` after the COMMIT holding them returned (fsynced unless none of its writes asked for it), `{ type:
 * 'closed' }`. Errors travel as plain objects (name, message, SQLite code, IntakeError code and messages).
 */
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { isIntakeError } from '../../domain/errors.ts';
import { statementCache } from './statements.ts';
import { lockThread, unlock } from './write-lock.ts';
import { isLargeOp, runOp } from './write-ops.ts';
import { sqliteWriter } from './writer.ts';

export interface ThreadData {
  file: string;
  outbox: boolean;
  lock: SharedArrayBuffer;
  /** Tests only: a module imported first, to instrument this thread's connection (test/intake/durability.test.ts). */
  probe?: { module: string; buffer: SharedArrayBuffer };
}

export interface OpMessage { id: number; op: string; args: unknown[]; durable: boolean }
export type ThreadIn = { type: 'ops'; ops: OpMessage[] } | { type: 'close' };
export interface SerialisedError { name: string; message: string; code?: unknown; intake?: { code: string; messages: string[] } }
export type OpDone = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: SerialisedError };
export type ThreadOut = { type: 'ready' } | { type: 'done'; results: OpDone[] } | { type: 'closed' };

export function serialiseError(e: unknown): SerialisedError {
  if (isIntakeError(e)) return { name: e.name, message: e.message, intake: { code: e.code, messages: e.messages } };
  const err = e instanceof Error ? e : new Error(String(e));
  return { name: err.name, message: err.message, code: (err as { code?: unknown }).code };
}

/** Page cache sizes (negative: KiB) of this thread's connection: SQLite's default, and better-sqlite3's for large batches. */
const SMALL_CACHE_KIB = -2000;
const LARGE_CACHE_KIB = -16000;

function main(port: NonNullable<typeof parentPort>, data: ThreadData): void {
  const db = new Database(data.file);
  // As the store's own connection (sqlite.ts): every commit fsynced unless the whole batch asked for less.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // SQLite's own default page cache (2 MiB) rather than better-sqlite3's 16 MiB: at every COMMIT SQLite sweeps the
  // cache's hash table (pcache1TruncateUnsafe, from pager_end_transaction), which with 16 MiB was 5 % of this
  // thread's CPU under REST load; the pages this thread needs (the right edges of the tables and their indexes) fit.
  // A batch holding a large write (a large file's 1,000 orders, their attempts: isLargeOp) does not fit: its
  // changed pages spill to the WAL and are read back within the transaction, so it runs with 16 MiB, given back at
  // its end (the sweep then costs once per thousand orders, not once per order).
  db.pragma(`cache_size = ${SMALL_CACHE_KIB}`);
  const ctx = { q: statementCache(db), outbox: data.outbox };
  const lock = new Int32Array(data.lock);
  // Each flush (one transaction) holds the lock shared with the main connection from BEGIN to COMMIT.
  const writer = sqliteWriter(db, (flush) => void setImmediate(() => {
    lockThread(lock);
    try {
      flush();
    } finally {
      unlock(lock);
    }
  }), { largeBatch: (on) => void db.pragma(`cache_size = ${on ? LARGE_CACHE_KIB : SMALL_CACHE_KIB}`) });

  // Results of one commit are sent together: they settle in one go, after it.
  let pending: OpDone[] = [];
  const send = () => {
    const results = pending;
    pending = [];
    port.postMessage({ type: 'done', results } satisfies ThreadOut);
  };
  const settle = (d: OpDone) => {
    if (pending.length === 0) queueMicrotask(send);
    pending.push(d);
  };

  port.on('message', (m: ThreadIn) => {
    if (m.type === 'ops') {
      for (const o of m.ops) {
        writer.write(() => runOp(ctx, o.op, o.args), o.durable, isLargeOp(o.op, o.args)).then(
          (value) => settle({ id: o.id, ok: true, value }),
          (e: unknown) => settle({ id: o.id, ok: false, error: serialiseError(e) }),
        );
      }
    } else if (m.type === 'close') {
      lockThread(lock);
      try {
        writer.flush();
      } finally {
        unlock(lock);
      }
      // The answers of that last flush go out (microtasks) before the 'closed' message.
      setImmediate(() => {
        db.close();
        port.postMessage({ type: 'closed' } satisfies ThreadOut);
        // Ends this thread only; whatever else it holds (a module loader's channel under tsx) must not keep it.
        process.exit(0);
      });
    }
  });
  port.postMessage({ type: 'ready' } satisfies ThreadOut);
}

if (parentPort) {
  const data = workerData as ThreadData;
  if (data.probe) await import(data.probe.module);
  main(parentPort, data);
}
