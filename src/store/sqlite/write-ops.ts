/**
 * The writes of the intake path on the embedded store, as named operations on plain data: saving a submission,
 * registering orders, recording an outcome (each with its outbox rows), and the named leases. Named and plain so
 * that they can run on the connection of the write thread (write-thread.ts) as well as on the store's own
 * (an in-memory database, which only its own connection can see). They run inside a group commit's transaction
 * (writer.ts; each in a savepoint of its own only when its batch runs again after a write failed), never on their
 * own.
 */
import type Database from 'better-sqlite3';
import { IntakeError } from '../../domain/errors.ts';
import type { Channel, OrderOutcome, Outcome, SubmissionState } from '../../domain/types.ts';
import { refusalEvents, registeredEvent } from '../common/events.ts';
import { eachAttemptRow, decide, isoIn, numeroOrdine, recordedAttemptRows, type ExistingOrder } from '../common/rows.ts';
import { insertEvents } from './events.ts';
import { outcomeJson, positionsWithoutAttempt } from '../common/outcome-form.ts';
import {
  adoptUploadPieces, discardStagedUpload, INLINE_BODY_BYTES, insertSubmissionChunks, insertSubmissionChunksFromFile,
  stageUploadPieces, sweepStagedUploads,
} from './bodies.ts';
import type { CompleteOptions, RegisterItem, RegisterResult } from '../../domain/store/store.ts';

export interface OpContext {
  q: (sql: string) => Database.Statement;
  /** Whether order events are written (INTAKE_OUTBOX; off in some benchmarks only). */
  outbox: boolean;
}

/** The values of one submissions row, in SUBMISSION_INSERT's order (see newSubmissionRow). */
export type SubmissionValues = readonly unknown[];

/** Where the raw bytes are among SUBMISSION_INSERT's values. */
const RAW_AT = 7;
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

function registerOne(c: OpContext, item: RegisterItem): RegisterResult {
  const { q } = c;
  const o = item.order;
  const found = q(`SELECT id, numero_ordine, submission_id, content_hash FROM orders
    WHERE codice_cliente = ? AND riferimento_ordine = ?`).get(o.codice_cliente, o.riferimento_ordine) as ExistingOrder | undefined;
  if (found) return decide(found, item);
  const { last } = q(`INSERT INTO order_sequences (year, last) VALUES (?, 1)
    ON CONFLICT (year) DO UPDATE SET last = last + 1 RETURNING last`).get(item.year) as { last: number };
  const numero = numeroOrdine(item.year, last);
  const at = isoIn(item.registeredAt, 'registeredAt');
  q(`INSERT INTO orders (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine,
    data_consegna, content_hash, submission_id, channel, site, registered_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    item.id, item.customerId, o.codice_cliente, o.riferimento_ordine, numero, item.year, last, o.data_ordine,
    o.data_consegna ?? null, item.contentHash, item.submissionId, item.channel, item.site ?? null, at,
  );
  insertLines(q, item.id, o.righe);
  // The outbox: in the same transaction, so the event exists exactly when the order does.
  if (c.outbox) insertEvents(q, [registeredEvent(item, numero, at)]);
  return { status: 'created', id_ordine: item.id, numero_ordine: numero };
}

function save(c: OpContext, values: SubmissionValues): void {
  // A few bytes go in the row; more go in pieces beside it, in the same transaction, and the row's own raw is
  // empty (bodies.ts). A Buffer arrives from another thread as a plain Uint8Array: the pieces are views of it, no
  // copy. A file channel's upload comes as its spool file's name and size ({file, size}): read here in pieces.
  // One whose first bytes were streamed into upload_pieces while it arrived ({file, size, staged}) adopts them and
  // writes the rest there (bodies.ts).
  const raw = values[RAW_AT] as Uint8Array | { file: string; size: number; staged?: number };
  if (raw instanceof Uint8Array && raw.length <= INLINE_BODY_BYTES) {
    c.q(SUBMISSION_INSERT).run(...values.map((v, i) => (i === RAW_AT ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) : v)));
    return;
  }
  c.q(SUBMISSION_INSERT).run(...values.map((v, i) => (i === RAW_AT ? EMPTY_BODY : v)));
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
  const sub = c.q('SELECT customer_id, channel, received_at FROM submissions WHERE id = ?').get(id) as
    | { customer_id: string; channel: Channel; received_at: string } | undefined;
  if (!sub) throw new IntakeError('NOT_FOUND', `submission ${id} not found`);
  const ins = c.q(ATTEMPT_UPSERT);
  for (const a of recordedAttemptRows(orders)) {
    ins.run(id, a.idx, a.customer ?? sub.customer_id, a.riferimento, a.esito, a.json, sub.received_at, sub.channel);
  }
}

function complete(c: OpContext, id: string, state: SubmissionState, outcome: Outcome, processedAt: string, opts?: CompleteOptions): void {
  const { q } = c;
  // One statement finds the row, changes it and gives back what the attempts and events need.
  const sub = q(`UPDATE submissions SET state = ?, outcome = ?, processed_at = ?, attempts = attempts + 1 WHERE id = ?
    RETURNING customer_id, customer_code, channel, received_at, reserved_order_id`)
    .get(state, outcomeJson(outcome, opts?.attemptsRecorded ? 0 : undefined), isoIn(processedAt, 'processedAt'), id) as
    | { customer_id: string; customer_code: string; channel: Channel; received_at: string; reserved_order_id: string | null }
    | undefined;
  if (!sub) throw new IntakeError('NOT_FOUND', `submission ${id} not found`);
  if (opts?.attemptsRecorded) {
    // This judgement's rows are written (record): what is left of an earlier one goes.
    q('DELETE FROM order_attempts WHERE submission_id = ? AND (idx >= ? OR idx IN (SELECT value FROM json_each(?)))')
      .run(id, outcome.orders.length, JSON.stringify(positionsWithoutAttempt(outcome)));
  } else {
    q('DELETE FROM order_attempts WHERE submission_id = ?').run(id);
    const ins = q(`INSERT INTO order_attempts (submission_id, idx, customer_id, riferimento_ordine, esito, outcome,
      received_at, channel) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const a of eachAttemptRow(outcome)) {
      ins.run(id, a.idx, a.customer ?? sub.customer_id, a.riferimento, a.esito, a.json, sub.received_at, sub.channel);
    }
  }
  // The outbox: refusals are known only now, and are recorded with the outcome that states them.
  if (c.outbox) insertEvents(q, refusalEvents(outcome, {
    customerId: sub.customer_id, customerCode: sub.customer_code, channel: sub.channel, receivedAt: sub.received_at,
    reservedOrderId: sub.reserved_order_id ?? undefined,
  }, isoIn(processedAt, 'processedAt')));
}

/**
 * The operations, by name. Arguments are checked by the store method before they are queued (anything thrown here
 * comes back to the caller as the method's error). Lease times (`at`) come from the caller's clock.
 */
export const WRITE_OPS = {
  saveSubmission: (c: OpContext, values: SubmissionValues): void => save(c, values),
  saveAndRegister: (c: OpContext, values: SubmissionValues, items: readonly RegisterItem[]): RegisterResult[] => {
    save(c, values);
    return items.map((i) => registerOne(c, i));
  },
  registerOrders: (c: OpContext, items: readonly RegisterItem[]): RegisterResult[] => items.map((i) => registerOne(c, i)),
  stageUploadPieces: (c: OpContext, uploadId: string, file: string, offset: number, length: number, at: string): void =>
    stageUploadPieces(c.q, uploadId, file, offset, length, at),
  discardStagedUpload: (c: OpContext, uploadId: string): void => discardStagedUpload(c.q, uploadId),
  sweepStagedUploads: (c: OpContext, before: string): number => sweepStagedUploads(c.q, before),
  completeSubmission: (c: OpContext, id: string, state: SubmissionState, outcome: Outcome, processedAt: string, opts?: CompleteOptions): void =>
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
    case 'saveAndRegister': return registerRows(list(args[1])) >= LARGE_OP_ROWS;
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
