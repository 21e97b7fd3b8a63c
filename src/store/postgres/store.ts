/**
 * The shared store: PostgreSQL through a pg Pool, for several service instances on one database. Every rule
 * that must hold across instances is enforced by the database itself: the identity unique key (INSERT … ON
 * CONFLICT DO NOTHING, then read the winner), one sequence per year for numbers (numbering.ts: no lock
 * held until commit, so registrations do not queue behind each other's fsync), and an advisory lock around
 * migrations.
 */
import pg from 'pg';
import type { PoolClient } from 'pg';
import { pgCode, withTransaction } from './tx.ts';
import { orderWriters, writerPermits } from './order-writers.ts';
import { postgresLifecycle } from './lifecycle.ts';
import { notFound } from '../common/refusals.ts';
import type { Outcome, RegisteredOrder, StoredSubmission, SubmissionState } from '../../domain/types.ts';
import { checkKnown, migrationsDir, readMigrations } from '../common/migrate.ts';
import { postgresWork } from './work.ts';
import { postgresCustomers } from './customers.ts';
import { postgresMailTrust } from './mail-trust.ts';
import { postgresMail } from './mail.ts';
import { postgresConnectors } from './connectors.ts';
import { postgresInstances } from './instances.ts';
import { postgresHandoff } from './handoff.ts';
import { insertEventsQuery, pgProductionHistory, postgresEvents } from './events.ts';
import { type NewEvent } from '../../domain/store/events.ts';
import { registeredEvent } from '../common/events.ts';
import { postgresStats } from './stats.ts';
import { postgresWeb } from './web.ts';
import { numberSequence, numeroOrdineSql, yearSequences } from './numbering.ts';
import { FENCED, registerGroups, type GroupRow } from './register-batch.ts';
import { completeGroups } from './complete-batch.ts';
import { singleOrderGroups } from './single-batch.ts';
import { pgAttempts } from './attempts.ts';
import { postgresCustomerState } from './customer-state.ts';
import { postgresNotifications } from './notifications.ts';
import {
  checkItem, chunks, decide, DEFAULT_LIMIT, isoIn, limitOf,
  linesByOrder, MAX_PENDING_BATCH, newSubmissionRow, numeroOrdine, SUBMISSION_COLUMNS, toAttempt,
  toOrder, toSubmission, toSummary,
  type AttemptRow, type ExistingOrder, type LineRow, type OrderRow,
  type SubmissionRow,
} from '../common/rows.ts';
import { channelsSql, jsonOut } from '../common/rows.ts';
import { isCompact } from '../common/outcome-form.ts';
import { withoutUndefined } from '../../domain/objects.ts';
import { readRawFile } from '../common/raw-file.ts';
import { customerOrdersSql, customerOrderTimes } from '../common/customer-orders.ts';
import { postgresCatalog } from './catalog.ts';
import { postgresPeppol } from './peppol.ts';
import { checkPieceRange, stagedOf } from '../common/upload-pieces.ts';
import { adoptPieces, discardPieces, readPieces, stagePieces, SUBMISSION_SIZE_SQL, sweepPieces } from './pieces.ts';
import {
  ClaimLostError,
  type CompleteOptions, type NewSubmission, type RegisterItem, type RegisterResult, type Store, type SubmissionSummary,
  type WriteOptions,
} from '../../domain/store/store.ts';

export interface PostgresStoreOptions {
  /** Schema to work in (created if missing); tests use one per test. Lower-case letters, digits, underscores. */
  schema?: string;
  /** Largest number of pooled connections. */
  max?: number;
  /** false (INTAKE_OUTBOX=off): write no order events, to measure what they cost. Benchmarks only. */
  outbox?: boolean;
  /** Errors of idle pooled connections (server restart, network); the pool drops the connection either way. */
  onError?: (err: Error) => void;
}

/** How long a statement waits for a connection (the pool's) or a writer for its permit (order-writers.ts). */
const CONNECT_WAIT_MS = 10_000;

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** First key of every advisory lock this service takes; the second is the schema's hash. */
const LOCK_CLASS = 7_342_801;

/**
 * A FROM clause that turns off the wait for the WAL flush for the one statement's own (implicit) transaction:
 * for writes whose caller acknowledges only after a later durable commit (WriteOptions). PostgreSQL flushes its
 * WAL in order, so that commit's flush covers this one. Durable writes get nothing: the server's setting holds.
 */
function lazyFrom(opts: WriteOptions | undefined): string {
  return `FROM (SELECT ${lazySetting(opts)}) AS lazy_commit`;
}

/** The expression of lazyFrom: evaluated once per statement, as the row every output row is built from. */
function lazySetting(opts: WriteOptions | undefined): string {
  return opts?.durable === false ? `set_config('synchronous_commit', 'off', true)` : 'NULL';
}

/** The pool, or one of its connections inside a transaction. */
type Queryable = Pick<pg.Pool, 'query'>;

/** Writes answered only after a later durable one (WriteOptions). */
const LAZY: WriteOptions = { durable: false };

/** A registration's failure, its constraint violations named for the caller (a bug of the caller's, never input). */
function registrationError(e: unknown): unknown {
  if (pgCode(e) === '23503') return new Error('registerOrders: an item names a customer or submission that is not stored', { cause: e });
  // Only the id's own key, as on SQLite: another unique value (a number, say) is not the caller's id, and said so it
  // hid the millionth order's cut number (numbering.ts, numeroOrdineSql); the driver's error names its constraint.
  if (pgCode(e) === '23505' && (e as { constraint?: string }).constraint === 'orders_pkey') {
    return new Error('registerOrders: an order id is already taken', { cause: e });
  }
  return e;
}

/**
 * An earlier file with the same bytes (findSubmissionBySha; $1 customer, $2 hash, $3 channel when `byChannel`): as on
 * SQLite, single-order submissions are not files, and the (customer_id, sha256) index holds files only (migration
 * 025); `NOT single_order` lets the planner take it. Exported for the plan test (test/store/query-plans.test.ts).
 */
export function findBySha(byChannel: boolean): string {
  return `SELECT ${SUBMISSION_COLUMNS}, outcome->>'esito' AS esito, ${SUBMISSION_SIZE_SQL} AS size FROM submissions
    WHERE customer_id = $1 AND sha256 = $2 AND NOT single_order ${byChannel ? 'AND channel = $3' : ''}
    ORDER BY received_at, id COLLATE "C" LIMIT 1`;
}

const ORDER_COLUMNS = `id, customer_id, codice_cliente, riferimento_ordine, numero_ordine,
  to_char(data_ordine, 'YYYY-MM-DD') AS data_ordine, to_char(data_consegna, 'YYYY-MM-DD') AS data_consegna,
  submission_id, channel, site, registered_at, production_state, note, versione, version_at, version_channel`;

/** The order with this identity, if registered: a seek on orders_identity (reference first, migration 026). */
const IDENTITY_SQL = 'SELECT id, numero_ordine, submission_id, content_hash FROM orders WHERE codice_cliente = $1 AND riferimento_ordine = $2';

/**
 * A customer's order and latest attempt by reference (getOrderByRef, latestAttempt): each table has one index led by
 * the reference (migration 026), sought by reference, this customer's rows kept. Exported for the plan test.
 */
export const ORDER_BY_REF_SQL = `SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = $1 AND riferimento_ordine = $2`;
export const LATEST_ATTEMPT_SQL = `SELECT submission_id, channel, received_at, outcome FROM order_attempts
  WHERE customer_id = $1 AND riferimento_ordine = $2
  ORDER BY received_at DESC, submission_id COLLATE "C" DESC, idx DESC LIMIT 1`;

/** The oldest received submissions (recovery), through a partial index of received rows: PostgreSQL proves `state = 'received'` implies its term. */
export const PENDING_SQL = `SELECT id FROM submissions WHERE state = 'received' ORDER BY received_at, id COLLATE "C" LIMIT $1`;

/**
 * listSubmissions' statement for the filters given: $1… in the order state, customer, then the limit. The channels
 * are spelled with constants: the FTP/SFTP window then reads the partial index of files (migration 029).
 */
export function listSubmissionsSql(f: { state: boolean; customerId: boolean; channels?: readonly string[] | undefined }): string {
  let n = 0;
  const where = [
    ...(f.state ? [`state = $${++n}`] : []), ...(f.customerId ? [`customer_id = $${++n}`] : []),
    ...(f.channels === undefined ? [] : [channelsSql(f.channels)]),
  ];
  // octet_length reads a stored bytea's size from its TOAST pointer, without fetching the bytes.
  return `SELECT ${SUBMISSION_COLUMNS}, outcome->>'esito' AS esito, ${SUBMISSION_SIZE_SQL} AS size FROM submissions
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY received_at DESC, id COLLATE "C" DESC LIMIT $${n + 1}`;
}

export async function openPostgresStore(url: string, opts: PostgresStoreOptions = {}): Promise<Store> {
  const { schema } = opts;
  const outbox = opts.outbox !== false;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`PostgreSQL schema name "${schema}" must be lower-case letters, digits and underscores (at most 63)`);
  }
  const connection = {
    connectionString: url,
    // A database that does not answer must surface as an error, not as a request that waits forever.
    connectionTimeoutMillis: CONNECT_WAIT_MS,
    keepAlive: true,
    application_name: 'order-intake',
    // Set at connection start-up, so no query can ever run on a pooled connection with another search_path.
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  };
  const max = opts.max ?? 10;
  const pool = new pg.Pool({ ...connection, max });
  pool.on('error', (err) => opts.onError?.(err));
  // Statements that write orders (or wait on its locks) take fewer connections than the pool: a long lock on orders
  // then leaves some to store what arrives (order-writers.ts).
  const writers = orderWriters(pool, writerPermits(max), CONNECT_WAIT_MS);
  // The instance's own session (postgres/instances.ts), outside the pool and with the pool's settings.
  const { closeSession, ...instances } = postgresInstances(pool, () => new pg.Client(connection), opts.onError);
  let closed = false;

  const tx = <T>(fn: (c: PoolClient) => Promise<T>): Promise<T> => withTransaction(pool, fn);
  /** A transaction that writes orders. */
  const writeTx = <T>(fn: (c: PoolClient) => Promise<T>): Promise<T> => withTransaction(writers, fn);
  const numbering = yearSequences(writers);
  const attempts = pgAttempts(pool, writers, outbox);
  const completes = completeGroups(writers, outbox, (call) => attempts.completeAlone(call));
  const singles = singleOrderGroups(writers, outbox);
  // A group that failed registers its orders one by one (fenced, when under a claim, in a transaction of its own).
  const groups = registerGroups(writers, outbox, (item, holder) => holder === undefined
    ? aloneRow(item, LAZY)
    : writeTx(async (c) => (await fence(c, holder, [item])).length > 0 ? FENCED : aloneRow(item, LAZY, c)));

  /** The row of a submission, its bytes read from its local file when it came as one (a file channel's upload). */
  async function submissionRow(s: NewSubmission): Promise<ReturnType<typeof newSubmissionRow>> {
    if (stagedOf(s)) throw new Error(`submission ${s.id}: a streamed upload is saved by saveSubmission`);
    return newSubmissionRow(s.rawFile ? { ...s, raw: await readRawFile(s.rawFile) } : s);
  }

  /** A submission read whole: its bytes from the pieces its upload streamed when its row's raw is empty. */
  async function withBytes(r: SubmissionRow): Promise<SubmissionRow> {
    const raw = r.raw as Buffer | undefined;
    return raw && raw.length === 0 ? { ...r, raw: await readPieces(pool, r.id) } : r;
  }

  /**
   * A submissions row, on its own statement (its own implicit transaction), claimed by `claim` if given. Answered
   * from what was inserted: reading the row back (RETURNING) would send the raw body back over the socket.
   */
  async function insertSubmission(r: ReturnType<typeof newSubmissionRow>, opts: WriteOptions | undefined, db: Queryable = pool): Promise<void> {
    await db.query({
      name: `save-submission-${opts?.durable === false ? 'lazy' : 'durable'}`,
      text: `INSERT INTO submissions (id, customer_id, customer_code, channel, file_name, media_type, charset, raw, meta,
         single_order, site, sites, connector_id, reserved_order_id, sha256, received_at)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16 ${lazyFrom(opts)}`,
      values: [r.id, r.customer_id, r.customer_code, r.channel, r.file_name, r.media_type, r.charset, r.raw, r.meta,
        r.single_order, r.site, r.sites, r.connector_id, r.reserved_order_id, r.sha256, r.received_at],
    });
  }


  async function one<R>(sql: string, params: unknown[] = []): Promise<R | undefined> {
    return (await pool.query(sql, params)).rows[0] as R | undefined;
  }

  async function all<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await pool.query(sql, params)).rows as R[];
  }

  /**
   * A large file's outcome is kept compact: its orders are read back from its attempts, in one snapshot with the
   * verdict and the state (attempts.ts), which a re-judgement may have changed since the first read.
   */
  async function withOrders(s: StoredSubmission): Promise<StoredSubmission> {
    if (!s.outcome || !isCompact(s.outcome)) return s;
    const now = await attempts.readCompact(s.id);
    const { outcome: _old, processedAt: _at, ...rest } = s;
    return withoutUndefined({ ...rest, state: now.state, processedAt: now.processedAt, outcome: now.outcome });
  }

  if (schema !== undefined) {
    await tx(async (c) => {
      // Two instances creating the same schema at once would otherwise collide on the catalog's unique key.
      await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    }).catch(async (e: unknown) => {
      await pool.end().catch(() => undefined);
      throw e;
    });
  }

  async function existing(c: PoolClient, item: RegisterItem): Promise<ExistingOrder | undefined> {
    const { rows } = await c.query(IDENTITY_SQL, [item.order.codice_cliente, item.order.riferimento_ordine]);
    return rows[0] as ExistingOrder | undefined;
  }

  /** Registers one item in the caller's transaction; the event of an order inserted now is added to `events`. */
  async function registerOne(c: PoolClient, item: RegisterItem, events: NewEvent[]): Promise<RegisterResult> {
    // Looking first keeps the common repeat (a duplicate) from consuming a sequence number.
    const found = await existing(c, item);
    if (found) return decide(found, item);
    const { rows: [seq] } = await c.query(`SELECT nextval($1::regclass)::int AS last`, [numberSequence(item.year)]);
    const last = (seq as { last: number }).last;
    const numero = numeroOrdine(item.year, last);
    const o = item.order;
    const ins = await c.query(
      `INSERT INTO orders (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine,
         data_consegna, content_hash, submission_id, channel, site, registered_at, note)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT ON CONSTRAINT orders_identity DO NOTHING RETURNING id`,
      [item.id, item.customerId, o.codice_cliente, o.riferimento_ordine, numero, item.year, last, o.data_ordine,
        o.data_consegna ?? null, item.contentHash, item.submissionId, item.channel, item.site ?? null,
        isoIn(item.registeredAt, 'registeredAt'), o.note ?? null],
    );
    if (ins.rowCount === 0) {
      // Another instance committed the same identity since we looked; its number stays, ours becomes a gap.
      const winner = await existing(c, item);
      if (!winner) throw new Error(`order ${o.codice_cliente}/${o.riferimento_ordine} conflicted but cannot be read`);
      return decide(winner, item);
    }
    await c.query(
      `INSERT INTO order_lines (order_id, idx, codice_articolo, quantita, unita_misura)
       SELECT $1, t.i - 1, t.a, t.q, t.u FROM unnest($2::text[], $3::float8[], $4::text[]) WITH ORDINALITY AS t(a, q, u, i)`,
      [item.id, o.righe.map((r) => r.codice_articolo), o.righe.map((r) => r.quantita), o.righe.map((r) => r.unita_misura)],
    );
    if (outbox) events.push(registeredEvent(item, numero, isoIn(item.registeredAt, 'registeredAt')));
    return { status: 'created', id_ordine: item.id, numero_ordine: numero };
  }

  /**
   * The fence of a registration under a claim (RegisterOptions.heldBy), in the registering transaction: the ids of
   * `items`' submissions that are no longer received or that another holder has claimed. FOR SHARE orders it with a
   * takeover's claim (an UPDATE of the row): whichever commits second sees the other.
   */
  async function fence(c: PoolClient, holder: string, items: readonly RegisterItem[]): Promise<string[]> {
    const ids = [...new Set(items.map((i) => i.submissionId))];
    const { rows } = await c.query<{ id: string; state: string; claimed_by: string | null }>(
      'SELECT id, state, claimed_by FROM submissions WHERE id = ANY($1::text[]) ORDER BY id FOR SHARE', [ids]);
    const held = new Set(rows.filter((r) => r.state === 'received' && (r.claimed_by === null || r.claimed_by === holder)).map((r) => r.id));
    return ids.filter((id) => !held.has(id));
  }

  /** Registers `items` one by one in the caller's transaction, with their events. */
  async function registerEach(c: PoolClient, items: readonly RegisterItem[]): Promise<RegisterResult[]> {
    const results: RegisterResult[] = [];
    const events: NewEvent[] = [];
    for (const item of items) results.push(await registerOne(c, item, events));
    // The outbox: one statement for the events of every order created, in the same transaction.
    if (events.length > 0) await c.query(...insertEventsQuery(events));
    return results;
  }

  /**
   * One order in one statement (its own transaction): look for the identity, take a number only if it is new,
   * insert the order and its lines. Six round trips (BEGIN, look, number, order, lines, COMMIT) become one; this
   * is the REST/SOAP case. The rules are registerOne's: a repeat takes no number; an identity committed by
   * another instance since the statement's snapshot makes the insert do nothing, and the winner is read after.
   */
  async function registerAlone(item: RegisterItem, opts: WriteOptions | undefined): Promise<RegisterResult> {
    return settle(item, await aloneRow(item, opts));
  }

  /** registerAlone's statement: the order's row (existing or inserted), undefined when the insert did nothing. */
  async function aloneRow(item: RegisterItem, opts: WriteOptions | undefined, db: Queryable = writers): Promise<GroupRow | undefined> {
    const o = item.order;
    // The outbox row rides in the same statement: its data is completed with the number the statement allocates.
    const event = registeredEvent(item, '', isoIn(item.registeredAt, 'registeredAt'));
    const { rows } = await db.query<ExistingOrder & { created: boolean }>({
      // Named: prepared once per connection, so this large statement is not parsed and planned on every order.
      name: `register-alone-${outbox ? 'events' : 'no-events'}-${opts?.durable === false ? 'lazy' : 'durable'}`,
      text: `WITH found AS (
         SELECT id, numero_ordine, submission_id, content_hash FROM orders WHERE codice_cliente = $3 AND riferimento_ordine = $4
       ), seq AS (
         SELECT nextval($${outbox ? 18 : 16}::regclass)::int AS last WHERE NOT EXISTS (SELECT 1 FROM found)
       ), ins AS (
         INSERT INTO orders (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine,
           data_consegna, content_hash, submission_id, channel, site, registered_at, note)
         SELECT $1, $2, $3, $4, ${numeroOrdineSql('$6::int', 'seq.last')}, $6::int, seq.last, $5::date, $7::date,
           $8, $9, $10, $11, $12::timestamptz, $${outbox ? 19 : 17}::text FROM seq
         ON CONFLICT ON CONSTRAINT orders_identity DO NOTHING RETURNING id, numero_ordine
       ), lines AS (
         INSERT INTO order_lines (order_id, idx, codice_articolo, quantita, unita_misura)
         SELECT ins.id, t.i - 1, t.a, t.q, t.u FROM ins, unnest($13::text[], $14::float8[], $15::text[]) WITH ORDINALITY AS t(a, q, u, i)
       )${outbox ? `, ev AS (
         INSERT INTO order_events (id, type, time, order_id, customer_id, data)
         SELECT $16, 'ordine.registrato', $12::timestamptz, ins.id, $2, $17::jsonb || jsonb_build_object('numero_ordine', ins.numero_ordine)
         FROM ins
       )` : ''}
       SELECT x.* FROM (SELECT ${lazySetting(opts)}) AS lazy_commit LEFT JOIN (
         SELECT id, numero_ordine, submission_id, content_hash, false AS created FROM found
         UNION ALL SELECT id, numero_ordine, NULL, NULL, true FROM ins
       ) AS x ON true`,
      values: [item.id, item.customerId, o.codice_cliente, o.riferimento_ordine, o.data_ordine, item.year, o.data_consegna ?? null,
        item.contentHash, item.submissionId, item.channel, item.site ?? null, isoIn(item.registeredAt, 'registeredAt'),
        o.righe.map((r) => r.codice_articolo), o.righe.map((r) => r.quantita), o.righe.map((r) => r.unita_misura),
        ...(outbox ? [event.id, JSON.stringify(event.data)] : []), numberSequence(item.year), o.note ?? null],
    });
    // Always one row (the LEFT JOIN), empty when the insert did nothing.
    return rows[0]?.id ? rows[0] : undefined;
  }

  /** The answer for an order from its statement's row (registerAlone's or a group's). */
  async function settle(item: RegisterItem, row: GroupRow | undefined): Promise<RegisterResult> {
    const o = item.order;
    if (row?.created) return { status: 'created', id_ordine: row.id, numero_ordine: row.numero_ordine };
    if (row) return decide(row, item);
    // Another instance (or another order of the same group) committed the same identity after our snapshot: its
    // number stays, ours became a gap.
    const winner = (await writers.query<ExistingOrder>(IDENTITY_SQL, [o.codice_cliente, o.riferimento_ordine])).rows[0];
    if (!winner) throw new Error(`order ${o.codice_cliente}/${o.riferimento_ordine} conflicted but cannot be read`);
    return decide(winner, item);
  }

  async function withLines(rows: OrderRow[]): Promise<RegisteredOrder[]> {
    const lines: LineRow[] = [];
    for (const part of chunks(rows.map((r) => r.id))) {
      const got = await all<LineRow>(
        'SELECT order_id, idx, codice_articolo, quantita, unita_misura FROM order_lines WHERE order_id = ANY($1::text[])',
        [part],
      );
      for (const l of got) lines.push(l); // not push(...got): ~120k lines as arguments overflow the stack
    }
    const byOrder = linesByOrder(lines);
    // A further query only for orders production has reported on.
    const history = await pgProductionHistory(pool, rows.filter((r) => r.production_state).map((r) => r.id));
    return rows.map((r) => {
      const o = toOrder(r, byOrder.get(r.id) ?? []);
      if (o.productionState) o.productionHistory = history.get(r.id) ?? [];
      return o;
    });
  }

  const store: Store = {
    kind: 'postgres',
    ...postgresWork(pool),
    ...postgresCustomers(pool),
    ...postgresMail(pool),
    ...postgresMailTrust(pool),
    ...postgresConnectors(pool, writers),
    ...instances,
    ...postgresHandoff(pool, () => new pg.Client(connection), opts.onError),
    ...postgresLifecycle(pool, writeTx),
    ...postgresEvents(pool, writers, async (id) => {
      const r = await one<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = $1`, [id]);
      return r && (await withLines([r]))[0];
    }),
    ...postgresStats(pool, writers),
    ...postgresWeb(pool),
    ...postgresCatalog(pool),
    ...postgresPeppol(pool),
    ...postgresCustomerState(pool),
    ...postgresNotifications(pool),

    async migrate() {
      const list = await readMigrations(migrationsDir('postgres'));
      const names: string[] = [];
      // One transaction per migration, each under the lock and re-reading what is applied, so instances that
      // start together apply every migration exactly once.
      for (;;) {
        const applied = await tx(async (c) => {
          await c.query(`SELECT pg_advisory_xact_lock($1, hashtext(coalesce(current_schema(), '')))`, [LOCK_CLASS]);
          await c.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
            version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
          const done = (await c.query('SELECT version FROM schema_migrations')).rows.map((r: { version: number }) => r.version);
          checkKnown(done, list);
          const next = list.find((m) => !done.includes(m.version));
          if (!next) return undefined;
          await c.query(next.sql);
          await c.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [next.version, next.name]);
          return next.name;
        });
        if (applied === undefined) return names;
        names.push(applied);
      }
    },

    async ping() {
      await pool.query('SELECT 1');
    },

    async close() {
      if (closed) return;
      closed = true;
      await closeSession();
      await pool.end();
    },

    async saveSubmission(s: NewSubmission, opts?: WriteOptions): Promise<StoredSubmission> {
      // Committed with synchronous_commit on (PostgreSQL's default): durable when this resolves, unless the caller
      // said a later durable write will make it so (WriteOptions).
      // A file channel's upload (Submission.rawFile) is read whole here: PostgreSQL keeps the bytes as one bytea
      // (judging still reads the local file in pieces; docs/development/performance-history.md says what this costs).
      const staged = stagedOf(s);
      if (staged) {
        // Streamed while it arrived (pieces.ts): the row, the rest of the file and the adoption in one transaction,
        // committed durably whatever `opts` says (the pieces' own commits were durable too).
        const r = newSubmissionRow({ ...s, raw: Buffer.alloc(0) });
        await tx(async (c) => {
          await adoptPieces(c, s.id, s.rawFile!.path, s.rawFile!.size, staged.bytes);
          await insertSubmission(r, undefined, c);
        });
        return { ...toSubmission(r), rawFile: s.rawFile! };
      }
      const r = await submissionRow(s);
      await insertSubmission(r, opts);
      return s.rawFile ? { ...toSubmission({ ...r, raw: Buffer.alloc(0) }), rawFile: s.rawFile } : toSubmission(r);
    },

    async saveSingleOrder(s, judged, processedAt) {
      // One statement shared with the requests in flight (single-batch.ts): the submission inserted processed, with
      // the order, its attempt and its events, and the outcome singleOrderOutcome makes of the registration's answer.
      // No claim: the row is never received in the table, so no sweeper can take it.
      const row = await submissionRow(s);
      const at = isoIn(processedAt, 'processedAt');
      if (!('item' in judged)) return singles.save({ row, processedAt: at, judged });
      checkItem(judged.item, 0);
      try {
        await numbering.ready(new Set([judged.item.year]));
        return await singles.save({ row, processedAt: at, judged, seqName: numberSequence(judged.item.year) });
      } catch (e) {
        throw registrationError(e);
      }
    },

    async getSubmission(id) {
      const r = await one<SubmissionRow>(`SELECT ${SUBMISSION_COLUMNS}, raw, outcome FROM submissions WHERE id = $1`, [id]);
      return r && withOrders(toSubmission(await withBytes(r)));
    },

    async stageUploadPieces(uploadId, piece) {
      checkPieceRange(uploadId, piece);
      await stagePieces(pool, uploadId, piece.file, piece.offset, piece.length);
    },

    async discardStagedUpload(uploadId) {
      await discardPieces(pool, uploadId);
    },

    async sweepStagedUploads(touchedBefore) {
      return sweepPieces(pool, isoIn(touchedBefore, 'touchedBefore'));
    },

    async listSubmissions({ state, customerId, channels, limit }): Promise<SubmissionSummary[]> {
      const params = [...(state === undefined ? [] : [state]), ...(customerId === undefined ? [] : [customerId]), limitOf(limit)];
      return (await all<SubmissionRow>(listSubmissionsSql({ state: state !== undefined, customerId: customerId !== undefined, channels }), params))
        .map(toSummary);
    },

    async findSubmissionBySha(customerId, sha256, channel) {
      const r = await one<SubmissionRow>(findBySha(channel !== undefined), channel === undefined ? [customerId, sha256] : [customerId, sha256, channel]);
      return r && toSummary(r);
    },

    async getSubmissionOutcomes(customerId, ids) {
      const rows = await all<{ id: string; outcome: unknown }>(
        'SELECT id, outcome FROM submissions WHERE customer_id = $1 AND id = ANY($2::text[]) AND outcome IS NOT NULL',
        [customerId, [...ids]],
      );
      const full = await Promise.all(rows.map(async (r) => {
        const stored = jsonOut<Outcome>(r.outcome);
        return [r.id, isCompact(stored) ? (await attempts.readCompact(r.id)).outcome : stored] as const;
      }));
      // One reset for a re-judgement since the first read has no outcome now: left out, as unprocessed ones are.
      return new Map(full.filter((e): e is [string, Outcome] => e[1] !== undefined));
    },

    async findSubmissionByReservedOrderId(customerId, orderId) {
      const r = await one<SubmissionRow>(
        `SELECT ${SUBMISSION_COLUMNS}, raw, outcome FROM submissions WHERE customer_id = $1 AND reserved_order_id = $2
         ORDER BY received_at, id COLLATE "C" LIMIT 1`,
        [customerId, orderId],
      );
      return r && withOrders(toSubmission(await withBytes(r)));
    },

    async pendingSubmissionIds(limit) {
      const rows = await all<{ id: string }>(
        PENDING_SQL,
        [limitOf(limit, DEFAULT_LIMIT, MAX_PENDING_BATCH)],
      );
      return rows.map((r) => r.id);
    },

    async completeSubmission(id: string, state: SubmissionState, outcome: Outcome, processedAt: string, opts?: CompleteOptions) {
      // With the outcomes of other requests in flight, in one statement and one durable commit (complete-batch.ts);
      // a large file whose attempts are written already, alone (attempts.ts).
      const call = { id, state, outcome, processedAt, ...(opts?.heldBy === undefined ? {} : { holder: opts.heldBy }) };
      if (await (opts?.attemptsRecorded ? attempts.completeRecorded(call) : completes.complete(call))) return true;
      // Nothing written: a submission whose outcome another judgement recorded first (it stands), or none at all, or
      // (fenced) one another holder has taken over and is judging: its outcome is still to come.
      const { rows: [row] } = await pool.query<{ state: SubmissionState }>('SELECT state FROM submissions WHERE id = $1', [id]);
      if (!row) throw notFound.submission(id);
      if (opts?.heldBy !== undefined && row.state === 'received') throw new ClaimLostError([id]);
      return false;
    },

    async resetSubmission(id) {
      const res = await pool.query(
        `UPDATE submissions SET state = 'received', outcome = NULL, claimed_by = NULL, lease_until = NULL, retries = 0 WHERE id = $1`, [id]);
      if (res.rowCount === 0) throw notFound.submission(id);
    },

    async countRetry(id) {
      const { rows } = await pool.query('UPDATE submissions SET retries = retries + 1 WHERE id = $1 RETURNING retries', [id]);
      if (rows.length === 0) throw notFound.submission(id);
      return Number((rows[0] as { retries: number }).retries);
    },

    async recordAttempts(submissionId, orders, opts) {
      await attempts.record(submissionId, orders, opts?.durable !== false, opts?.heldBy);
    },

    async registerOrders(items, opts) {
      items.forEach(checkItem);
      if (items.length === 0) return [];
      try {
        // Each year's sequence exists before the registering statements run (created outside them, once).
        await numbering.ready(new Set(items.map((i) => i.year)));
        const holder = opts?.heldBy;
        if (items.length === 1 && opts?.durable === false) {
          // A one-order file judged: grouped with the single orders of other judgements (register-batch.ts).
          const only = items[0]!;
          const event = outbox ? registeredEvent(only, '', isoIn(only.registeredAt, 'registeredAt')) : undefined;
          const row = await groups.register(only, event, numberSequence(only.year), holder);
          if (row === FENCED) throw new ClaimLostError([only.submissionId]);
          return [await settle(only, row)];
        }
        if (items.length === 1 && holder === undefined) return [await registerAlone(items[0]!, opts)];
        return await writeTx(async (c) => {
          if (holder !== undefined) {
            const lost = await fence(c, holder, items);
            if (lost.length > 0) throw new ClaimLostError(lost);
          }
          if (opts?.durable === false) await c.query(`SET LOCAL synchronous_commit = off`);
          return registerEach(c, items);
        });
      } catch (e) {
        throw registrationError(e);
      }
    },

    async registeredBySubmission(submissionId, references) {
      // A step of registering (judge.ts, before registerOrders): it waits on a lock of orders as they do.
      const { rows } = await writers.query<{ codice_cliente: string; riferimento_ordine: string }>(
        'SELECT codice_cliente, riferimento_ordine FROM orders WHERE submission_id = $1 AND riferimento_ordine = ANY($2::text[])',
        [submissionId, [...new Set(references)]],
      );
      return rows;
    },

    async getOrder(customerId, id) {
      const r = await one<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = $1 AND id = $2`, [customerId, id]);
      return r && (await withLines([r]))[0];
    },

    async getOrders(customerId, ids) {
      const rows: OrderRow[] = [];
      for (const part of chunks([...new Set(ids)])) {
        for (const r of await all<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = $1 AND id = ANY($2::text[])`, [customerId, part])) rows.push(r);
      }
      return withLines(rows);
    },

    async getOrderByRef(customerId, riferimento) {
      const r = await one<OrderRow>(ORDER_BY_REF_SQL, [customerId, riferimento]);
      return r && (await withLines([r]))[0];
    },

    async listCustomerOrders(page) {
      const values: unknown[] = [];
      const sql = customerOrdersSql(customerOrderTimes(page), ORDER_COLUMNS, (v) => `$${values.push(v)}`);
      return withLines(await all<OrderRow>(sql, values));
    },

    async listOrders({ customerId, limit }) {
      const rows = customerId === undefined
        ? await all<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders ORDER BY registered_at DESC, numero_ordine COLLATE "C" DESC LIMIT $1`,
          [limitOf(limit)])
        : await all<OrderRow>(
          `SELECT ${ORDER_COLUMNS} FROM orders WHERE customer_id = $1 ORDER BY registered_at DESC, numero_ordine COLLATE "C" DESC LIMIT $2`,
          [customerId, limitOf(limit)]);
      return withLines(rows);
    },

    async latestAttempt(customerId, riferimento) {
      const r = await one<AttemptRow>(LATEST_ATTEMPT_SQL, [customerId, riferimento]);
      return r && toAttempt(r);
    },
  };
  return store;
}
