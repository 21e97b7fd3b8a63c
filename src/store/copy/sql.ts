/**
 * The small SQL tools `db copy` is built from: keyset pages read from the SQLite source, and multi-row inserts
 * into PostgreSQL. Table and column names here are constants of the copy, never input.
 */
import type Database from 'better-sqlite3';
import type { PoolClient } from 'pg';

/** PostgreSQL takes at most 65,535 parameters per statement; stay below it with room to spare. */
const MAX_PARAMS = 60_000;

export type Row = Record<string, unknown>;

/** `($1, $2), ($3, $4)`: placeholders for `rows` rows of `cols` columns. */
function placeholders(rows: number, cols: number): string {
  const out: string[] = [];
  for (let r = 0; r < rows; r++) {
    out.push(`(${Array.from({ length: cols }, (_, c) => `$${r * cols + c + 1}`).join(', ')})`);
  }
  return out.join(', ');
}

/**
 * INSERT INTO table (columns) VALUES … `tail`, in as many statements as the parameter limit needs; resolves with
 * the rows RETURNING gave (when `tail` asks for them).
 */
export async function insertRows(
  c: PoolClient, table: string, columns: readonly string[], rows: readonly (readonly unknown[])[], tail: string,
): Promise<Row[]> {
  const per = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const returned: Row[] = [];
  for (let i = 0; i < rows.length; i += per) {
    const part = rows.slice(i, i + per);
    const res = await c.query(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${placeholders(part.length, columns.length)} ${tail}`,
      part.flat(),
    );
    // One row at a time: spreading tens of thousands of rows into push() overflows the stack.
    for (const r of res.rows as Row[]) returned.push(r);
  }
  return returned;
}

/** Rows of a SQLite table after `after` in key order, `size` at a time (a keyset page: no OFFSET rescans). */
export function page(db: Database.Database, sql: { select: string; key: string }, after: unknown, size: number): Row[] {
  const where = after === undefined ? '' : `WHERE ${sql.key} > ?`;
  const stmt = db.prepare(`${sql.select} ${where} ORDER BY ${sql.key} LIMIT ?`);
  return (after === undefined ? stmt.all(size) : stmt.all(after, size)) as Row[];
}

/** Rows of a SQLite table whose `column` is one of `values` (json_each binds any number of them at once). */
export function byValues(db: Database.Database, select: string, column: string, values: readonly unknown[], order = column): Row[] {
  if (values.length === 0) return [];
  return db.prepare(`${select} WHERE ${column} IN (SELECT value FROM json_each(?)) ORDER BY ${order}`)
    .all(JSON.stringify(values)) as Row[];
}

/** One PostgreSQL transaction; rolled back whole when `fn` throws, so a page is copied entirely or not at all. */
export async function inTransaction<T>(c: PoolClient, fn: () => Promise<T>): Promise<T> {
  await c.query('BEGIN');
  try {
    const result = await fn();
    await c.query('COMMIT');
    return result;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  }
}

export function ids(rows: readonly Row[], key = 'id'): string[] {
  return rows.map((r) => String(r[key]));
}
