/**
 * The embedded store: one SQLite file, better-sqlite3. Calls are synchronous underneath; the methods return
 * promises only to fit the port. Because a call runs to the end before the next one starts, transactions in
 * this process never interleave; other processes on the same file are held off by BEGIN IMMEDIATE and the
 * busy timeout.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { notFound } from '../common/refusals.ts';
import type { OrderOutcome, Outcome, RegisteredOrder, StoredSubmission } from '../../domain/types.ts';
import { checkKnown, migrationsDir, readMigrations, type Migration } from '../common/migrate.ts';
import { RECEIVED_IDS_SQL, sqliteWork } from './work.ts';
import { sqliteMailTrust } from './mail-trust.ts';
import { sqliteMail } from './mail.ts';
import { sqliteInstances } from './instances.ts';
import { sqliteConnectors } from './connectors.ts';
import { sqliteHandoff } from './handoff.ts';
import { sqliteStats } from './stats.ts';
import { sqliteWeb } from './web.ts';
import { constraint, statementCache } from './statements.ts';
import { sqliteWriter } from './writer.ts';
import { sqliteEvents, sqliteProductionHistory } from './events.ts';
import { sqliteLifecycle } from './lifecycle.ts';
import { inThreadRunner, threadRunner, type WriteRunner } from './offload.ts';
import { lockedConnection, newWriteLock } from './write-lock.ts';
import { sqliteCustomerState } from './customer-state.ts';
import { sqliteNotifications } from './notifications.ts';
import {
  checkItem, chunks, isoIn, limitOf, linesByOrder, nowIso,
  newSubmissionRow, DEFAULT_LIMIT, MAX_PENDING_BATCH, SUBMISSION_COLUMNS, toAttempt, toOrder, toSubmission, toSummary,
  type AttemptRow, type LineRow, type OrderRow, type SubmissionRow,
} from '../common/rows.ts';
import { readSubmissionBody, SUBMISSION_SIZE_SQL } from './bodies.ts';
import { checkPieceRange, stagedOf } from '../common/upload-pieces.ts';
import { channelsSql, jsonOut } from '../common/rows.ts';
import { customerOrdersSql, customerOrderTimes } from '../common/customer-orders.ts';
import { sqliteCatalog } from './catalog.ts';
import { sqlitePeppol } from './peppol.ts';
import { sqliteCustomers } from './customers.ts';
import { expandOutcome, isCompact } from '../common/outcome-form.ts';
import {
  ClaimLostError,
  type NewSubmission, type Store, type SubmissionSummary, type WriteOptions,
} from '../../domain/store/store.ts';

const ORDER_COLUMNS = `id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, data_ordine, data_consegna,
  submission_id, channel, site, registered_at, production_state, note, versione, version_at, version_channel`;

/**
 * An earlier file with the same bytes (findSubmissionBySha): single-order submissions (REST, SOAP, the portal's form)
 * are not files, and the (customer_id, sha256) index holds files only (migration 025); `single_order = 0` is the
 * term that lets SQLite take that partial index. Exported for the plan test (test/store/query-plans.test.ts).
 */
export function findBySha(byChannel: boolean): string {
  return `SELECT ${SUBMISSION_COLUMNS}, json_extract(outcome, '$.esito') AS esito, ${SUBMISSION_SIZE_SQL} AS size FROM submissions
    WHERE customer_id = @customerId AND sha256 = @sha256 AND single_order = 0 ${byChannel ? 'AND channel = @channel' : ''}
    ORDER BY received_at, id LIMIT 1`;
}

/**
 * A customer's order and latest attempt by reference (getOrderByRef, latestAttempt). Each table has one index led by
 * the reference (migration 026): the lookup seeks the reference and keeps this customer's rows, a handful at most.
 * Exported for the plan test (test/store/query-plans.test.ts).
 */
export const ORDER_BY_REF_SQL = `SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = ? AND riferimento_ordine = ?`;
/**
 * listSubmissions' statement for the filters given (@state, @customerId, @limit): one statement per combination, so
 * each can use its index (an "? IS NULL OR" filter could not). The channels are spelled with constants: the FTP/SFTP
 * window then reads the partial index of files (migration 029). length() of a BLOB reads its size from the record
 * header, not the bytes (SQLite's OPFLAG_LENGTHARG); SUBMISSION_SIZE_SQL sums the pieces' sizes (bodies.ts).
 */
export function listSubmissionsSql(f: { state: boolean; customerId: boolean; channels?: readonly string[] | undefined }): string {
  const where = [
    ...(f.state ? ['state = @state'] : []), ...(f.customerId ? ['customer_id = @customerId'] : []),
    ...(f.channels === undefined ? [] : [channelsSql(f.channels)]),
  ];
  return `SELECT ${SUBMISSION_COLUMNS}, json_extract(outcome, '$.esito') AS esito, ${SUBMISSION_SIZE_SQL} AS size FROM submissions
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY received_at DESC, id DESC LIMIT @limit`;
}

export const LATEST_ATTEMPT_SQL = `SELECT submission_id, channel, received_at, outcome FROM order_attempts
  WHERE customer_id = ? AND riferimento_ordine = ?
  ORDER BY received_at DESC, submission_id DESC, idx DESC LIMIT 1`;

/** A submissions row's values in the order of the write thread's insert (write-ops.ts SUBMISSION_INSERT). */
function submissionValues(r: ReturnType<typeof newSubmissionRow>, raw: unknown = r.raw): unknown[] {
  return [r.id, r.customer_id, r.customer_code, r.channel, r.file_name, r.media_type, r.charset, raw, r.meta,
    r.single_order ? 1 : 0, r.site, r.sites, r.connector_id, r.reserved_order_id, r.sha256, r.received_at];
}

/** A registration's result, its constraint failures named for the caller (a bug of the caller's, never input). */
async function registering<T>(run: Promise<T>): Promise<T> {
  try {
    return await run;
  } catch (e) {
    if (constraint(e, 'FOREIGNKEY')) {
      throw new Error('registerOrders: an item names a customer or submission that is not stored', { cause: e });
    }
    if (constraint(e, 'PRIMARYKEY')) throw new Error('registerOrders: an order id is already taken', { cause: e });
    throw e;
  }
}

/** Options of the embedded store; `outbox: false` (INTAKE_OUTBOX=off) writes no order events: benchmarks only. */
export interface SqliteStoreOptions {
  outbox?: boolean;
  /**
   * Run the intake path's writes on a write thread with its own connection (default, for a file), or on the
   * store's connection on the caller's thread (always so for ':memory:'). See offload.ts.
   */
  writeThread?: boolean;
  /** Tests only: instruments the write thread's connection (see ThreadData.probe). */
  writeThreadProbe?: { module: string; buffer: SharedArrayBuffer };
}

/** First line of a migration that must run with foreign keys off (see applyMigration). */
const FOREIGN_KEYS_OFF = /^-- sqlite:foreign_keys=off[ \t]*\r?\n/;

export async function openSqliteStore(file: string, opts: SqliteStoreOptions = {}): Promise<Store> {
  const outbox = opts.outbox !== false;
  const memory = file === ':memory:' || file === '';
  if (!memory) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const raw = new Database(file);
  const db = raw;
  try {
    db.pragma('journal_mode = WAL');
    // Acknowledged means on disk: every commit is fsynced, which is the point of storing before acknowledging.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Another process (the CLI during `serve`) may hold the write lock briefly; wait rather than fail.
    db.pragma('busy_timeout = 5000');
  } catch (e) {
    raw.close();
    throw e;
  }
  return sqliteStoreOn(raw, memory ? undefined : path.resolve(file), outbox, opts.writeThread !== false && !memory, opts.writeThreadProbe);
}

function sqliteStoreOn(
  raw: Database.Database, file: string | undefined, outbox: boolean, writeThread: boolean, probe?: SqliteStoreOptions['writeThreadProbe'],
): Store {
  // With a write thread, two connections write to the file: every write of this one waits for the thread's
  // transaction to end (write-lock.ts) instead of sleeping in SQLite's busy handler on the event loop.
  const lock = writeThread ? newWriteLock() : undefined;
  const locked = lock && lockedConnection(raw, lock);
  const db = locked ? locked.conn : raw;
  const q = statementCache(db);

  /** A large file's outcome is kept compact: its orders are read back from its attempts (outcome-form.ts). */
  const fullOutcome = (id: string, stored: Outcome): Outcome => (isCompact(stored)
    ? expandOutcome(stored, function* attempts() {
      const rows = q('SELECT idx, outcome FROM order_attempts WHERE submission_id = ?').iterate(id) as IterableIterator<{ idx: number; outcome: string }>;
      for (const r of rows) yield { idx: r.idx, outcome: jsonOut<OrderOutcome>(r.outcome) };
    })
    : stored);
  const withOrders = (s: StoredSubmission): StoredSubmission => (s.outcome ? { ...s, outcome: fullOutcome(s.id, s.outcome) } : s);
  // Writes of this connection (hand-off bookkeeping, production state) are group-committed: each resolves after
  // the fsync of the commit holding it, and one fsync serves every write queued meanwhile.
  const writer = locked ? sqliteWriter(db, locked.scheduleFlush) : sqliteWriter(db);
  // The intake path's writes (submission saved, orders registered, outcome recorded, with their outbox rows) and
  // the named leases: on the write thread, off the event loop, with the same group commit there.
  const runner: WriteRunner = lock && file
    ? threadRunner({ file, outbox, lock: lock.buffer, ...(probe ? { probe } : {}) })
    : inThreadRunner({ q, outbox }, writer);

  const applyInTransaction = db.transaction((m: Migration): boolean => {
    if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return false;
    db.exec(m.sql);
    if (FOREIGN_KEYS_OFF.test(m.sql)) {
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length > 0) throw new Error(`migration ${m.name} leaves ${broken.length} rows whose foreign keys point nowhere: not applied`);
    }
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, nowIso());
    return true;
  });
  /**
   * A migration that rebuilds a table others reference (SQLite changes a CHECK or a NOT NULL only so) says so on its
   * first line: foreign keys are off while it runs (dropping the old table would otherwise cascade into the rows that
   * reference it) and checked before it commits — the procedure of https://sqlite.org/lang_altertable.html#otheralter.
   * The pragma has no effect inside a transaction, hence around it.
   */
  const applyMigration = { immediate(m: Migration): boolean {
    if (!FOREIGN_KEYS_OFF.test(m.sql)) return applyInTransaction.immediate(m);
    db.pragma('foreign_keys = OFF');
    try {
      return applyInTransaction.immediate(m);
    } finally {
      db.pragma('foreign_keys = ON');
    }
  } };
  const { forget, lost: fenceOf, ...work } = sqliteWork(db, runner);

  /**
   * The fence of what a judgement writes of its outcome (completeSubmission, recordAttempts) under a claim, checked as
   * registerOrders checks its own (before the write is queued): only while no other holder has the submission. One
   * no longer received is left to the write, which writes nothing over an outcome that stands.
   */
  function fenceOutcome(heldBy: string | undefined, id: string): void {
    if (heldBy === undefined || fenceOf(heldBy, [id]).length === 0) return;
    const row = q('SELECT state FROM submissions WHERE id = ?').get(id) as { state: string } | undefined;
    if (row?.state === 'received') throw new ClaimLostError([id]);
  }

  function withLines(rows: OrderRow[]): RegisteredOrder[] {
    if (rows.length === 0) return [];
    const lines: LineRow[] = [];
    const s = q(`SELECT order_id, idx, codice_articolo, quantita, unita_misura FROM order_lines
      WHERE order_id IN (SELECT value FROM json_each(?))`);
    // A loop, not push(...rows): spreading passes every row as an argument, and an order of ~120k lines
    // overflows the call stack.
    for (const part of chunks(rows.map((r) => r.id))) for (const l of s.all(JSON.stringify(part)) as LineRow[]) lines.push(l);
    const byOrder = linesByOrder(lines);
    const history = sqliteProductionHistory(q, rows.filter((r) => r.production_state).map((r) => r.id));
    return rows.map((r) => {
      const o = toOrder(r, byOrder.get(r.id) ?? []);
      if (o.productionState) o.productionHistory = history.get(r.id) ?? [];
      return o;
    });
  }

  const store: Store = {
    kind: 'sqlite',
    ...work,
    ...sqliteMail(db),
    ...sqliteMailTrust(db),
    ...sqliteConnectors(db),
    ...sqliteInstances(db),
    ...sqliteHandoff(db, writer),
    ...sqliteLifecycle(q, writer),
    ...sqliteEvents(q, writer, (id) => {
      const r = q(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = ?`).get(id) as OrderRow | undefined;
      return r && withLines([r])[0];
    }),
    ...sqliteStats(db),
    ...sqliteWeb(db),
    ...sqliteCatalog(db),
    ...sqlitePeppol(db),
    ...sqliteCustomerState(db),
    ...sqliteNotifications(db),
    ...sqliteCustomers(db),

    async migrate() {
      const list = await readMigrations(migrationsDir('sqlite'));
      db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
      const applied = (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map((r) => r.version);
      checkKnown(applied, list);
      return list.filter((m) => applyMigration.immediate(m)).map((m) => m.name);
    },

    async ping() {
      db.prepare('SELECT 1').get();
    },

    async close() {
      if (!raw.open) return;
      // Writes still queued are committed (and their callers answered) before the connections go.
      await runner.close();
      writer.flush();
      raw.close();
    },

    async stageUploadPieces(uploadId, piece) {
      checkPieceRange(uploadId, piece);
      // Durable when it resolves: the acknowledgement of the upload then only waits for the rest of the file.
      await runner.run('stageUploadPieces', [uploadId, piece.file, piece.offset, piece.length, new Date().toISOString()]);
    },

    async discardStagedUpload(uploadId) {
      await runner.run('discardStagedUpload', [uploadId], false);
    },

    async sweepStagedUploads(touchedBefore) {
      return runner.run('sweepStagedUploads', [isoIn(touchedBefore, 'touchedBefore')], false);
    },

    async saveSubmission(s: NewSubmission, opts?: WriteOptions): Promise<StoredSubmission> {
      const r = newSubmissionRow(s);
      const staged = stagedOf(s);
      const raw = s.rawFile ? { file: s.rawFile.path, size: s.rawFile.size, ...(staged ? { staged: staged.bytes } : {}) } : r.raw;
      // Resolves after the commit's fsync (unless the caller said a later write will do it).
      await runner.run('saveSubmission', [submissionValues(r, raw)], opts?.durable !== false);
      return s.rawFile ? { ...toSubmission(r), rawFile: s.rawFile } : toSubmission(r);
    },

    async saveSingleOrder(s, judged, processedAt) {
      if ('item' in judged) checkItem(judged.item, 0);
      const r = newSubmissionRow(s);
      // Saved already processed: never received in the table, so there is nothing to claim. Durable when it resolves:
      // it is the answer's only write.
      return registering(runner.run('saveSingleOrder', [submissionValues(r), judged, isoIn(processedAt, 'processedAt')]));
    },

    async getSubmission(id) {
      const r = q(`SELECT ${SUBMISSION_COLUMNS}, raw, outcome FROM submissions WHERE id = ?`).get(id) as SubmissionRow | undefined;
      return r && withOrders(toSubmission({ ...r, raw: readSubmissionBody(q, r.id, r.raw) }));
    },

    async listSubmissions({ state, customerId, channels, limit }): Promise<SubmissionSummary[]> {
      const rows = q(listSubmissionsSql({ state: state !== undefined, customerId: customerId !== undefined, channels }))
        .all({ ...(state === undefined ? {} : { state }), ...(customerId === undefined ? {} : { customerId }), limit: limitOf(limit) }) as SubmissionRow[];
      return rows.map(toSummary);
    },

    async findSubmissionBySha(customerId, sha256, channel) {
      const r = q(findBySha(channel !== undefined)).get({ customerId, sha256, ...(channel === undefined ? {} : { channel }) }) as
        | SubmissionRow
        | undefined;
      return r && toSummary(r);
    },

    async getSubmissionOutcomes(customerId, ids) {
      const rows = q(`SELECT id, outcome FROM submissions
        WHERE customer_id = ? AND outcome IS NOT NULL AND id IN (SELECT value FROM json_each(?))`)
        .all(customerId, JSON.stringify(ids)) as { id: string; outcome: string }[];
      return new Map(rows.map((r) => [r.id, fullOutcome(r.id, jsonOut<Outcome>(r.outcome))]));
    },

    async findSubmissionByReservedOrderId(customerId, orderId) {
      const r = q(`SELECT ${SUBMISSION_COLUMNS}, raw, outcome FROM submissions
        WHERE customer_id = ? AND reserved_order_id = ? ORDER BY received_at, id LIMIT 1`).get(customerId, orderId) as
        | SubmissionRow
        | undefined;
      return r && withOrders(toSubmission({ ...r, raw: readSubmissionBody(q, r.id, r.raw) }));
    },

    async pendingSubmissionIds(limit) {
      const rows = q(RECEIVED_IDS_SQL)
        .all(limitOf(limit, DEFAULT_LIMIT, MAX_PENDING_BATCH)) as { id: string }[];
      return rows.map((r) => r.id);
    },

    async completeSubmission(id, state, outcome, processedAt, opts) {
      const { heldBy, ...rest } = opts ?? {};
      fenceOutcome(heldBy, id);
      const recorded = await runner.run('completeSubmission', rest.attemptsRecorded ? [id, state, outcome, processedAt, rest] : [id, state, outcome, processedAt]);
      forget(id);
      return recorded;
    },

    async resetSubmission(id) {
      const { changes } = q(`UPDATE submissions SET state = 'received', outcome = NULL, retries = 0 WHERE id = ?`).run(id);
      if (changes === 0) throw notFound.submission(id);
      forget(id);
    },

    async countRetry(id) {
      const r = q('UPDATE submissions SET retries = retries + 1 WHERE id = ? RETURNING retries').get(id) as { retries: number } | undefined;
      if (!r) throw notFound.submission(id);
      return Number(r.retries);
    },

    async recordAttempts(submissionId, orders, opts) {
      fenceOutcome(opts?.heldBy, submissionId);
      if (orders.length > 0) await runner.run('recordAttempts', [submissionId, orders], opts?.durable !== false);
    },

    async registerOrders(items, opts) {
      items.forEach(checkItem);
      if (opts?.heldBy !== undefined) {
        // Checked before the write is queued, not inside it: one process serves the file and judges a submission once
        // at a time (intake.ts), so only another holder of this process (tests run several) could take over between.
        const lost = fenceOf(opts.heldBy, new Set(items.map((i) => i.submissionId)));
        if (lost.length > 0) throw new ClaimLostError(lost);
      }
      return registering(runner.run('registerOrders', [items], opts?.durable !== false));
    },

    async registeredBySubmission(submissionId, references) {
      const s = q(`SELECT codice_cliente, riferimento_ordine FROM orders
        WHERE submission_id = ? AND riferimento_ordine IN (SELECT value FROM json_each(?))`);
      const found: { codice_cliente: string; riferimento_ordine: string }[] = [];
      for (const part of chunks([...new Set(references)])) {
        for (const r of s.all(submissionId, JSON.stringify(part)) as typeof found) found.push(r);
      }
      return found;
    },


    async getOrder(customerId, id) {
      const r = q(`SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = ? AND id = ?`).get(customerId, id) as OrderRow | undefined;
      return r && withLines([r])[0];
    },

    async getOrders(customerId, ids) {
      const s = q(`SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = ? AND id IN (SELECT value FROM json_each(?))`);
      const rows: OrderRow[] = [];
      for (const part of chunks([...new Set(ids)])) for (const r of s.all(customerId, JSON.stringify(part)) as OrderRow[]) rows.push(r);
      return withLines(rows);
    },

    async getOrderByRef(customerId, riferimento) {
      const r = q(ORDER_BY_REF_SQL).get(customerId, riferimento) as OrderRow | undefined;
      return r && withLines([r])[0];
    },

    async listOrders({ customerId, limit }) {
      const rows = (customerId === undefined
        ? q(`SELECT ${ORDER_COLUMNS} FROM orders ORDER BY registered_at DESC, numero_ordine DESC LIMIT ?`).all(limitOf(limit))
        : q(`SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = ? ORDER BY registered_at DESC, numero_ordine DESC LIMIT ?`)
          .all(customerId, limitOf(limit))) as OrderRow[];
      return withLines(rows);
    },

    async listCustomerOrders(page) {
      const values: unknown[] = [];
      const sql = customerOrdersSql(customerOrderTimes(page), ORDER_COLUMNS, (v) => {
        values.push(v);
        return '?';
      });
      return withLines(q(sql).all(...values) as OrderRow[]);
    },

    async latestAttempt(customerId, riferimento) {
      const r = q(LATEST_ATTEMPT_SQL).get(customerId, riferimento) as AttemptRow | undefined;
      return r && toAttempt(r);
    },
  };
  return store;
}
