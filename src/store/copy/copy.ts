/**
 * `order-intake db copy`: moves a SQLite installation into PostgreSQL without losing a submission.
 *
 * The source is read in one read transaction, so each run copies one consistent snapshot even while the SQLite
 * service keeps working; every write is idempotent, so the copy can run while the service still takes orders
 * and be run again after the service is stopped: that final pass moves only what arrived or changed since.
 * Ids, numero_ordine values, timestamps and raw bytes are kept exactly (sealed IMAP passwords too: the target needs
 * the same INTAKE_SECRET_KEY). Before writing anything, the copy checks that the target holds no different customer
 * or order under the same identity, and refuses if it does. Ids are text; PostgreSQL numbers orders from one
 * sequence per year, which the copy raises above the copied order_sequences floor (copySequences).
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { PoolClient } from 'pg';
import { IntakeError } from '../../domain/errors.ts';
import { checkColumns, copyTable } from './generic.ts';
import { SPEC_TABLES } from './list.ts';
import { copyEvents } from './outbox.ts';
import { page, type CopyContext, type Row } from './sql.ts';
import {
  copyCatalog, copyCredentials, copyCustomers, copyOrders, copySequences, copySubmissions,
} from './tables.ts';
import { checkKnown, migrationsDir, readMigrations } from '../common/migrate.ts';
import { openPostgresStore } from '../postgres/store.ts';

interface Step {
  table: string;
  run: (ctx: CopyContext) => Promise<number>;
}

/**
 * What the copy moves, in the order foreign keys need (attempts travel with submissions, lines with orders): the
 * tables with rules of their own first, then those described by a spec (copy/list.ts) that the source has.
 */
const FIXED_STEPS: readonly Step[] = [
  { table: 'customers', run: copyCustomers },
  { table: 'credentials', run: copyCredentials },
  { table: 'articles', run: (ctx: CopyContext) => copyCatalog(ctx, 'articles') },
  { table: 'units', run: (ctx: CopyContext) => copyCatalog(ctx, 'units') },
  { table: 'submissions', run: copySubmissions },
  { table: 'orders', run: copyOrders },
  { table: 'order_sequences', run: copySequences },
];
const CARRIED = ['order_attempts', 'order_lines', 'submission_chunks', 'upload_pieces'];
/** Bookkeeping of one database and leases of running processes: meaningless in another database. */
const NOT_COPIED = ['schema_migrations', 'leases', 'instances', 'web_sessions',
  // Uploads under way on the source (or cut there): their pieces are the source's until a submission adopts them.
  'upload_staging',
  // Webhook and export subscribers hold cursors into this database's event stream and a secret sealed for it; the
  // operator adds them again on the new database (docs/operators/webhooks-and-export.md).
  'handoff_subscribers', 'handoff_deliveries',
  // Retention's watermark is a position in this engine's event stream (a seq on SQLite, a transaction and seq on
  // PostgreSQL); the events are copied with new positions, and feed cursors do not carry over between engines.
  'order_events_pruned'];

/** Source rows per page: one PostgreSQL transaction each. */
const DEFAULT_PAGE = 500;
/** Clashes listed in the refusal; the count says how many more. */
const SHOWN_CLASHES = 10;

export interface CopyProgress {
  table: string;
  /** Source rows done so far, over all tables. */
  done: number;
  total: number;
}

export interface CopyResult {
  /** Per table: rows in the source, and rows this run wrote (inserted or updated) in the target. */
  tables: { table: string; rows: number; written: number }[];
}

export interface CopyOptions {
  from: string;
  to: string;
  onProgress?: (p: CopyProgress) => void;
  pageSize?: number;
}

function openSource(file: string): Database.Database {
  if (!existsSync(file)) throw new IntakeError('NOT_FOUND', `there is no SQLite database at ${file}`);
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
  } catch (e) {
    throw new Error(`cannot open ${file} as a SQLite database: ${(e as Error).message}`, { cause: e });
  }
  return db;
}

function tablesOf(db: Database.Database): Set<string> {
  return new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as { name: string }[])
    .map((r) => r.name));
}

function stepsFor(db: Database.Database): Step[] {
  const present = tablesOf(db);
  return [
    ...FIXED_STEPS,
    ...(present.has('order_events') ? [{ table: 'order_events', run: copyEvents }] : []),
    ...SPEC_TABLES.filter((spec) => present.has(spec.table)).map((spec) => ({ table: spec.table, run: (ctx: CopyContext) => copyTable(ctx, spec) })),
  ];
}

async function checkSource(db: Database.Database, file: string): Promise<void> {
  let versions: number[];
  try {
    versions = (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version);
  } catch {
    throw new Error(`${file} is not an order-intake database (it has no schema_migrations table)`);
  }
  if (!versions.includes(1)) throw new Error(`${file} is not an order-intake database (its schema was never created)`);
  checkKnown(versions, await readMigrations(migrationsDir('sqlite')));
  const present = tablesOf(db);
  for (const spec of SPEC_TABLES) if (present.has(spec.table)) checkColumns(db, spec, file);
  const known = new Set<string>([...FIXED_STEPS.map((s) => s.table), 'order_events', ...SPEC_TABLES.map((s) => s.table), ...CARRIED, ...NOT_COPIED]);
  const tables = [...present].filter((name) => !known.has(name));
  // Data this version cannot carry over would be lost on the switch: refuse rather than copy most of it.
  const holding = tables.filter((name) => db.prepare(`SELECT 1 FROM "${name.replace(/"/g, '""')}" LIMIT 1`).get() !== undefined);
  if (holding.length > 0) {
    throw new Error(`${file} holds data in ${holding.join(', ')}, which this version of db copy does not copy; nothing was copied`);
  }
}

/** Customers and orders already in the target under the same identity but another id: listed, before any write. */
async function clashes(src: Database.Database, c: PoolClient, pageSize: number): Promise<string[]> {
  const found: string[] = [];
  const customers = src.prepare('SELECT id, code, mailbox FROM customers ORDER BY id').all() as Row[];
  for (let i = 0; i < customers.length; i += pageSize) {
    const part = customers.slice(i, i + pageSize);
    const { rows } = await c.query(
      `SELECT s.code FROM unnest($1::text[], $2::text[], $3::text[]) AS s(id, code, mailbox)
       JOIN customers t ON (t.code = s.code OR t.mailbox = s.mailbox) AND t.id <> s.id`,
      [part.map((r) => r.id), part.map((r) => r.code), part.map((r) => r.mailbox)],
    );
    for (const r of rows as { code: string }[]) found.push(`customer ${r.code} exists in the target with another id`);
  }
  let after: unknown;
  for (;;) {
    const part = page(src, { select: 'SELECT id, codice_cliente, riferimento_ordine, numero_ordine FROM orders', key: 'id' }, after, pageSize);
    if (part.length === 0) break;
    const { rows } = await c.query(
      `WITH s(id, cc, rif, num) AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]))
       SELECT s.cc, s.rif, s.num, t.numero_ordine AS theirs, t.codice_cliente AS their_cc, t.riferimento_ordine AS their_rif
       FROM s JOIN orders t ON t.codice_cliente = s.cc AND t.riferimento_ordine = s.rif AND t.id <> s.id
       UNION ALL
       SELECT s.cc, s.rif, s.num, t.numero_ordine, t.codice_cliente, t.riferimento_ordine
       FROM s JOIN orders t ON t.numero_ordine = s.num AND t.id <> s.id`,
      [part.map((r) => r.id), part.map((r) => r.codice_cliente), part.map((r) => r.riferimento_ordine), part.map((r) => r.numero_ordine)],
    );
    for (const r of rows as { cc: string; rif: string; num: string; theirs: string; their_cc: string; their_rif: string }[]) {
      found.push(`order ${r.cc}/${r.rif} is ${r.num} in the source, but the target has ${r.their_cc}/${r.their_rif} as ${r.theirs}`);
    }
    after = part[part.length - 1]!.id;
  }
  return found;
}

export async function copySqliteToPostgres(opts: CopyOptions): Promise<CopyResult> {
  const pageSize = opts.pageSize ?? DEFAULT_PAGE;
  const src = openSource(opts.from);
  try {
    await checkSource(src, opts.from);
    // The target gets this release's schema first (created when empty), as `db migrate` would.
    const target = await openPostgresStore(opts.to);
    try {
      await target.migrate();
    } finally {
      await target.close();
    }
    const pool = new pg.Pool({ connectionString: opts.to, max: 1, connectionTimeoutMillis: 10_000, application_name: 'order-intake db copy' });
    pool.on('error', () => undefined); // an idle connection dropping surfaces on the next query instead
    const c = await pool.connect();
    try {
      // One snapshot of the source for the whole run: an order is never copied without the submission it came from.
      src.exec('BEGIN');
      try {
        const steps = stepsFor(src);
        const counts = steps.map((s) => (src.prepare(`SELECT count(*) AS n FROM ${s.table}`).get() as { n: number }).n);
        const total = counts.reduce((a, b) => a + b, 0);
        const found = await clashes(src, c, pageSize);
        if (found.length > 0) {
          const more = found.length > SHOWN_CLASHES ? [`… and ${found.length - SHOWN_CLASHES} more`] : [];
          throw new IntakeError('CONFLICT', [
            `the target database already holds different data under the same identity; nothing was copied`,
            ...found.slice(0, SHOWN_CLASHES), ...more,
            'copy into an empty database, or one that only earlier copies of this same file have filled',
          ]);
        }
        let done = 0;
        opts.onProgress?.({ table: steps[0]!.table, done, total });
        const tables: CopyResult['tables'] = [];
        for (const [i, step] of steps.entries()) {
          const ctx: CopyContext = {
            src, c, pageSize,
            tick(n) {
              done += n;
              opts.onProgress?.({ table: step.table, done, total });
            },
          };
          tables.push({ table: step.table, rows: counts[i]!, written: await step.run(ctx) });
        }
        return { tables };
      } finally {
        src.exec('COMMIT');
      }
    } finally {
      c.release();
      await pool.end();
    }
  } finally {
    src.close();
  }
}
