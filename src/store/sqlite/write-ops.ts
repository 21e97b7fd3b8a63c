/**
 * The writes of the intake path on the embedded store, as named operations on plain data: saving a submission,
 * registering orders, recording an outcome (each with its outbox rows), and the named leases. Named and plain so
 * that they can run on the connection of the write thread (write-thread.ts) as well as on the store's own
 * (an in-memory database, which only its own connection can see). They run inside a group commit's transaction
 * (writer.ts; each in a savepoint of its own only when its batch runs again after a write failed), never on their
 * own.
 */
import type Database from 'better-sqlite3';
import { notFound } from '../common/refusals.ts';
import type { Channel, OrderOutcome, Outcome, SubmissionState } from '../../domain/types.ts';
import { refusalEvents, registeredEvent } from '../common/events.ts';
import { eachAttemptRow, decide, isoIn, numeroOrdine, recordedAttemptRows, type ExistingOrder } from '../common/rows.ts';
import { insertEvents } from './events.ts';
import { outcomeJson, positionsWithoutAttempt } from '../common/outcome-form.ts';
import {
  adoptUploadPieces, discardStagedUpload, INLINE_BODY_BYTES, insertSubmissionChunks, insertSubmissionChunksFromFile,
  stageUploadPieces, sweepStagedUploads,
} from './bodies.ts';
import type { CompleteOptions, RegisterItem, RegisterResult, SavedSingleOrder, SingleJudged } from '../../domain/store/store.ts';
import { singleOrderOutcome } from '../../domain/registered-outcome.ts';

export interface OpContext {
  q: (sql: string) => Database.Statement;
  /** Whether order events are written (INTAKE_OUTBOX; off in some benchmarks only). */
  outbox: boolean;
}

/** The values of one submissions row, in SUBMISSION_INSERT's order (see newSubmissionRow). */
export type SubmissionValues = readonly unknown[];

/** Where the raw bytes and the columns an attempt and an event are written with are among SUBMISSION_INSERT's values. */
const CUSTOMER_ID_AT = 1;
const CUSTOMER_CODE_AT = 2;
const CHANNEL_AT = 3;
const RAW_AT = 7;
const RESERVED_ORDER_ID_AT = 13;
const RECEIVED_AT_AT = 15;
/** submissions.raw of a submission saved since migration 015 with more than INLINE_BODY_BYTES: its bytes are in submission_chunks. */
const EMPTY_BODY = Buffer.alloc(0);

const SUBMISSION_INSERT = `INSERT INTO submissions (id, customer_id, customer_code, channel, file_name, media_type, charset,
  raw, meta, single_order, site, sites, connector_id, reserved_order_id, sha256, received_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/**
 * Order lines per INSERT statement. One statement per line cost more in running it (binding, stepping, resetting:
 * two thirds of a 3-line order's line inserts on the write thread) than in the rows; a few rows per statement
 * share that. Each row count up to this one is its own prepared statement, kept in the cache.
 */
export const LINES_PER_INSERT = 16;

function linesInsert(rows: number): string {
  return `INSERT INTO order_lines (order_id, idx, codice_articolo, quantita, unita_misura) VALUES ${
    Array.from({ length: rows }, () => '(?, ?, ?, ?, ?)').join(', ')}`;
}

function insertLines(q: OpContext['q'], orderId: string, righe: RegisterItem['order']['righe']): void {
  for (let at = 0; at < righe.length; at += LINES_PER_INSERT) {
    const rows = Math.min(LINES_PER_INSERT, righe.length - at);
    const values: unknown[] = new Array(rows * 5);
    for (let k = 0; k < rows; k++) {
      const r = righe[at + k]!;
      values[k * 5] = orderId;
      values[k * 5 + 1] = at + k;
      values[k * 5 + 2] = r.codice_articolo;
      values[k * 5 + 3] = r.quantita;
      values[k * 5 + 4] = r.unita_misura;
    }
    q(linesInsert(rows)).run(values);
  }
}

/**
 * The store's answer to an order's registration, and whether the order is new: the repeat check, then the next
 * number of its year (`seq` set: the order is new). Writes nothing but the counter; insertOrder writes a new order (registerOne does both; a single
 * order's one write, singleOrder, saves its submission in between, with the outcome the answer makes).
 */
/** The order with this identity, if registered: a seek on the identity index (reference first, migration 026). */
export const IDENTITY_SQL = `SELECT id, numero_ordine, submission_id, content_hash FROM orders
  WHERE codice_cliente = ? AND riferimento_ordine = ?`;

function allocate(c: OpContext, item: RegisterItem): { result: RegisterResult; seq?: number } {
  const { q } = c;
  const o = item.order;
  const found = q(IDENTITY_SQL).get(o.codice_cliente, o.riferimento_ordine) as ExistingOrder | undefined;
  if (found) return { result: decide(found, item) };
  const { last } = q(`INSERT INTO order_sequences (year, last) VALUES (?, 1)
    ON CONFLICT (year) DO UPDATE SET last = last + 1 RETURNING last`).get(item.year) as { last: number };
  return { result: { status: 'created', id_ordine: item.id, numero_ordine: numeroOrdine(item.year, last) }, seq: last };
}

/** A new order, its lines and its event, under the number allocate gave it (`seq` within its year). */
function insertOrder(c: OpContext, item: RegisterItem, numero: string, seq: number): void {
  const { q } = c;
  const o = item.order;
  const at = isoIn(item.registeredAt, 'registeredAt');
  q(`INSERT INTO orders (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine,
    data_consegna, content_hash, submission_id, channel, site, registered_at, note)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    item.id, item.customerId, o.codice_cliente, o.riferimento_ordine, numero, item.year, seq, o.data_ordine,
    o.data_consegna ?? null, item.contentHash, item.submissionId, item.channel, item.site ?? null, at, o.note ?? null,
  );
  insertLines(q, item.id, o.righe);
  // The outbox: in the same transaction, so the event exists exactly when the order does.
  if (c.outbox) insertEvents(q, [registeredEvent(item, numero, at)]);
}

function registerOne(c: OpContext, item: RegisterItem): RegisterResult {
  const { result, seq } = allocate(c, item);
  if (seq !== undefined) insertOrder(c, item, result.numero_ordine, seq);
  return result;
}

/** A submission saved already processed (singleOrder): its state, its outcome (as stored) and when. */
type Done = readonly [state: SubmissionState, outcome: string, processedAt: string];

/** SUBMISSION_INSERT with the columns completeSubmission sets, for a submission saved already processed. */
const SUBMISSION_INSERT_DONE = `INSERT INTO submissions (id, customer_id, customer_code, channel, file_name, media_type, charset,
  raw, meta, single_order, site, sites, connector_id, reserved_order_id, sha256, received_at, state, outcome, processed_at, attempts)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`;

function save(c: OpContext, values: SubmissionValues, done?: Done): void {
  // A few bytes go in the row; more go in pieces beside it, in the same transaction, and the row's own raw is
  // empty (bodies.ts). A Buffer arrives from another thread as a plain Uint8Array: the pieces are views of it, no
  // copy. A file channel's upload comes as its spool file's name and size ({file, size}): read here in pieces.
  // One whose first bytes were streamed into upload_pieces while it arrived ({file, size, staged}) adopts them and
  // writes the rest there (bodies.ts).
  const raw = values[RAW_AT] as Uint8Array | { file: string; size: number; staged?: number };
  const insert = c.q(done ? SUBMISSION_INSERT_DONE : SUBMISSION_INSERT);
  const row = (body: Buffer) => {
    const v = values.map((x, i) => (i === RAW_AT ? body : x));
    return done ? [...v, ...done] : v;
  };
  if (raw instanceof Uint8Array && raw.length <= INLINE_BODY_BYTES) {
    insert.run(row(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)));
    return;
  }
  insert.run(row(EMPTY_BODY));
  if (raw instanceof Uint8Array) insertSubmissionChunks(c.q, values[0] as string, raw);
  else if (raw.staged !== undefined) adoptUploadPieces(c.q, values[0] as string, raw.file, raw.size, raw.staged);
  else insertSubmissionChunksFromFile(c.q, values[0] as string, raw.file, raw.size);
}

const ATTEMPT_UPSERT = `INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome,
  received_at, channel) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (submission_id, idx) DO UPDATE SET customer_id = excluded.customer_id, riferimento_ordine = excluded.riferimento_ordine,
    esito = excluded.esito, outcome = excluded.outcome, received_at = excluded.received_at, channel = excluded.channel`;

/** A batch of a large file's attempts (Store.recordAttempts), over those of an earlier judgement at the same positions. */
function record(c: OpContext, id: string, orders: readonly OrderOutcome[]): void {
  const sub = c.q('SELECT customer_id, channel, received_at, state FROM submissions WHERE id = ?').get(id) as
    | { customer_id: string; channel: Channel; received_at: string; state: SubmissionState } | undefined;
  if (!sub) throw notFound.submission(id);
  // An outcome recorded already stands (completeSubmission): a late judgement writes none of its attempts over it.
  if (sub.state !== 'received') return;
  const ins = c.q(ATTEMPT_UPSERT);
  for (const a of recordedAttemptRows(orders)) {
    ins.run(id, a.idx, a.customer ?? sub.customer_id, a.riferimento, a.esito, a.json, sub.received_at, sub.channel);
  }
}

/** What a submission's attempts and refusal events are written with (its row's columns). */
interface JudgedRow { customer_id: string; customer_code: string; channel: Channel; received_at: string; reserved_order_id: string | null }

function complete(c: OpContext, id: string, state: SubmissionState, outcome: Outcome, processedAt: string, opts?: CompleteOptions): boolean {
  const { q } = c;
  // One statement finds the row, changes it and gives back what the attempts and events need; only a received one:
  // an outcome recorded already stands (Store.completeSubmission).
  const sub = q(`UPDATE submissions SET state = ?, outcome = ?, processed_at = ?, attempts = attempts + 1 WHERE id = ? AND state = 'received'
    RETURNING customer_id, customer_code, channel, received_at, reserved_order_id`)
    .get(state, outcomeJson(outcome, opts?.attemptsRecorded ? 0 : undefined), isoIn(processedAt, 'processedAt'), id) as JudgedRow | undefined;
  if (!sub) {
    if (!q('SELECT 1 FROM submissions WHERE id = ?').get(id)) throw notFound.submission(id);
    return false;
  }
  if (opts?.attemptsRecorded) {
    // This judgement's rows are written (record): what is left of an earlier one goes.
    q('DELETE FROM order_attempts WHERE submission_id = ? AND (idx >= ? OR idx IN (SELECT value FROM json_each(?)))')
      .run(id, outcome.orders.length, JSON.stringify(positionsWithoutAttempt(outcome)));
  } else {
    q('DELETE FROM order_attempts WHERE submission_id = ?').run(id);
    insertAttempts(c, id, sub, outcome);
  }
  writeRefusals(c, sub, outcome, processedAt);
  return true;
}

function insertAttempts(c: OpContext, id: string, sub: JudgedRow, outcome: Outcome): void {
  const ins = c.q(`INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome,
    received_at, channel) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  for (const a of eachAttemptRow(outcome)) {
    ins.run(id, a.idx, a.customer ?? sub.customer_id, a.riferimento, a.esito, a.json, sub.received_at, sub.channel);
  }
}

/** The outbox: refusals are known only once judged, and are recorded with the outcome that states them. */
function writeRefusals(c: OpContext, sub: JudgedRow, outcome: Outcome, processedAt: string): void {
  if (c.outbox) insertEvents(c.q, refusalEvents(outcome, {
    customerId: sub.customer_id, customerCode: sub.customer_code, channel: sub.channel, receivedAt: sub.received_at,
    reservedOrderId: sub.reserved_order_id ?? undefined,
  }, isoIn(processedAt, 'processedAt')));
}

/**
 * Store.saveSingleOrder: one order's submission written once, already processed. The order's number is taken
 * before the submission row exists (its orders row references it), the outcome built from that answer
 * (singleOrderOutcome, as judging builds it), then the row, the order, its attempt and its events: what used to be
 * two operations (the row saved with its order, then completed), the second rewriting the row with every index moved.
 */
function singleOrder(c: OpContext, values: SubmissionValues, judged: SingleJudged, processedAt: string): SavedSingleOrder {
  const at = isoIn(processedAt, 'processedAt');
  const item = 'item' in judged ? judged.item : undefined;
  const taken = item && allocate(c, item);
  const outcome = item && taken ? singleOrderOutcome(item, taken.result) : (judged as { outcome: Outcome }).outcome;
  save(c, values, ['processed', outcomeJson(outcome), at]);
  if (item && taken?.seq !== undefined) insertOrder(c, item, taken.result.numero_ordine, taken.seq);
  const sub: JudgedRow = {
    customer_id: values[CUSTOMER_ID_AT] as string, customer_code: values[CUSTOMER_CODE_AT] as string, channel: values[CHANNEL_AT] as Channel,
    received_at: values[RECEIVED_AT_AT] as string, reserved_order_id: values[RESERVED_ORDER_ID_AT] as string | null,
  };
  insertAttempts(c, values[0] as string, sub, outcome);
  writeRefusals(c, sub, outcome, at);
  return { results: taken ? [taken.result] : [], outcome };
}

/**
 * The operations, by name. Arguments are checked by the store method before they are queued (anything thrown here
 * comes back to the caller as the method's error). Lease times (`at`) come from the caller's clock.
 */
export const WRITE_OPS = {
  saveSubmission: (c: OpContext, values: SubmissionValues): void => save(c, values),
  saveSingleOrder: (c: OpContext, values: SubmissionValues, judged: SingleJudged, processedAt: string): SavedSingleOrder =>
    singleOrder(c, values, judged, processedAt),
  registerOrders: (c: OpContext, items: readonly RegisterItem[]): RegisterResult[] => items.map((i) => registerOne(c, i)),
  stageUploadPieces: (c: OpContext, uploadId: string, file: string, offset: number, length: number, at: string): void =>
    stageUploadPieces(c.q, uploadId, file, offset, length, at),
  discardStagedUpload: (c: OpContext, uploadId: string): void => discardStagedUpload(c.q, uploadId),
  sweepStagedUploads: (c: OpContext, before: string): number => sweepStagedUploads(c.q, before),
  completeSubmission: (c: OpContext, id: string, state: SubmissionState, outcome: Outcome, processedAt: string, opts?: CompleteOptions): boolean =>
    complete(c, id, state, outcome, processedAt, opts),
  recordAttempts: (c: OpContext, id: string, orders: readonly OrderOutcome[]): void => record(c, id, orders),
  acquireLease: (c: OpContext, name: string, holder: string, until: number, at: number): boolean => c.q(
    `INSERT INTO leases (name, holder, lease_until, acquired_at) VALUES (@name, @holder, @until, @at)
     ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until,
       acquired_at = CASE WHEN leases.holder = excluded.holder THEN leases.acquired_at ELSE excluded.acquired_at END
     WHERE leases.holder = excluded.holder OR leases.lease_until < @at`,
  ).run({ name, holder, until, at }).changes > 0,
  renewLease: (c: OpContext, name: string, holder: string, until: number): boolean =>
    c.q('UPDATE leases SET lease_until = ? WHERE name = ? AND holder = ?').run(until, name, holder).changes > 0,
  releaseLease: (c: OpContext, name: string, holder: string): void => {
    c.q('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder);
  },
} satisfies Record<string, (c: OpContext, ...args: never[]) => unknown>;

export type WriteOps = typeof WRITE_OPS;
export type OpName = keyof WriteOps;
export type OpArgs<K extends OpName> = WriteOps[K] extends (c: OpContext, ...args: infer A) => unknown ? A : never;
export type OpResult<K extends OpName> = ReturnType<WriteOps[K]>;

/**
 * Rows an operation may add before its batch counts as large (write-thread.ts gives such a batch a larger page
 * cache). A REST order is about five rows (the order, its lines, its event) and a batch of them stays far below; a
 * large file's batch of 1,000 orders of 10 lines is 12,000 rows, whose pages (the tables' and their indexes' right
 * edges, the new rows) outgrow 2 MiB within the transaction, so SQLite spills them to the WAL and reads them back.
 */
export const LARGE_OP_ROWS = 1000;

function registerRows(items: readonly RegisterItem[]): number {
  let rows = 0;
  for (const i of items) rows += 2 + (i.order?.righe?.length ?? 0);
  return rows;
}

/** Whether the operation `name` with these (unchecked) arguments adds LARGE_OP_ROWS rows or more. */
export function isLargeOp(name: string, args: readonly unknown[]): boolean {
  const list = (v: unknown): readonly never[] => (Array.isArray(v) ? v as never[] : []);
  switch (name) {
    case 'registerOrders': return registerRows(list(args[0])) >= LARGE_OP_ROWS;
    case 'recordAttempts': return list(args[1]).length >= LARGE_OP_ROWS;
    case 'completeSubmission': return list((args[2] as Outcome | undefined)?.orders).length >= LARGE_OP_ROWS;
    default: return false;
  }
}

/** Run the operation `name` (from a message: the name is checked, the arguments are the store method's). */
export function runOp(c: OpContext, name: string, args: readonly unknown[]): unknown {
  if (!Object.hasOwn(WRITE_OPS, name)) throw new Error(`unknown SQLite write operation "${name}"`);
  return (WRITE_OPS[name as OpName] as (c: OpContext, ...a: unknown[]) => unknown)(c, ...args);
}
