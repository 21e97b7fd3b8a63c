/**
 * Where the embedded store runs the intake path's writes (write-ops.ts): on the write thread
 * (write-thread.ts) for a file, or on the store's own connection for an in-memory database (no other
 * connection can see it). Either way the group commit rules of sqlite-writer.ts hold: a write's promise settles
 * after the COMMIT holding it (fsynced unless it asked for less), writes run and commit in the order they were
 * called, and a failing write is rolled back alone.
 *
 * Thread side, what a caller sees when things go wrong:
 * - the thread dies (a bug, out of memory): every write sent to it and not yet answered is rejected (its commit may
 *   or may not have happened, as when a connection drops; nothing was acknowledged on it), and the next write starts
 *   a new thread. A thread that dies again and again (MAX_RESTARTS within RESTART_WINDOW_MS) is not started again:
 *   every write is rejected with the reason, loudly, until the service is restarted;
 * - nothing waits for ever on a dead thread, and close() commits what is queued before it returns.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ErrorCode } from '../../domain/errors.ts';
import { revivedRefusal } from '../common/refusals.ts';
import { WRITE_OPS, type OpArgs, type OpContext, type OpName, type OpResult } from './write-ops.ts';
import type { OpDone, OpMessage, SerialisedError, ThreadData, ThreadOut } from './write-thread.ts';
import type { SqliteWriter } from './writer.ts';
import { releaseDeadThread } from './write-lock.ts';

export interface WriteRunner {
  /** Run `op` in the next group commit; resolves with its result once that commit is durable (or committed, see durable). */
  run<K extends OpName>(op: K, args: OpArgs<K>, durable?: boolean): Promise<OpResult<K>>;
  /** Commit what is queued, answer its callers, and stop (the thread, if any). */
  close(): Promise<void>;
}

/** On the store's own connection, through its group commit. */
export function inThreadRunner(ctx: OpContext, writer: SqliteWriter): WriteRunner {
  return {
    run(op, args, durable = true) {
      const f = WRITE_OPS[op] as (c: OpContext, ...a: unknown[]) => unknown;
      return writer.write(() => f(ctx, ...(args as unknown[])), durable) as Promise<never>;
    },
    async close() {
      writer.flush();
    },
  };
}

/** Deaths of the write thread tolerated within RESTART_WINDOW_MS before it is given up. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;
/** close() waits this long for the thread to commit and stop, then stops it (what was answered is committed). */
const CLOSE_TIMEOUT_MS = 30_000;

export function deserialiseError(e: SerialisedError): Error {
  if (e.intake) return revivedRefusal(e.intake.code as ErrorCode, e.intake.messages);
  const err = new Error(e.message);
  err.name = e.name;
  if (e.code !== undefined) (err as Error & { code?: unknown }).code = e.code;
  return err;
}

/**
 * The thread, from its module next to this one with the same extension: .js once built; .ts when the service runs
 * from source under tsx, whose loader a worker does not inherit in Node 20, so it is registered there first.
 */
/**
 * The thread's young generation: V8's default lets it reach ~48 MiB, which the thread kept committed while holding
 * 6 MiB alive (what it receives is short-lived: a batch of orders, an outcome). 8 MiB costs more frequent, tiny
 * scavenges; bench/memory/whole-path-phases.ts measured ~25 MiB less at the peak of a 48 MiB upload.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 };

function startThread(data: ThreadData): Worker {
  const ext = extname(fileURLToPath(import.meta.url));
  const url = new URL(`./write-thread${ext}`, import.meta.url);
  if (ext !== '.ts') return new Worker(url, { workerData: data, resourceLimits: THREAD_LIMITS });
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(url.href)}); })`,
    { eval: true, workerData: data, resourceLimits: THREAD_LIMITS });
}

interface Waiting { resolve: (v: unknown) => void; reject: (e: unknown) => void }

export interface ThreadRunner extends WriteRunner {
  /** Tests: stop the thread at once, as a crash of it would (writes sent to it and not answered are rejected). */
  kill(): Promise<void>;
}

export function threadRunner(data: ThreadData): ThreadRunner {
  let worker: Worker | undefined;
  let nextId = 1;
  /** Called, not yet sent: sent together on the next turn of the event loop. */
  let queue: { m: OpMessage; w: Waiting }[] = [];
  let scheduled = false;
  /** Sent to the current thread, not yet answered. */
  const waiting = new Map<number, Waiting>();
  const deaths: number[] = [];
  let broken: Error | undefined;
  let closing: Promise<void> | undefined;
  /**
   * Threads being stopped (kill, close): kept referenced until their exit, or the event loop could end while waiting
   * for it with nothing else to do (the message handler unreferences a thread that has answered everything, and an
   * answer can still arrive after the stop began: CI, 2026-11-27, the write-thread tests).
   */
  const stopping = new WeakSet<Worker>();

  function fail(why: Error): void {
    for (const w of waiting.values()) w.reject(why);
    waiting.clear();
  }

  function start(): Worker {
    const w = startThread(data);
    w.on('message', (m: ThreadOut) => {
      if (m.type !== 'done') return;
      for (const d of m.results as OpDone[]) {
        const who = waiting.get(d.id);
        if (!who) continue;
        waiting.delete(d.id);
        if (d.ok) who.resolve(d.value);
        else who.reject(deserialiseError(d.error));
      }
      if (waiting.size === 0 && queue.length === 0 && !stopping.has(w)) w.unref();
    });
    let reason: Error | undefined;
    w.on('error', (e) => {
      reason = e;
    });
    w.on('exit', (code) => {
      releaseDeadThread(data.lock);
      if (worker !== w) return;
      worker = undefined;
      if (closing) return;
      const why = new Error(`the SQLite write thread stopped (exit code ${code}${reason ? `: ${reason.message}` : ''}); `
        + 'writes sent to it were not answered and may or may not have been committed', { cause: reason });
      fail(why);
      const now = Date.now();
      deaths.push(now);
      while (deaths.length > 0 && deaths[0]! < now - RESTART_WINDOW_MS) deaths.shift();
      if (deaths.length >= MAX_RESTARTS) {
        broken = new Error(`the SQLite write thread died ${deaths.length} times within ${RESTART_WINDOW_MS / 1000} s; `
          + 'no write is accepted until the service is restarted', { cause: why });
        // Loud on purpose: the service cannot take orders any more and an operator must look.
        console.error(broken);
        for (const q of queue) q.w.reject(broken);
        queue = [];
      } else if (queue.length > 0 || scheduled) {
        // What was called but not yet sent goes to the next thread.
        schedule();
      }
    });
    return w;
  }

  function send(): void {
    scheduled = false;
    if (queue.length === 0) return;
    if (!worker) worker = start();
    worker.ref();
    const ops = queue.map((q) => q.m);
    for (const q of queue) waiting.set(q.m.id, q.w);
    queue = [];
    worker.postMessage({ type: 'ops', ops });
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(send);
  }

  return {
    run(op, args, durable = true) {
      if (broken) return Promise.reject(broken);
      if (closing) return Promise.reject(new Error('the store is closed'));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        queue.push({ m: { id, op, args: args as unknown[], durable }, w: { resolve: resolve as (v: unknown) => void, reject } });
        schedule();
      });
    },
    async kill() {
      const w = worker;
      if (!w) return;
      stopping.add(w);
      w.ref();
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      await w.terminate();
      await exited;
    },
    close() {
      closing ??= (async () => {
        if (queue.length > 0) send();
        const w = worker;
        if (!w) return;
        stopping.add(w);
        w.ref();
        const stopped = new Promise<void>((resolve) => w.once('exit', () => resolve()));
        w.postMessage({ type: 'close' });
        const timer = setTimeout(() => void w.terminate(), CLOSE_TIMEOUT_MS);
        await stopped;
        clearTimeout(timer);
        worker = undefined;
        fail(new Error('the store was closed before this write was answered'));
      })();
      return closing;
    },
  };
}
