/**
 * Copying a table described by a TableSpec (copy/list.ts) from SQLite into PostgreSQL: keyset pages in primary key
 * order, one PostgreSQL transaction per page, rows matched on their primary key. The tables with rules of their own
 * (submissions, orders, credentials…) are in copy/tables.ts; every table whose rows are either fixed once written or
 * simply follow the source is one spec here, so a new feature's tables are a few lines in copy/list.ts.
 *
 * What stays true, as for the other tables: a second run over an unchanged source writes nothing; a row under the
 * same key but belonging to something else in the target (another customer, another message…), or clashing with a
 * unique index there, rolls its page back and stops the copy with the reason.
 */
import type Database from 'better-sqlite3';
import type { PoolClient } from 'pg';
import { IntakeError } from '../../domain/errors.ts';
import { inTransaction, insertRows, type CopyContext, type Row } from './sql.ts';

export interface TableSpec {
  table: string;
  /** Primary key columns (the same in both engines). */
  key: readonly string[];
  /** Every column the SQLite table has, copied as it is (the check at start refuses a source with others). */
  columns: readonly string[];
  /** Columns PostgreSQL keeps as boolean and SQLite as 0/1. */
  bool?: readonly string[];
  /**
   * Columns only PostgreSQL has (claims of running instances): left to their defaults on insert, and cleared by
   * `update` where a claim would be stale.
   */
  targetOnly?: readonly string[];
  /**
   * Text or number columns that make a row the same row: a target row with the same key and other values in them
   * belongs to something else, and is a clash.
   */
  same: readonly string[];
  /**
   * Rows that change after they are written: the SET list and the condition of `ON CONFLICT (key) DO UPDATE`
   * (`excluded.` is the source's row). The condition must be false when the target already holds the source's
   * values, so that a second run writes nothing. Absent: rows never change once written.
   */
  update?: { set: string; where: string };
  /**
   * Rows the source deletes (a mailbox removed, a lookup table replaced): under each `parent` row of the source, the
   * target keeps exactly the source's rows. Only tables whose parent is in the copy too.
   */
  mirror?: { parent: string; parentKey: string; column: string };
  /** What a row is, for messages. */
  what: string;
}

/** Key values PostgreSQL compares as text: keys are text or whole numbers. */
const asText = (v: unknown): string | null => (v === null || v === undefined ? null : Buffer.isBuffer(v) ? v.toString('hex') : String(v));

/** Rows of the source after `after` in key order (row values compare column by column: a keyset page). */
function pageOf(src: Database.Database, spec: TableSpec, after: Row | undefined, size: number): Row[] {
  const keys = spec.key.join(', ');
  const where = after === undefined ? '' : `WHERE (${keys}) > (${spec.key.map(() => '?').join(', ')})`;
  const stmt = src.prepare(`SELECT ${spec.columns.join(', ')} FROM ${spec.table} ${where} ORDER BY ${keys} LIMIT ?`);
  return (after === undefined ? stmt.all(size) : stmt.all(...spec.key.map((k) => after[k]), size)) as Row[];
}

/** Keys of this page that the target holds with other `same` values. */
async function clashing(c: PoolClient, spec: TableSpec, rows: readonly Row[]): Promise<string[]> {
  if (spec.same.length === 0) return [];
  const cols = [...spec.key, ...spec.same];
  const names = cols.map((_, i) => `c${i}`);
  const { rows: found } = await c.query(
    `SELECT ${spec.key.map((_, i) => `s.c${i}`).join(', ')} FROM unnest(${cols.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS s(${names.join(', ')})
     JOIN ${spec.table} t ON ${spec.key.map((k, i) => `t.${k}::text = s.c${i}`).join(' AND ')}
     WHERE (${spec.same.map((col) => `t.${col}::text`).join(', ')}) IS DISTINCT FROM (${spec.same.map((_, i) => `s.c${spec.key.length + i}`).join(', ')})`,
    cols.map((col) => rows.map((r) => asText(r[col]))),
  );
  return (found as Row[]).map((r) => spec.key.map((_, i) => String(r[`c${i}`])).join('/'));
}

function conflict(spec: TableSpec, detail: string): IntakeError {
  return new IntakeError('CONFLICT', `the target database already holds a different ${spec.what} (${spec.table}): ${detail}; `
    + 'copy into an empty database, or one that only earlier copies of this same file have filled');
}

/** Copies one table; resolves with the rows written (inserted, updated, or deleted by `mirror`). */
export async function copyTable(ctx: CopyContext, fullSpec: TableSpec): Promise<number> {
  // A source from before a migration that added columns has fewer: those are left to the target's defaults.
  const have = new Set((ctx.src.prepare('SELECT name FROM pragma_table_info(?)').all(fullSpec.table) as { name: string }[]).map((r) => r.name));
  const spec: TableSpec = { ...fullSpec, columns: fullSpec.columns.filter((c) => have.has(c)) };
  const bool = new Set(spec.bool ?? []);
  const tail = spec.update
    ? `ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${spec.update.set} WHERE ${spec.update.where}`
    : `ON CONFLICT (${spec.key.join(', ')}) DO NOTHING`;
  let after: Row | undefined;
  // Rows the source removed go first: a row that replaced one may take a unique key the removed one held (a mailbox
  // removed and set up again for the same customer is another row with the same customer_id).
  let written = spec.mirror ? await mirror(ctx, spec, spec.mirror) : 0;
  for (;;) {
    const rows = pageOf(ctx.src, spec, after, ctx.pageSize);
    if (rows.length === 0) break;
    written += await inTransaction(ctx.c, async () => {
      const clashes = await clashing(ctx.c, spec, rows);
      if (clashes.length > 0) {
        throw conflict(spec, `the same key with other ${spec.same.join(', ')} for ${clashes.slice(0, 10).join(', ')}${clashes.length > 10 ? ` (and ${clashes.length - 10} more)` : ''}`);
      }
      const values = rows.map((r) => spec.columns.map((col) => (bool.has(col) && r[col] !== null ? Number(r[col]) === 1 : r[col])));
      try {
        return (await insertRows(ctx.c, spec.table, spec.columns, values, `${tail} RETURNING ${spec.key.join(', ')}`)).length;
      } catch (e) {
        // Another unique index of the target (a mailbox already watched for that customer, a key already current
        // for another connector): PostgreSQL's detail names the key.
        const pg = e as { code?: string; detail?: string };
        if (pg.code === '23505') throw conflict(spec, pg.detail ?? 'a unique key is taken');
        throw e;
      }
    });
    after = rows[rows.length - 1]!;
    ctx.tick(rows.length);
  }
  return written;
}

/** Deletes the target's rows, under the source's parents, that the source no longer has. */
async function mirror(ctx: CopyContext, spec: TableSpec, m: NonNullable<TableSpec['mirror']>): Promise<number> {
  if (spec.key.length > 2 || (spec.key.length === 2 && spec.key[0] !== m.column)) {
    throw new Error(`copy of ${spec.table}: mirror needs a key of one column, or of the parent column and one more`);
  }
  const own = spec.key.find((k) => k !== m.column) ?? spec.key[0]!;
  const parents = (ctx.src.prepare(`SELECT ${m.parentKey} AS p FROM ${m.parent} ORDER BY ${m.parentKey}`).all() as { p: unknown }[]).map((r) => asText(r.p));
  let deleted = 0;
  for (let i = 0; i < parents.length; i += ctx.pageSize) {
    const part = parents.slice(i, i + ctx.pageSize);
    const pairs = ctx.src.prepare(`SELECT ${m.column} AS p, ${own} AS k FROM ${spec.table} WHERE ${m.column} IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(part)) as { p: unknown; k: unknown }[];
    const res = await ctx.c.query(
      `DELETE FROM ${spec.table} t WHERE t.${m.column}::text = ANY($1::text[])
         AND NOT EXISTS (SELECT 1 FROM unnest($2::text[], $3::text[]) AS s(p, k) WHERE s.p = t.${m.column}::text AND s.k = t.${own}::text)`,
      [part, pairs.map((r) => asText(r.p)), pairs.map((r) => asText(r.k))],
    );
    deleted += res.rowCount ?? 0;
  }
  return deleted;
}

/** Refuses a source whose table has columns the spec does not copy: their data would be lost on the switch. */
export function checkColumns(src: Database.Database, spec: TableSpec, file: string): void {
  const have = (src.prepare(`SELECT name FROM pragma_table_info(?)`).all(spec.table) as { name: string }[]).map((r) => r.name);
  const unknown = have.filter((col) => !spec.columns.includes(col));
  if (unknown.length > 0) {
    throw new Error(`${file} has columns ${unknown.join(', ')} in ${spec.table}, which this version of db copy does not copy; nothing was copied`);
  }
}
