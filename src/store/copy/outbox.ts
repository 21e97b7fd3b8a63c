/**
 * `db copy` for the outbox (migration 007). Events cannot be a plain TableSpec: PostgreSQL numbers them itself (seq
 * is an identity, xid the copying transaction), so they are inserted in the source's seq order, pages in
 * increasing transactions, and keep their stream order and their ids (webhook-id); cursors of the SQLite feed do
 * not carry over (docs/operators/integrations.md says so). Production state is the one column of orders that
 * changes after registration.
 */
import type Database from 'better-sqlite3';
import { inTransaction, insertRows, page } from './sql.ts';
import type { CopyContext } from './tables.ts';

const EVENT_COLUMNS = ['id', 'type', 'time', 'order_id', 'customer_id', 'data'] as const;

export async function copyEvents(ctx: CopyContext): Promise<number> {
  let after: unknown;
  let written = 0;
  for (;;) {
    const rows = page(ctx.src, { select: `SELECT seq, ${EVENT_COLUMNS.join(', ')} FROM order_events`, key: 'seq' }, after, ctx.pageSize);
    if (rows.length === 0) return written;
    written += await inTransaction(ctx.c, async () => (await insertRows(ctx.c, 'order_events', EVENT_COLUMNS,
      rows.map((r) => EVENT_COLUMNS.map((col) => r[col])), 'ON CONFLICT (id) DO NOTHING RETURNING id')).length);
    after = rows[rows.length - 1]!.seq;
    ctx.tick(rows.length);
  }
}

/** True when the source's orders have the production_state column (a source from before migration 007 has not). */
export function hasProductionState(src: Database.Database): boolean {
  return (src.prepare(`SELECT 1 FROM pragma_table_info('orders') WHERE name = 'production_state'`).get()) !== undefined;
}

/** The production state of these copied orders follows the source; rows already equal are not written. */
export async function copyProductionStates(ctx: CopyContext, rows: readonly Record<string, unknown>[]): Promise<number> {
  const res = await ctx.c.query(
    `UPDATE orders t SET production_state = s.ps FROM unnest($1::text[], $2::text[]) AS s(id, ps)
     WHERE t.id = s.id AND t.production_state IS DISTINCT FROM s.ps`,
    [rows.map((r) => r.id), rows.map((r) => r.production_state ?? null)],
  );
  return res.rowCount ?? 0;
}
