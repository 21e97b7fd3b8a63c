/**
 * Copying each table of a SQLite installation into PostgreSQL, page by page, one transaction per page. Every step
 * is idempotent (rows are matched on their primary key), so running the copy again after a partial run, or later
 * for what arrived since, completes it without duplicates. Rows that would clash with different data already in
 * the target are never skipped silently: the page is rolled back and the copy stops with the reason.
 */
import type Database from 'better-sqlite3';
import type { PoolClient } from 'pg';
import { IntakeError } from '../../domain/errors.ts';
import { byValues, ids, inTransaction, insertRows, page, type CopyContext, type Row } from './sql.ts';
import { copyProductionStates, hasProductionState } from './outbox.ts';
import { readSubmissionBody, SUBMISSION_SIZE_SQL, SUBMISSION_SIZE_SQL_015 } from '../sqlite/bodies.ts';

/**
 * Raw bytes sent to PostgreSQL per statement. A submission may be 100 MiB (INTAKE_MAX_FILE_BYTES); grouping
 * smaller ones up to this bound keeps round trips few without holding many large files in memory at once.
 */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;

function conflict(what: string, keys: readonly string[]): IntakeError {
  const shown = keys.slice(0, 10).join(', ');
  return new IntakeError('CONFLICT', `the target database already holds a different ${what} for: ${shown}${keys.length > 10 ? ` (and ${keys.length - 10} more)` : ''}; `
    + 'copy into an empty database, or one that only earlier copies of this same file have filled');
}

/** After an insert that skipped clashing rows: every source key must now be in the target, else it clashed. */
async function verify(c: PoolClient, table: string, key: string, keys: readonly string[], what: string): Promise<void> {
  const { rows } = await c.query(`SELECT ${key} AS k FROM ${table} WHERE ${key} = ANY($1::text[])`, [keys]);
  const present = new Set(rows.map((r: { k: string }) => r.k));
  const missing = keys.filter((k) => !present.has(k));
  if (missing.length > 0) throw conflict(what, missing);
}

/** Copies `table` keyed by `key`: insert what is missing, verify nothing clashed. */
async function copyImmutable(ctx: CopyContext, table: string, key: string, columns: readonly string[], what: string, map: (r: Row) => unknown[] = (r) => columns.map((col) => r[col])): Promise<number> {
  let after: unknown;
  let written = 0;
  for (;;) {
    const rows = page(ctx.src, { select: `SELECT ${columns.join(', ')} FROM ${table}`, key }, after, ctx.pageSize);
    if (rows.length === 0) return written;
    written += await inTransaction(ctx.c, async () => {
      const done = await insertRows(ctx.c, table, columns, rows.map(map), `ON CONFLICT DO NOTHING RETURNING ${key}`);
      await verify(ctx.c, table, key, ids(rows, key), what);
      return done.length;
    });
    after = rows[rows.length - 1]![key];
    ctx.tick(rows.length);
  }
}

/**
 * The one column of an otherwise immutable table that changes (`rows`: the source's id and value of it), set on the
 * target's rows of those ids where `stale` (an SQL condition on the target's row `t`) holds; how many it changed.
 */
async function followColumn(ctx: CopyContext, table: 'customers' | 'credentials', column: 'deactivated_at' | 'revoked_at',
  rows: readonly Row[], stale: string): Promise<number> {
  let written = 0;
  for (let i = 0; i < rows.length; i += ctx.pageSize) {
    const part = rows.slice(i, i + ctx.pageSize);
    const res = await ctx.c.query(
      `UPDATE ${table} t SET ${column} = s.v FROM unnest($1::text[], $2::timestamptz[]) AS s(id, v) WHERE t.id = s.id AND ${stale}`,
      [ids(part), part.map((r) => r[column] ?? null)],
    );
    written += res.rowCount ?? 0;
  }
  return written;
}

export async function copyCustomers(ctx: CopyContext): Promise<number> {
  // Deactivation (migration 013) is the one thing of a customer that changes: a customer deactivated on the source
  // since the last pass must not get in on the target, nor one reactivated there stay refused.
  const states = ctx.src.prepare('SELECT id, deactivated_at FROM customers ORDER BY id').all() as Row[];
  const written = await followColumn(ctx, 'customers', 'deactivated_at', states, 't.deactivated_at IS DISTINCT FROM s.v');
  return written + await copyImmutable(ctx, 'customers', 'id', ['id', 'code', 'name', 'mailbox', 'created_at', 'deactivated_at'],
    'customer (same code or mailbox, another id)');
}

export async function copyCredentials(ctx: CopyContext): Promise<number> {
  // Revocations first: a password changed since the last pass is a revoked row plus a new one with the same
  // user name, and the new one may only be active once the old one no longer is.
  const revoked = ctx.src.prepare('SELECT id, revoked_at FROM credentials WHERE revoked_at IS NOT NULL').all() as Row[];
  const written = await followColumn(ctx, 'credentials', 'revoked_at', revoked, 't.revoked_at IS NULL');
  return written + await copyImmutable(ctx, 'credentials', 'id', ['id', 'customer_id', 'kind', 'lookup', 'secret_hash', 'created_at', 'revoked_at'],
    'credential (an active one with the same kind and user name or key id)');
}

/** Whether the source has a column that a later migration added (a source not yet migrated lacks it). */
function hasColumn(src: Database.Database, table: string, column: string): boolean {
  return src.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE name = ?`).get(table, column) !== undefined;
}

/** The catalog: the source is the installation being moved, so its descriptions win. */
export async function copyCatalog(ctx: CopyContext, table: 'articles' | 'units'): Promise<number> {
  // The demo mark (migration 032) is 0/1 in SQLite, a boolean in PostgreSQL; a source older than 032 has none.
  const demo = table === 'articles' && hasColumn(ctx.src, 'articles', 'demo');
  const [key, columns]: [string, readonly string[]] = table === 'articles'
    ? ['codice_articolo', ['codice_articolo', 'descrizione', 'unita_misura', ...(demo ? ['demo'] : [])]]
    : ['code', ['code', 'description']];
  const set = columns.filter((col) => col !== key).map((col) => `${col} = excluded.${col}`).join(', ');
  const value = (r: Row, col: string) => (col === 'demo' ? r[col] === 1 || r[col] === 1n : r[col]);
  let after: unknown;
  let written = 0;
  for (;;) {
    const rows = page(ctx.src, { select: `SELECT ${columns.join(', ')} FROM ${table}`, key }, after, ctx.pageSize);
    if (rows.length === 0) return written;
    written += (await insertRows(ctx.c, table, columns, rows.map((r) => columns.map((col) => value(r, col))),
      `ON CONFLICT (${key}) DO UPDATE SET ${set} WHERE (${columns.map((col) => `${table}.${col}`).join(', ')}) IS DISTINCT FROM (${columns.map((col) => `excluded.${col}`).join(', ')}) RETURNING ${key}`)).length;
    after = rows[rows.length - 1]![key];
    ctx.tick(rows.length);
  }
}

const SUBMISSION_COLUMNS = ['id', 'customer_id', 'customer_code', 'channel', 'file_name', 'media_type', 'charset', 'raw', 'meta',
  'single_order', 'site', 'sites', 'connector_id', 'reserved_order_id', 'sha256', 'received_at', 'state', 'outcome', 'processed_at',
  'attempts', 'retries'] as const;
const ATTEMPT_COLUMNS = ['submission_id', 'idx', 'customer_id', 'riferimento_ordine', 'esito', 'outcome', 'received_at', 'channel'] as const;

/** A source migrated to 015 or later keeps the bytes of newer submissions in pieces (store/sqlite/bodies.ts). */
function hasChunks(src: Database.Database): boolean {
  return src.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'submission_chunks'`).get() !== undefined;
}

/** A source migrated to 022 or later may keep the bytes of uploads in the pieces streamed while they arrived. */
function hasUploadPieces(src: Database.Database): boolean {
  return src.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'upload_pieces'`).get() !== undefined;
}

/** Groups of ids whose raw bytes together stay under MAX_BATCH_BYTES (a larger file goes alone). */
function byBytes(src: Database.Database, wanted: readonly string[]): string[][] {
  const size = hasUploadPieces(src) ? SUBMISSION_SIZE_SQL : hasChunks(src) ? SUBMISSION_SIZE_SQL_015 : 'length(raw)';
  const sizes = byValues(src, `SELECT id, ${size} AS size FROM submissions`, 'id', wanted);
  const groups: string[][] = [];
  let current: string[] = [];
  let bytes = 0;
  for (const r of sizes) {
    const size = Number(r.size);
    if (current.length > 0 && bytes + size > MAX_BATCH_BYTES) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(String(r.id));
    bytes += size;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/**
 * Submissions with their raw bytes, outcomes and per-order attempts. A submission already in the target is
 * written again only when the source has processed it more often since (received → processed, or reprocessed), or
 * has put it back to received for reprocessing, so the final pass moves only what changed.
 */
export async function copySubmissions(ctx: CopyContext): Promise<number> {
  let after: unknown;
  let written = 0;
  for (;;) {
    const rows = page(ctx.src, { select: 'SELECT id, attempts, sha256, state FROM submissions', key: 'id' }, after, ctx.pageSize);
    if (rows.length === 0) return written;
    const { rows: there } = await ctx.c.query('SELECT id, attempts, sha256, state FROM submissions WHERE id = ANY($1::text[])', [ids(rows)]);
    const target = new Map((there as { id: string; attempts: number; sha256: string; state: string }[]).map((t) => [t.id, t]));
    const clashing = rows.filter((r) => target.has(String(r.id)) && target.get(String(r.id))!.sha256 !== r.sha256);
    if (clashing.length > 0) throw conflict('submission (same id, other bytes)', ids(clashing));
    const wanted = ids(rows.filter((r) => {
      const t = target.get(String(r.id));
      // Or put back to received since (an operator's reprocess whose judgement the source has not recorded yet):
      // the target must judge it again, not keep the outcome the operator set aside.
      return t === undefined || Number(r.attempts) > t.attempts
        || (Number(r.attempts) === t.attempts && r.state === 'received' && t.state !== 'received');
    }));
    for (const group of byBytes(ctx.src, wanted)) {
      written += await inTransaction(ctx.c, async () => {
        const full = byValues(ctx.src, `SELECT ${SUBMISSION_COLUMNS.join(', ')} FROM submissions`, 'id', group);
        // The bytes of a submission saved since migration 015 are in pieces beside its row (store/sqlite/bodies.ts).
        if (hasChunks(ctx.src)) {
          const streamed = hasUploadPieces(ctx.src);
          for (const r of full) r.raw = readSubmissionBody((sql) => ctx.src.prepare(sql), String(r.id), r.raw as Buffer | undefined, streamed);
        }
        const done = ids(await insertRows(ctx.c, 'submissions', SUBMISSION_COLUMNS, full.map((r) => SUBMISSION_COLUMNS.map((col) => {
          if (col === 'single_order') return r[col] === 1 || r[col] === 1n;
          return r[col];
        })), `ON CONFLICT (id) DO UPDATE SET state = excluded.state, outcome = excluded.outcome,
            processed_at = excluded.processed_at, attempts = excluded.attempts, claimed_by = NULL, lease_until = NULL
          WHERE submissions.attempts < excluded.attempts OR (submissions.attempts = excluded.attempts
            AND excluded.state = 'received' AND submissions.state <> 'received') RETURNING id`));
        if (done.length > 0) {
          await ctx.c.query('DELETE FROM order_attempts WHERE submission_id = ANY($1::text[])', [done]);
          const attempts = byValues(ctx.src, `SELECT ${ATTEMPT_COLUMNS.join(', ')} FROM order_attempts`, 'submission_id', done, 'submission_id, idx');
          await insertRows(ctx.c, 'order_attempts', ATTEMPT_COLUMNS, attempts.map((r) => ATTEMPT_COLUMNS.map((col) => r[col])), '');
        }
        return done.length;
      });
    }
    after = rows[rows.length - 1]!.id;
    ctx.tick(rows.length);
  }
}

const ORDER_COLUMNS = ['id', 'customer_id', 'codice_cliente', 'riferimento_ordine', 'numero_ordine', 'year', 'seq', 'data_ordine',
  'data_consegna', 'content_hash', 'submission_id', 'channel', 'site', 'registered_at'] as const;
const LINE_COLUMNS = ['order_id', 'idx', 'codice_articolo', 'quantita', 'unita_misura'] as const;
/** Orders whose lines are read from the source at once. */
const LINE_ORDERS = 50;

/** The current version of an order (migration 034): what a change rewrites. */
const VERSION_COLUMNS = ['versione', 'version_at', 'version_channel'] as const;

/**
 * Orders: insert the missing ones with their lines, in one transaction per page. Two things of an order change: its
 * production state (migration 007) and, with each change the customer makes, its content (migration 034): both
 * follow the source.
 */
export async function copyOrders(ctx: CopyContext): Promise<number> {
  let after: unknown;
  let written = 0;
  const production = hasProductionState(ctx.src);
  const versioned = hasColumn(ctx.src, 'orders', 'versione');
  // The note (migration 033): a source older than it has none.
  const columns: readonly string[] = [
    ...ORDER_COLUMNS, ...(hasColumn(ctx.src, 'orders', 'note') ? ['note'] : []), ...(versioned ? VERSION_COLUMNS : []),
  ];
  for (;;) {
    const rows = page(ctx.src, { select: `SELECT ${columns.join(', ')}${production ? ', production_state' : ''} FROM orders`, key: 'id' }, after, ctx.pageSize);
    if (rows.length === 0) return written;
    written += await inTransaction(ctx.c, async () => {
      const changed = (production ? await copyProductionStates(ctx, rows) : 0) + (versioned ? await copyNewVersions(ctx, rows) : 0);
      const done = ids(await insertRows(ctx.c, 'orders', columns, rows.map((r) => columns.map((col) => r[col])),
        'ON CONFLICT DO NOTHING RETURNING id'));
      await verify(ctx.c, 'orders', 'id', ids(rows), 'order (same codice_cliente and riferimento_ordine, or same numero_ordine)');
      // A few orders at a time: one order may have thousands of lines, and they are held in memory.
      for (let i = 0; i < done.length; i += LINE_ORDERS) {
        const lines = byValues(ctx.src, `SELECT ${LINE_COLUMNS.join(', ')} FROM order_lines`, 'order_id', done.slice(i, i + LINE_ORDERS), 'order_id, idx');
        await insertRows(ctx.c, 'order_lines', LINE_COLUMNS, lines.map((r) => LINE_COLUMNS.map((col) => r[col])), '');
      }
      return done.length + changed;
    });
    after = rows[rows.length - 1]!.id;
    ctx.tick(rows.length);
  }
}

/**
 * Orders of this page the target holds at an older version than the source (changed since an earlier copy): their
 * content and lines are rewritten from the source; resolves with how many. The superseded versions are rows of
 * order_versions, copied by their own spec.
 */
async function copyNewVersions(ctx: CopyContext, rows: readonly Row[]): Promise<number> {
  const changed = rows.filter((r) => Number(r.versione) > 1);
  if (changed.length === 0) return 0;
  const { rows: target } = await ctx.c.query<{ id: string; versione: number }>('SELECT id, versione FROM orders WHERE id = ANY($1::text[])', [ids(changed)]);
  const behind = new Map(target.map((t) => [t.id, t.versione]));
  const stale = changed.filter((r) => (behind.get(String(r.id)) ?? Infinity) < Number(r.versione));
  for (const r of stale) {
    await ctx.c.query(`UPDATE orders SET versione = $2, version_at = $3, version_channel = $4, data_ordine = $5, data_consegna = $6,
      note = $7, content_hash = $8 WHERE id = $1`,
    [r.id, r.versione, r.version_at, r.version_channel, r.data_ordine, r.data_consegna, r.note ?? null, r.content_hash]);
    await ctx.c.query('DELETE FROM order_lines WHERE order_id = $1', [r.id]);
    const lines = byValues(ctx.src, `SELECT ${LINE_COLUMNS.join(', ')} FROM order_lines`, 'order_id', [r.id], 'order_id, idx');
    await insertRows(ctx.c, 'order_lines', LINE_COLUMNS, lines.map((l) => LINE_COLUMNS.map((col) => l[col])), '');
  }
  return stale.length;
}

/** Numbering continues after the highest number either side has used, so no numero_ordine is ever given twice. */
export async function copySequences(ctx: CopyContext): Promise<number> {
  const rows = ctx.src.prepare('SELECT year, last FROM order_sequences ORDER BY year').all() as Row[];
  if (rows.length === 0) return 0;
  const done = await insertRows(ctx.c, 'order_sequences', ['year', 'last'], rows.map((r) => [r.year, r.last]),
    `ON CONFLICT (year) DO UPDATE SET last = excluded.last WHERE order_sequences.last < excluded.last RETURNING year`);
  // The numbers PostgreSQL hands out come from its per-year sequences (store/postgres/numbering.ts): raise any that
  // exists already to the copied floor (those not made yet will start above it).
  await ctx.c.query('SELECT order_number_sequence(y) FROM unnest($1::int[]) AS y', [rows.map((r) => r.year)]);
  ctx.tick(rows.length);
  return done.length;
}
