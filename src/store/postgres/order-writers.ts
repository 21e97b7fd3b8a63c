/**
 * The pool's connections that statements writing `orders`, or rows that reference it (lines, attempts' events,
 * tickets), may hold at once: fewer than the pool. While `orders` is locked for long (an operator's CREATE INDEX takes
 * SHARE; ALTER TABLE and VACUUM FULL take ACCESS EXCLUSIVE) each such statement waits on the lock with its connection,
 * and under load there are more of them than connections (each kind of grouped registration runs up to four). Without
 * a bound they took the whole pool, and nothing that arrived could be stored: e-mail was answered 451, uploads failed.
 * With it, the connections kept back store messages, uploads and asynchronous hand-overs, which are acknowledged and
 * registered when the lock goes.
 *
 * Writers wait for a permit in memory, holding no connection; every other statement takes any free connection, so
 * in normal running the bound costs nothing but a counter (the grouped writers rarely have more than a few
 * statements in flight). Readers of `orders` are not bounded: a SHARE lock lets them through, and under ACCESS
 * EXCLUSIVE they wait as well (docs/operators/postgresql.md says so).
 */
import type pg from 'pg';
import type { PoolClient } from 'pg';
import type { WriterConnections } from '../../domain/store/stats.ts';

/** A writer that found no permit in time: nothing it asked ran. */
export class WriterWaitTimeout extends Error {}

/**
 * An error that says a statement never ran for want of a connection: no permit in time (WriterWaitTimeout), or no
 * pooled connection in time (pg-pool's own error, which has no class or code of its own, only this message).
 */
export function isConnectionWait(e: unknown): boolean {
  return e instanceof WriterWaitTimeout || (e instanceof Error && e.message === 'timeout exceeded when trying to connect');
}

/** What the writers of orders use: a pool's query and connect, each taken under a permit; and what they hold now. */
export type OrderWriters = Pick<pg.Pool, 'query' | 'connect'> & { use(): WriterConnections };

/**
 * The writers' permits: the pool less a quarter of it (rounded down), at least one connection kept back and at least
 * one permit. Storing what arrives is one short statement or transaction each, so the few connections kept back
 * carry it while registrations wait.
 */
export function writerPermits(poolSize: number): number {
  return Math.max(1, poolSize - Math.max(1, Math.floor(poolSize / 4)));
}

/**
 * `pool` as the writers of orders see it: at most `permits` of their statements (or transactions, from connect to
 * release) hold a connection at once. A writer that waits longer than `waitMs` for a permit fails, as one that
 * waits that long for a pooled connection does (pg's connectionTimeoutMillis): a request never waits without end.
 */
export function orderWriters(pool: pg.Pool, permits: number, waitMs: number): OrderWriters {
  let free = permits;
  const queue: { grant: () => void; timer: NodeJS.Timeout }[] = [];

  function acquire(): Promise<() => void> {
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      const next = queue.shift();
      if (next) {
        clearTimeout(next.timer);
        next.grant();
      } else {
        free++;
      }
    };
    if (free > 0) {
      free--;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        grant: () => resolve(release),
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          reject(new WriterWaitTimeout(`timeout exceeded after ${waitMs} ms waiting for a connection to write orders (${permits} in use)`));
        }, waitMs),
      };
      queue.push(waiter);
    });
  }

  const query = (async (...args: Parameters<pg.Pool['query']>) => {
    const release = await acquire();
    try {
      return await (pool.query as (...a: unknown[]) => Promise<unknown>)(...args);
    } finally {
      release();
    }
  }) as pg.Pool['query'];

  const connect = (async (): Promise<PoolClient> => {
    const release = await acquire();
    let client: PoolClient;
    try {
      client = await pool.connect();
    } catch (e) {
      release();
      throw e;
    }
    // pg sets a client's release afresh at every checkout, so this wrapper lasts for this checkout only.
    const give = client.release.bind(client);
    client.release = (err?: Error | boolean) => {
      release();
      give(err);
    };
    return client;
  }) as pg.Pool['connect'];

  return { query, connect, use: () => ({ allowed: permits, inUse: permits - free, waiting: queue.length }) };
}
