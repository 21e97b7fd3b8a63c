/**
 * Group commit for the embedded store. With `synchronous=FULL` every COMMIT waits for an fsync, and
 * better-sqlite3 waits on the event loop; one commit per write made the fsync the limit of the whole service
 * (62 % of the REST path in the first profile, performance-history.md). Here writes are queued; the first write of a batch
 * schedules a flush with setImmediate, and the flush runs every queued write inside ONE `BEGIN IMMEDIATE …
 * COMMIT`. So:
 * - a write's promise settles only after the COMMIT holding it returned (fsynced): durability is unchanged;
 * - a write that throws is rolled back alone and only its caller sees the error (see commitBatch: the batch is
 *   run again with each write in its own SAVEPOINT);
 * - writes take effect in the order they were queued, and each sees the effects of those before it;
 * - under load one fsync serves every write that arrived while the previous flush ran; alone, a write commits
 *   on the next turn of the event loop, as before.
 *
 * A write may be queued as not durable (`durable: false`): committed like the others, but a batch holding only
 * such writes is committed with `synchronous=NORMAL`, without its own fsync. It reaches the disk with the next
 * durable commit, because that commit's fsync of the WAL covers every frame written before it (the WAL is one
 * file, appended in commit order). This is for writes whose caller acknowledges nothing before a later durable
 * write: the synchronous REST/SOAP path saves, registers and then records the outcome, and answers after the
 * last of the three; so one fsync per request is enough instead of three, and still nothing is acknowledged
 * before it is on disk. A durable write must change something (an empty commit does not fsync).
 *
 * A flush is synchronous from BEGIN to COMMIT, so no other statement of this connection ever runs inside it:
 * reads and the writes that do not go through the queue see only committed data. A caller that awaited its
 * write sees it; one that did not await may not yet.
 */
import type Database from 'better-sqlite3';

/**
 * Writes per transaction. A batch is about as large as the requests in flight; the bound only keeps one
 * transaction (and the event-loop turn running it) from growing without limit behind a flood of small writes.
 */
export const MAX_BATCH = 512;

export interface SqliteWriter {
  /**
   * Run `work` (synchronous, statements of this connection only) in the next group commit. Resolves with its
   * result once the commit holding it is durable (`durable` false: once it is committed; it becomes durable with
   * the next durable write); rejects with what it threw (nothing of it stays), or with the commit's error when
   * the whole batch could not be committed. `large`: the write changes many rows (a large file's batch of orders),
   * so its batch runs between WriterOptions.largeBatch(true) and (false).
   */
  write<T>(work: () => T, durable?: boolean, large?: boolean): Promise<T>;
  /** Commit everything queued now, synchronously (before closing the connection). */
  flush(): void;
}

export interface WriterOptions {
  /**
   * Called with true before a batch holding a write queued as large, and with false once it is committed or rolled
   * back: the write thread gives such a batch a larger page cache (write-thread.ts).
   */
  largeBatch?: (on: boolean) => void;
}

interface Queued {
  work: () => unknown;
  durable: boolean;
  large: boolean;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Done = { ok: true; value: unknown } | { ok: false; error: unknown };

export function sqliteWriter(
  db: Database.Database,
  // Injected by tests to decide when a flush runs; the service flushes on the next turn of the event loop.
  schedule: (flush: () => void) => void = (f) => void setImmediate(f),
  opts: WriterOptions = {},
): SqliteWriter {
  let queue: Queued[] = [];
  let scheduled = false;
  // Prepared lazily: a store that never writes (a read-only CLI command) prepares nothing.
  let stmts: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Database.Statement> | undefined;
  const s = () => (stmts ??= {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
    savepoint: db.prepare('SAVEPOINT intake_write'),
    release: db.prepare('RELEASE intake_write'),
    rollbackTo: db.prepare('ROLLBACK TO intake_write'),
  });

  /** One item inside the open transaction, isolated by its savepoint. */
  function runOne(item: Queued): Done {
    const st = s();
    st.savepoint.run();
    try {
      const value = item.work();
      st.release.run();
      return { ok: true, value };
    } catch (error) {
      // Some errors (disk full, I/O) make SQLite roll back the whole transaction itself: then there is no
      // savepoint left to go back to, and commitIsolated sees that the transaction is gone.
      if (db.inTransaction) {
        st.rollbackTo.run();
        st.release.run();
      }
      return { ok: false, error };
    }
  }

  /**
   * Run `batch` in one transaction; the results, or one error for all when the transaction itself failed.
   *
   * The writes run first without savepoints. A savepoint is not free: SQLite copies every page a write changes
   * first into a sub-journal, to be able to go back to the savepoint, and past 64 KiB that sub-journal is a
   * temporary file written page by page. On the write thread under REST load this was a fifth of its CPU
   * (perf, docs/development/sqlite-write-thread.md), for a rollback that almost never happens: a write fails only
   * on a caller's bug or a submission gone (NOT_FOUND). When one does fail, the whole transaction is rolled back
   * and the batch run again with each write in its own savepoint (commitIsolated), so only that write is lost, as
   * before. Running a write twice is safe because nothing of the first run is seen by anyone: its statements were
   * rolled back, and no promise settles before the COMMIT (the writes are statements on this connection, and the
   * few values they make up, event ids, are made again).
   */
  function commitBatch(batch: Queued[]): Done[] {
    const st = s();
    const done: Done[] = [];
    try {
      st.begin.run();
    } catch (error) {
      return batch.map(() => ({ ok: false, error }));
    }
    for (const item of batch) {
      try {
        done.push({ ok: true, value: item.work() });
      } catch (error) {
        if (db.inTransaction) st.rollback.run();
        // Alone in its batch: rolling the transaction back was rolling back just this write.
        if (batch.length === 1) return [{ ok: false, error }];
        return commitIsolated(batch);
      }
    }
    try {
      st.commit.run();
      return done;
    } catch (error) {
      // COMMIT failed (busy, disk full, I/O, a deferred constraint): nothing of the batch is stored.
      if (db.inTransaction) st.rollback.run();
      return batch.map(() => ({ ok: false, error }));
    }
  }

  /** `batch` in one transaction, each write in its own savepoint: a write that throws is rolled back alone. */
  function commitIsolated(batch: Queued[]): Done[] {
    const st = s();
    const done: Done[] = [];
    try {
      st.begin.run();
      for (const item of batch) {
        done.push(runOne(item));
        if (!db.inTransaction) {
          // The item's failure took the transaction with it: what the items before it did is gone too.
          const lost = done.pop() as Done & { ok: false };
          return [...batch.slice(0, done.length).map((): Done => ({ ok: false, error: lost.error })), lost,
            ...commitIsolated(batch.slice(done.length + 1))];
        }
      }
      st.commit.run();
      return done;
    } catch (error) {
      // BEGIN or COMMIT failed (busy past the timeout, disk full, I/O): nothing of the batch is stored.
      if (db.inTransaction) st.rollback.run();
      return batch.map(() => ({ ok: false, error }));
    }
  }

  /** Commit one batch (the oldest MAX_BATCH writes) and settle its promises. */
  function flushBatch(): void {
    const batch = queue.length <= MAX_BATCH ? queue : queue.slice(0, MAX_BATCH);
    queue = queue.length <= MAX_BATCH ? [] : queue.slice(MAX_BATCH);
    // The store runs with synchronous=FULL; only a batch with no durable write is committed without fsync,
    // and the connection is set back at once, so every other statement keeps FULL.
    const lazy = !batch.some((item) => item.durable);
    const large = opts.largeBatch !== undefined && batch.some((item) => item.large);
    let done: Done[];
    if (large) opts.largeBatch!(true);
    try {
      if (lazy) {
        // exec, not a prepared statement: SQLite applies this pragma when it compiles it, not when it runs it.
        db.exec('PRAGMA synchronous = NORMAL');
        try {
          done = commitBatch(batch);
        } finally {
          db.exec('PRAGMA synchronous = FULL');
        }
      } else {
        done = commitBatch(batch);
      }
    } finally {
      if (large) opts.largeBatch!(false);
    }
    // Settled only now, after COMMIT: no caller hears of a write before it is committed, and (unless it asked
    // for less) before it is durable.
    batch.forEach((item, i) => {
      const d = done[i]!;
      if (d.ok) item.resolve(d.value);
      else item.reject(d.error);
    });
  }

  function flushScheduled(): void {
    scheduled = false;
    if (queue.length > 0) flushBatch();
    // Writes beyond one batch go in the next, on a later turn, so a flood cannot hold the event loop for ever.
    if (queue.length > 0 && !scheduled) {
      scheduled = true;
      schedule(flushScheduled);
    }
  }

  return {
    write<T>(work: () => T, durable = true, large = false): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, durable, large, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          schedule(flushScheduled);
        }
      });
    },
    flush() {
      while (queue.length > 0) flushBatch();
    },
  };
}
