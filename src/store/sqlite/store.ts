/**
 * The embedded store: one SQLite file, better-sqlite3. Calls are synchronous underneath; the methods return
 * promises only to fit the port. Because a call runs to the end before the next one starts, transactions in
 * this process never interleave; other processes on the same file are held off by BEGIN IMMEDIATE and the
 * busy timeout.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { IntakeError } from '../../domain/errors.ts';
import type { Channel, Outcome, RegisteredOrder, StoredSubmission, SubmissionState } from '../../domain/types.ts';
import { checkKnown, migrationsDir, readMigrations, type Migration } from '../common/migrate.ts';
import { sqliteWork } from './work.ts';
import { sqliteMail } from './mail.ts';
import { sqliteInstances } from './instances.ts';
import { sqliteConnectors } from './connectors.ts';
import { sqliteHandoff } from './handoff.ts';
import { sqliteStats } from './stats.ts';
import { sqliteWeb } from './web.ts';
import { statementCache } from './statements.ts';
import { sqliteWriter } from './writer.ts';
import { insertEvents, sqliteEvents, sqliteProductionHistory } from './events.ts';
import { refusalEvents, registeredEvent } from '../../domain/store/events.ts';
import {
  attemptRows, checkCatalog, checkItem, chunks, decide, isoIn, lastWins, limitOf, linesByOrder, lowerMailbox, nowIso,
  newSubmissionRow, numeroOrdine, DEFAULT_LIMIT, MAX_PENDING_BATCH, SUBMISSION_COLUMNS, toAttempt, toCredential, toCustomer, toOrder, toSubmission,
  toSummary, upperUnit,
  type AttemptRow, type CredentialRow, type CustomerRow, type ExistingOrder, type LineRow, type OrderRow,
  type SubmissionRow,
} from '../common/rows.ts';
import { jsonOut } from '../common/rows.ts';
import type {
  Article, Credential, CredentialKind, Customer, NewSubmission, RegisterItem, RegisterResult, Store, SubmissionSummary,
  Unit, WriteOptions,
} from '../../domain/store/store.ts';

const ORDER_COLUMNS = `id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, data_ordine, data_consegna,
  submission_id, channel, site, registered_at, production_state`;

function constraint(e: unknown, kind: 'UNIQUE' | 'PRIMARYKEY' | 'FOREIGNKEY'): boolean {
  return (e as { code?: unknown }).code === `SQLITE_CONSTRAINT_${kind}`;
}

/** Options of the embedded store; `outbox: false` (INTAKE_OUTBOX=off) writes no order events: benchmarks only. */
export interface SqliteStoreOptions {
  outbox?: boolean;
}

export async function openSqliteStore(file: string, opts: SqliteStoreOptions = {}): Promise<Store> {
  const outbox = opts.outbox !== false;
  const memory = file === ':memory:' || file === '';
  if (!memory) mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    // Acknowledged means on disk: every commit is fsynced, which is the point of storing before acknowledging.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    // Another process (the CLI during `serve`) may hold the write lock briefly; wait rather than fail.
    db.pragma('busy_timeout = 5000');
  } catch (e) {
    db.close();
    throw e;
  }

  const q = statementCache(db);
  // The writes of the intake path (submission saved, orders registered, outcome recorded) are group-committed:
  // each resolves after the fsync of the commit holding it, and one fsync serves every write queued meanwhile.
  const writer = sqliteWriter(db);

  const applyMigration = db.transaction((m: Migration): boolean => {
    if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return false;
    db.exec(m.sql);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, nowIso());
    return true;
  });
  const { forget, ...work } = sqliteWork(db);

  function existing(codice: string, ref: string): ExistingOrder | undefined {
    return q(`SELECT id, numero_ordine, submission_id, content_hash FROM orders
      WHERE codice_cliente = ? AND riferimento_ordine = ?`).get(codice, ref) as ExistingOrder | undefined;
  }

  function registerOne(item: RegisterItem): RegisterResult {
    const o = item.order;
    const found = existing(o.codice_cliente, o.riferimento_ordine);
    if (found) return decide(found, item);
    const { last } = q(`INSERT INTO order_sequences (year, last) VALUES (?, 1)
      ON CONFLICT (year) DO UPDATE SET last = last + 1 RETURNING last`).get(item.year) as { last: number };
    const numero = numeroOrdine(item.year, last);
    q(`INSERT INTO orders (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine,
      data_consegna, content_hash, submission_id, channel, site, registered_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      item.id, item.customerId, o.codice_cliente, o.riferimento_ordine, numero, item.year, last, o.data_ordine,
      o.data_consegna ?? null, item.contentHash, item.submissionId, item.channel, item.site ?? null,
      isoIn(item.registeredAt, 'registeredAt'),
    );
    const line = q('INSERT INTO order_lines (order_id, idx, codice_articolo, quantita, unita_misura) VALUES (?, ?, ?, ?, ?)');
    o.righe.forEach((r, i) => line.run(item.id, i, r.codice_articolo, r.quantita, r.unita_misura));
    // The outbox: in the same transaction (the writer's), so the event exists exactly when the order does.
    if (outbox) insertEvents(q, [registeredEvent(item, numero, isoIn(item.registeredAt, 'registeredAt'))]);
    return { status: 'created', id_ordine: item.id, numero_ordine: numero };
  }

  // Run by the writer: its savepoint makes each call all-or-nothing, inside the group's transaction.
  const registerAll = (items: readonly RegisterItem[]) => items.map(registerOne);

  const complete = (id: string, state: SubmissionState, outcome: Outcome, processedAt: string) => {
    const sub = q('SELECT customer_id, customer_code, channel, received_at, reserved_order_id FROM submissions WHERE id = ?').get(id) as
      | { customer_id: string; customer_code: string; channel: Channel; received_at: string; reserved_order_id: string | null }
      | undefined;
    if (!sub) throw new IntakeError('NOT_FOUND', `submission ${id} not found`);
    q(`UPDATE submissions SET state = ?, outcome = ?, processed_at = ?, attempts = attempts + 1 WHERE id = ?`)
      .run(state, JSON.stringify(outcome), isoIn(processedAt, 'processedAt'), id);
    q('DELETE FROM order_attempts WHERE submission_id = ?').run(id);
    const ins = q(`INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome,
      received_at, channel) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const a of attemptRows(outcome)) {
      ins.run(id, a.idx, a.customer ?? sub.customer_id, a.riferimento, a.esito, a.json, sub.received_at, sub.channel);
    }
    // The outbox: refusals are known only now, and are recorded with the outcome that states them.
    if (outbox) insertEvents(q, refusalEvents(outcome, {
      customerId: sub.customer_id, customerCode: sub.customer_code, channel: sub.channel, receivedAt: sub.received_at,
      reservedOrderId: sub.reserved_order_id ?? undefined,
    }, isoIn(processedAt, 'processedAt')));
  };

  const upsertArticleBatch = db.transaction((rows: readonly Article[]) => {
    const s = q(`INSERT INTO articles (codice_articolo, descrizione, unita_misura) VALUES (?, ?, ?)
      ON CONFLICT (codice_articolo) DO UPDATE SET descrizione = excluded.descrizione, unita_misura = excluded.unita_misura`);
    for (const r of rows) s.run(r.codice_articolo, r.descrizione, r.unita_misura);
  });

  const upsertUnitBatch = db.transaction((rows: readonly Unit[]) => {
    const s = q(`INSERT INTO units (code, description) VALUES (?, ?)
      ON CONFLICT (code) DO UPDATE SET description = excluded.description`);
    for (const r of rows) s.run(upperUnit(r.code), r.description);
  });

  /** Codes asked for that exist; `column` and `table` are constants of this file, never input. */
  function known(table: string, column: string, codes: readonly string[], norm: (c: string) => string): Set<string> {
    const wanted = [...new Set(codes.map(norm))];
    const found = new Set<string>();
    // json_each lets one prepared statement take any number of codes in a single parameter.
    const s = q(`SELECT ${column} AS code FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`);
    for (const part of chunks(wanted)) {
      for (const row of s.all(JSON.stringify(part)) as { code: string }[]) found.add(row.code);
    }
    return new Set(codes.filter((c) => found.has(norm(c))));
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
    ...sqliteConnectors(db),
    ...sqliteInstances(db),
    ...sqliteHandoff(db, writer),
    ...sqliteEvents(q, writer, (id) => {
      const r = q(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = ?`).get(id) as OrderRow | undefined;
      return r && withLines([r])[0];
    }),
    ...sqliteStats(db),
    ...sqliteWeb(db),

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
      if (!db.open) return;
      // Writes still queued are committed (and their callers answered) before the connection goes.
      writer.flush();
      db.close();
    },

    async createCustomer(c) {
      const customer: Customer = {
        id: c.id, code: c.code, name: c.name, mailbox: lowerMailbox(c.mailbox),
        createdAt: isoIn(c.createdAt ?? nowIso(), 'createdAt'),
      };
      try {
        q('INSERT INTO customers (id, code, name, mailbox, created_at) VALUES (?, ?, ?, ?, ?)')
          .run(customer.id, customer.code, customer.name, customer.mailbox, customer.createdAt);
      } catch (e) {
        if (constraint(e, 'UNIQUE') || constraint(e, 'PRIMARYKEY')) {
          throw new IntakeError('CONFLICT', `a customer with code ${c.code}, mailbox ${customer.mailbox} or id ${c.id} already exists`);
        }
        throw e;
      }
      return customer;
    },

    async getCustomer(id) {
      const r = q('SELECT * FROM customers WHERE id = ?').get(id) as CustomerRow | undefined;
      return r && toCustomer(r);
    },

    async getCustomerByCode(code) {
      const r = q('SELECT * FROM customers WHERE code = ?').get(code) as CustomerRow | undefined;
      return r && toCustomer(r);
    },

    async getCustomerByMailbox(address) {
      const r = q('SELECT * FROM customers WHERE mailbox = ?').get(lowerMailbox(address)) as CustomerRow | undefined;
      return r && toCustomer(r);
    },

    async listCustomers() {
      return (q('SELECT * FROM customers ORDER BY code').all() as CustomerRow[]).map(toCustomer);
    },

    async addCredential(c) {
      try {
        q(`INSERT INTO credentials (id, customer_id, kind, lookup, secret_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
          .run(c.id, c.customerId, c.kind, c.lookup, c.secretHash, isoIn(c.createdAt ?? nowIso(), 'createdAt'));
      } catch (e) {
        if (constraint(e, 'FOREIGNKEY')) throw new IntakeError('NOT_FOUND', `customer ${c.customerId} not found`);
        if (constraint(e, 'UNIQUE') || constraint(e, 'PRIMARYKEY')) {
          throw new IntakeError('CONFLICT', `an active ${c.kind} credential "${c.lookup}" already exists`);
        }
        throw e;
      }
    },

    async findCredential(kind: CredentialKind, lookup: string): Promise<Credential | undefined> {
      const r = q('SELECT * FROM credentials WHERE kind = ? AND lookup = ? AND revoked_at IS NULL').get(kind, lookup) as
        | CredentialRow
        | undefined;
      return r && toCredential(r);
    },

    async revokeCredentials(customerId, kind) {
      return q('UPDATE credentials SET revoked_at = ? WHERE customer_id = ? AND kind = ? AND revoked_at IS NULL')
        .run(nowIso(), customerId, kind).changes;
    },

    async upsertArticles(rows) {
      checkCatalog('article', rows.map((r) => [r.codice_articolo, r.descrizione, r.unita_misura]));
      upsertArticleBatch.immediate(lastWins(rows, (r) => r.codice_articolo));
    },

    async upsertUnits(rows) {
      checkCatalog('unit', rows.map((r) => [r.code, r.description]));
      upsertUnitBatch.immediate(lastWins(rows, (r) => upperUnit(r.code)));
    },

    async knownArticles(codes) {
      return known('articles', 'codice_articolo', codes, (c) => c);
    },

    async knownUnits(codes) {
      return known('units', 'code', codes, upperUnit);
    },

    async countArticles() {
      return (q('SELECT count(*) AS n FROM articles').get() as { n: number }).n;
    },

    async listUnits() {
      return q('SELECT code, description FROM units ORDER BY code').all() as Unit[];
    },

    async saveSubmission(s: NewSubmission, opts?: WriteOptions): Promise<StoredSubmission> {
      const r = newSubmissionRow(s);
      const insert = q(`INSERT INTO submissions (id, customer_id, customer_code, channel, file_name, media_type, charset,
        raw, meta, single_order, site, sites, connector_id, reserved_order_id, sha256, received_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      // Resolves after the commit's fsync (unless the caller said a later write will do it).
      await writer.write(() => insert.run(
        r.id, r.customer_id, r.customer_code, r.channel, r.file_name, r.media_type, r.charset, r.raw, r.meta,
        r.single_order ? 1 : 0, r.site, r.sites, r.connector_id, r.reserved_order_id, r.sha256, r.received_at,
      ), opts?.durable !== false);
      return toSubmission(r);
    },

    async getSubmission(id) {
      const r = q(`SELECT ${SUBMISSION_COLUMNS}, raw, outcome FROM submissions WHERE id = ?`).get(id) as SubmissionRow | undefined;
      return r && toSubmission(r);
    },

    async listSubmissions({ state, customerId, limit }): Promise<SubmissionSummary[]> {
      // One statement per filter combination, so each can use its index (an "? IS NULL OR" filter could not).
      const where = [state === undefined ? '' : 'state = @state', customerId === undefined ? '' : 'customer_id = @customerId']
        .filter(Boolean);
      // length() of a BLOB reads its size from the record header, not the bytes (SQLite's OPFLAG_LENGTHARG).
      const rows = q(`SELECT ${SUBMISSION_COLUMNS}, json_extract(outcome, '$.esito') AS esito, length(raw) AS size FROM submissions
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY received_at DESC, id DESC LIMIT @limit`)
        .all({ ...(state === undefined ? {} : { state }), ...(customerId === undefined ? {} : { customerId }), limit: limitOf(limit) }) as SubmissionRow[];
      return rows.map(toSummary);
    },

    async findSubmissionBySha(customerId, sha256, channel) {
      const r = q(`SELECT ${SUBMISSION_COLUMNS}, json_extract(outcome, '$.esito') AS esito, length(raw) AS size FROM submissions
        WHERE customer_id = @customerId AND sha256 = @sha256 ${channel === undefined ? '' : 'AND channel = @channel'}
        ORDER BY received_at, id LIMIT 1`).get({ customerId, sha256, ...(channel === undefined ? {} : { channel }) }) as
        | SubmissionRow
        | undefined;
      return r && toSummary(r);
    },

    async getSubmissionOutcomes(customerId, ids) {
      const rows = q(`SELECT id, outcome FROM submissions
        WHERE customer_id = ? AND outcome IS NOT NULL AND id IN (SELECT value FROM json_each(?))`)
        .all(customerId, JSON.stringify(ids)) as { id: string; outcome: string }[];
      return new Map(rows.map((r) => [r.id, jsonOut<Outcome>(r.outcome)]));
    },

    async findSubmissionByReservedOrderId(customerId, orderId) {
      const r = q(`SELECT ${SUBMISSION_COLUMNS}, raw, outcome FROM submissions
        WHERE customer_id = ? AND reserved_order_id = ? ORDER BY received_at, id LIMIT 1`).get(customerId, orderId) as
        | SubmissionRow
        | undefined;
      return r && toSubmission(r);
    },

    async pendingSubmissionIds(limit) {
      const rows = q(`SELECT id FROM submissions WHERE state = 'received' ORDER BY received_at, id LIMIT ?`)
        .all(limitOf(limit, DEFAULT_LIMIT, MAX_PENDING_BATCH)) as { id: string }[];
      return rows.map((r) => r.id);
    },

    async completeSubmission(id, state, outcome, processedAt) {
      await writer.write(() => complete(id, state, outcome, processedAt));
      forget(id);
    },

    async resetSubmission(id) {
      const { changes } = q(`UPDATE submissions SET state = 'received', outcome = NULL, retries = 0 WHERE id = ?`).run(id);
      if (changes === 0) throw new IntakeError('NOT_FOUND', `submission ${id} not found`);
      forget(id);
    },

    async countRetry(id) {
      const r = q('UPDATE submissions SET retries = retries + 1 WHERE id = ? RETURNING retries').get(id) as { retries: number } | undefined;
      if (!r) throw new IntakeError('NOT_FOUND', `submission ${id} not found`);
      return Number(r.retries);
    },

    async registerOrders(items, opts) {
      items.forEach(checkItem);
      try {
        return await writer.write(() => registerAll(items), opts?.durable !== false);
      } catch (e) {
        if (constraint(e, 'FOREIGNKEY')) {
          throw new Error('registerOrders: an item names a customer or submission that is not stored', { cause: e });
        }
        if (constraint(e, 'PRIMARYKEY')) throw new Error('registerOrders: an order id is already taken', { cause: e });
        throw e;
      }
    },

    async getOrder(customerId, id) {
      const r = q(`SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = ? AND id = ?`).get(customerId, id) as OrderRow | undefined;
      return r && withLines([r])[0];
    },

    async getOrderByRef(customerId, riferimento) {
      const r = q(`SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = ? AND riferimento_ordine = ?`)
        .get(customerId, riferimento) as OrderRow | undefined;
      return r && withLines([r])[0];
    },

    async listOrders({ customerId, limit }) {
      const rows = (customerId === undefined
        ? q(`SELECT ${ORDER_COLUMNS} FROM orders ORDER BY registered_at DESC, numero_ordine DESC LIMIT ?`).all(limitOf(limit))
        : q(`SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = ? ORDER BY registered_at DESC, numero_ordine DESC LIMIT ?`)
          .all(customerId, limitOf(limit))) as OrderRow[];
      return withLines(rows);
    },

    async latestAttempt(customerId, riferimento) {
      const r = q(`SELECT submission_id, channel, received_at, outcome FROM order_attempts
        WHERE customer_id = ? AND riferimento_ordine = ?
        ORDER BY received_at DESC, submission_id DESC, idx DESC LIMIT 1`).get(customerId, riferimento) as AttemptRow | undefined;
      return r && toAttempt(r);
    },
  };
  return store;
}
