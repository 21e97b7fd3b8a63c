/**
 * Transactions on the PostgreSQL pool, shared by every part of the PostgreSQL store so that all of them retry the
 * same way: a deadlock or serialisation failure is decided by PostgreSQL in favour of one side, and the other
 * side's transaction is run again from the start (the functions passed in touch only the database).
 */
import type pg from 'pg';
import type { PoolClient } from 'pg';

const RETRYABLE = new Set(['40001', '40P01']);
const MAX_TX_ATTEMPTS = 3;

/** The SQLSTATE of a pg error (23505 unique violation, 23503 foreign key, …). */
export function pgCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export async function withTransaction<T>(pool: Pick<pg.Pool, 'connect'>, fn: (c: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const c = await pool.connect();
    let broken = false;
    try {
      await c.query('BEGIN');
      const result = await fn(c);
      await c.query('COMMIT');
      return result;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {
        broken = true;
      });
      if (attempt < MAX_TX_ATTEMPTS && RETRYABLE.has(pgCode(e) ?? '')) continue;
      throw e;
    } finally {
      c.release(broken);
    }
  }
}
