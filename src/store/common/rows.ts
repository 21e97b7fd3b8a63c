/**
 * What the SQLite and PostgreSQL stores share: turning rows into the port's objects, the rules that decide a
 * registration, and the guards that make both engines refuse the same bad input the same way.
 *
 * Rows arrive with engine-specific types (SQLite: text timestamps, 0/1 booleans, JSON as text; PostgreSQL:
 * Date, boolean, parsed JSON), so the readers below accept either form.
 */
import { withoutUndefined } from '../../domain/objects.ts';
import { IntakeError } from '../../domain/errors.ts';
import { hasAttemptRow } from './outcome-form.ts';
import type {
  Channel, Order, OrderLine, Outcome, OrderOutcome, ProductionState, RegisteredOrder, StoredSubmission, SubmissionState,
} from '../../domain/types.ts';
import { CHANNELS } from '../../domain/types.ts';
import type {
  Credential, CredentialKind, Customer, NewSubmission, OrderAttempt, RegisterItem, RegisterResult, SubmissionSummary,
} from '../../domain/store/store.ts';

/**
 * Codes asked about in one catalog query. A 10,000-line order asks about up to 10,000 codes; 500 per query
 * keeps each statement small and index-driven, and well under SQLite's and PostgreSQL's parameter limits
 * should a backend ever bind them one by one.
 */
export const CODE_CHUNK = 500;

/** Default and largest page of listings: operator screens and the CLI, never an unbounded dump. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** Pending submissions are drained in batches; a larger batch only delays the first one. */
export const MAX_PENDING_BATCH = 10_000;

export function nowIso(): string {
  return new Date().toISOString();
}

/**
 * Timestamps are stored normalised (UTC, milliseconds, `Z`): SQLite compares them as text, so every row must
 * use the same spelling for "newest first" to be right, and PostgreSQL then gives back exactly what was written.
 */
export function isoIn(value: string, field: string): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new TypeError(`${field} must be an ISO-8601 timestamp, got "${value}"`);
  return d.toISOString();
}

export function isoOut(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return new Date(String(value)).toISOString();
}

export function optIsoOut(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : isoOut(value);
}

export function jsonOut<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

function opt<T>(value: T | null | undefined): T | undefined {
  return value === null || value === undefined ? undefined : value;
}

export function boolOut(value: unknown): boolean {
  return value === true || value === 1 || value === 1n;
}

export function limitOf(limit: number | undefined, fallback = DEFAULT_LIMIT, max = MAX_LIMIT): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1) throw new IntakeError('VALIDATION', 'limit must be a positive whole number');
  return Math.min(limit, max);
}

/**
 * `channel IN (...)` for a list of channels, the values written into the SQL (each checked against CHANNELS, so
 * nothing else can get in): as literals, the term is the one the partial index of FTP/SFTP files is made with
 * (migration 029), which both engines use only when the query spells its predicate with constants.
 */
export function channelsSql(channels: readonly string[]): string {
  const known = new Set<string>(CHANNELS);
  if (!Array.isArray(channels) || channels.some((c) => !known.has(c))) {
    throw new IntakeError('VALIDATION', `channels must be some of: ${CHANNELS.join(', ')}`);
  }
  const list = [...new Set(channels)].sort();
  return list.length === 0 ? '1 = 0' : `channel IN (${list.map((c) => `'${c}'`).join(', ')})`;
}

export function chunks<T>(items: readonly T[], size = CODE_CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function numeroOrdine(year: number, seq: number): string {
  return `${year}-${String(seq).padStart(6, '0')}`;
}

/**
 * PostgreSQL text cannot hold NUL and SQLite can; so that both engines keep the same submission, NUL in the
 * descriptive columns becomes U+FFFD. The raw bytes, which are what matters, are kept untouched.
 */
export function cleanText(value: string | undefined): string | null {
  return value === undefined ? null : value.replace(/\0/g, '\uFFFD');
}

export function lowerMailbox(address: string): string {
  return address.trim().toLowerCase();
}

export function upperUnit(code: string): string {
  return code.trim().toUpperCase();
}

/** Later rows win, as they would if the batch were applied one row at a time (PostgreSQL refuses repeats). */
export function lastWins<T>(rows: readonly T[], key: (row: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const row of rows) byKey.set(key(row), row);
  return [...byKey.values()];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function realDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/**
 * Stage A should already have refused all of this; the store checks again because the engines disagree on it
 * (PostgreSQL rejects NUL in text and impossible dates, SQLite stores them; SQLite turns NaN into NULL), and a
 * bad item must give a clear error, not an engine message, whichever engine runs.
 */
export function checkItem(item: RegisterItem, position: number): void {
  const o = item.order;
  const problems: string[] = [];
  const text = (value: unknown, field: string, required = true): void => {
    if (value === undefined && !required) return;
    if (typeof value !== 'string' || (required && value === '')) problems.push(`${field} must be a non-empty string`);
    else if (value.includes('\0')) problems.push(`${field} must not contain NUL characters`);
  };
  text(o.codice_cliente, 'codice_cliente');
  text(o.riferimento_ordine, 'riferimento_ordine');
  if (typeof o.data_ordine !== 'string' || !realDate(o.data_ordine)) problems.push('data_ordine must be a date (YYYY-MM-DD)');
  if (o.data_consegna !== undefined && (typeof o.data_consegna !== 'string' || !realDate(o.data_consegna))) {
    problems.push('data_consegna must be a date (YYYY-MM-DD)');
  }
  text(o.note, 'note', false);
  if (!Array.isArray(o.righe) || o.righe.length === 0) problems.push('righe must contain at least 1 elements');
  else {
    o.righe.forEach((r, i) => {
      text(r.codice_articolo, `righe.${i}.codice_articolo`);
      text(r.unita_misura, `righe.${i}.unita_misura`);
      if (typeof r.quantita !== 'number' || !Number.isFinite(r.quantita)) problems.push(`righe.${i}.quantita must be a finite number`);
    });
  }
  if (!Number.isInteger(item.year) || item.year < 1 || item.year > 9999) problems.push('year must be a whole number from 1 to 9999');
  if (problems.length > 0) {
    throw new IntakeError('VALIDATION', problems.map((p) => `item ${position}: ${p}`));
  }
}

/**
 * Catalog rows come from operator files. Both engines refuse the same rows with the same message: NUL would be
 * stored by SQLite and refused by PostgreSQL, and an empty code could never match an order line.
 */
export function checkCatalog(kind: 'article' | 'unit', rows: readonly (readonly [code: unknown, ...rest: unknown[]])[]): void {
  rows.forEach(([code, ...rest], i) => {
    if (typeof code !== 'string' || code.trim() === '') throw new IntakeError('VALIDATION', `${kind} ${i}: the code must be a non-empty string`);
    for (const v of [code, ...rest]) {
      if (typeof v !== 'string') throw new IntakeError('VALIDATION', `${kind} "${code}": every field must be a string`);
      if (v.includes('\0')) throw new IntakeError('VALIDATION', `${kind} "${code.replace(/\0/g, '\\0')}": NUL characters are not allowed`);
    }
  });
}

export interface ExistingOrder {
  id: string;
  numero_ordine: string;
  submission_id: string;
  content_hash: string;
}

/**
 * The same submission sending the same content again (a reprocess, or the same order twice in one file) gets
 * the answer it got the first time; identical content from elsewhere is a duplicate; anything else conflicts.
 */
export function decide(existing: ExistingOrder, item: RegisterItem): RegisterResult {
  const found = { id_ordine: existing.id, numero_ordine: existing.numero_ordine };
  if (existing.content_hash !== item.contentHash) return { status: 'conflict', ...found };
  if (existing.submission_id === item.submissionId) return { status: 'created', ...found };
  return { status: 'duplicate', ...found };
}

/** One order_attempts row per judged order that names a reference (what GET ?riferimento_ordine= shows). */
export function attemptRows(outcome: Outcome): AttemptInsert[] {
  return [...eachAttemptRow(outcome)];
}

export interface AttemptInsert { idx: number; riferimento: string; esito: string; json: string; customer?: string }

/**
 * attemptRows one at a time: a store that inserts them row by row holds one, not a JSON text per order of a large
 * file at once (100,000 orders: some 30 MiB).
 */
export function* eachAttemptRow(outcome: Outcome): Generator<AttemptInsert, void, undefined> {
  const orders = outcome.orders;
  for (let i = 0; i < orders.length; i++) {
    const o = orders[i];
    // A hole (none in a judged outcome) is skipped, as forEach did.
    if (hasAttemptRow(o)) yield attemptRow(i, o);
  }
}

/** The order_attempts row of the order at position `idx` (one that has a row: hasAttemptRow). */
export function attemptRow(idx: number, o: OrderOutcome & { riferimento_ordine: string }): AttemptInsert {
  // A multi-customer connector's order is filed under its own customer (OrderOutcome.customerId).
  return { idx, riferimento: o.riferimento_ordine, esito: o.esito, json: JSON.stringify(o), ...(o.customerId ? { customer: o.customerId } : {}) };
}

/** recordAttempts' rows: the orders that name a reference, each at its own position in the file. */
export function* recordedAttemptRows(orders: readonly OrderOutcome[]): Generator<AttemptInsert, void, undefined> {
  for (const o of orders) if (hasAttemptRow(o)) yield attemptRow(o.index, o);
}

export interface CustomerRow { id: string; code: string; name: string; mailbox: string; created_at: unknown; deactivated_at?: unknown }

export function toCustomer(r: CustomerRow): Customer {
  const c: Customer = { id: r.id, code: r.code, name: r.name, mailbox: r.mailbox, createdAt: isoOut(r.created_at) };
  const off = optIsoOut(r.deactivated_at);
  if (off) c.deactivatedAt = off;
  return c;
}

export interface CredentialRow {
  id: string; customer_id: string; kind: string; lookup: string; secret_hash: string; created_at: unknown; revoked_at: unknown;
}

export function toCredential(r: CredentialRow): Credential {
  const c: Credential = {
    id: r.id, customerId: r.customer_id, kind: r.kind as CredentialKind, lookup: r.lookup, secretHash: r.secret_hash,
    createdAt: isoOut(r.created_at),
  };
  const revokedAt = optIsoOut(r.revoked_at);
  if (revokedAt !== undefined) c.revokedAt = revokedAt;
  return c;
}

/** Columns every submission query selects (summaries add `esito`, full reads add `raw` and `outcome`). */
export const SUBMISSION_COLUMNS = `id, customer_id, customer_code, channel, file_name, media_type, charset, meta,
  single_order, site, sites, connector_id, reserved_order_id, sha256, received_at, state, processed_at, attempts, retries`;

export interface SubmissionRow {
  id: string; customer_id: string; customer_code: string; channel: string; file_name: string | null;
  media_type: string | null; charset: string | null; meta: unknown; single_order: unknown; site: string | null;
  sites: unknown; connector_id: string | null; reserved_order_id: string | null; sha256: string; received_at: unknown;
  state: string; processed_at: unknown; attempts: number; retries?: number;
  esito?: string | null; raw?: Buffer; outcome?: unknown;
  /** Selected by the console's list search only: refused, yet some order accepted. */
  partial?: unknown;
  /** Bytes of raw: summaries select length(raw) rather than the bytes. */
  size?: unknown;
}

export function toSummary(r: SubmissionRow): SubmissionSummary {
  const sites = r.sites === null || r.sites === undefined ? undefined : jsonOut<string[]>(r.sites);
  return withoutUndefined<SubmissionSummary>({
    id: r.id,
    customerId: r.customer_id,
    customerCode: r.customer_code,
    channel: r.channel as Channel,
    fileName: opt(r.file_name),
    mediaType: opt(r.media_type),
    charset: opt(r.charset),
    meta: jsonOut<Record<string, string>>(r.meta ?? '{}'),
    singleOrder: boolOut(r.single_order),
    site: opt(r.site),
    sites,
    connectorId: opt(r.connector_id),
    reservedOrderId: opt(r.reserved_order_id),
    sha256: r.sha256,
    receivedAt: isoOut(r.received_at),
    state: r.state as SubmissionState,
    processedAt: optIsoOut(r.processed_at),
    attempts: Number(r.attempts),
    retries: Number(r.retries ?? 0),
    esito: (opt(r.esito) as Outcome['esito'] | undefined),
    partial: boolOut(r.partial) || undefined,
    size: Number(r.size ?? r.raw?.length ?? 0),
  });
}

/**
 * The row saveSubmission inserts, exactly as getSubmission reads it back (NUL replaced in descriptive text,
 * timestamp normalised, state "received"). Both engines insert these values and answer with toSubmission of
 * this row rather than reading the row back: the read cost a query and a copy of the raw body per submission.
 */
export function newSubmissionRow(s: NewSubmission): SubmissionRow & { raw: Buffer } {
  return {
    id: s.id, customer_id: s.customerId, customer_code: cleanText(s.customerCode) as string, channel: s.channel,
    file_name: cleanText(s.fileName), media_type: cleanText(s.mediaType), charset: cleanText(s.charset),
    raw: s.raw, meta: JSON.stringify(s.meta ?? {}), single_order: s.singleOrder === true, site: cleanText(s.site),
    sites: s.sites === undefined ? null : JSON.stringify(s.sites), connector_id: cleanText(s.connectorId),
    reserved_order_id: s.reservedOrderId ?? null, sha256: s.sha256, received_at: isoIn(s.receivedAt, 'receivedAt'),
    state: 'received', processed_at: null, attempts: 0, retries: 0, outcome: null,
  };
}

export function toSubmission(r: SubmissionRow): StoredSubmission {
  const { esito: _esito, size: _size, ...summary } = toSummary(r);
  const raw = r.raw ?? Buffer.alloc(0);
  const outcome = r.outcome === null || r.outcome === undefined ? undefined : jsonOut<Outcome>(r.outcome);
  return withoutUndefined<StoredSubmission>({ ...summary, raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw), outcome });
}

export interface OrderRow {
  id: string; customer_id: string; codice_cliente: string; riferimento_ordine: string; numero_ordine: string;
  data_ordine: string; data_consegna: string | null; submission_id: string; channel: string; site: string | null;
  registered_at: unknown;
  /** Migration 007; absent from rows read by code that does not select it. */
  production_state?: string | null;
  /** Migration 031; absent from rows read by code that does not select it. */
  note?: string | null;
  /** Migration 034; absent from rows read by code that does not select them (version 1). */
  versione?: number | null;
  version_at?: unknown;
  version_channel?: string | null;
}

export interface LineRow { order_id: string; idx: number; codice_articolo: string; quantita: number; unita_misura: string }

export function toOrder(r: OrderRow, lines: readonly LineRow[]): RegisteredOrder {
  const righe: OrderLine[] = [...lines]
    .sort((a, b) => a.idx - b.idx)
    .map((l) => ({ codice_articolo: l.codice_articolo, quantita: Number(l.quantita), unita_misura: l.unita_misura }));
  const order: Order = {
    codice_cliente: r.codice_cliente,
    riferimento_ordine: r.riferimento_ordine,
    data_ordine: r.data_ordine,
    righe,
  };
  if (r.data_consegna !== null) order.data_consegna = r.data_consegna;
  if (r.note !== null && r.note !== undefined) order.note = r.note;
  const registered: RegisteredOrder = {
    ...order,
    id_ordine: r.id,
    numero_ordine: r.numero_ordine,
    customerId: r.customer_id,
    submissionId: r.submission_id,
    channel: r.channel as Channel,
    registeredAt: isoOut(r.registered_at),
    versione: Number(r.versione ?? 1),
  };
  if (r.version_at !== null && r.version_at !== undefined) registered.versionAt = isoOut(r.version_at);
  if (r.version_channel !== null && r.version_channel !== undefined) registered.versionChannel = r.version_channel as Channel;
  if (r.site !== null) registered.sito_produzione = r.site;
  if (r.production_state) {
    registered.productionState = r.production_state as ProductionState;
    registered.productionHistory = [];
  }
  return registered;
}

/** Groups line rows by order so a listing needs one line query, not one per order. */
export function linesByOrder(lines: readonly LineRow[]): Map<string, LineRow[]> {
  const map = new Map<string, LineRow[]>();
  for (const l of lines) {
    const list = map.get(l.order_id);
    if (list) list.push(l);
    else map.set(l.order_id, [l]);
  }
  return map;
}

export interface AttemptRow { submission_id: string; channel: string; received_at: unknown; outcome: unknown }

export function toAttempt(r: AttemptRow): OrderAttempt {
  return {
    submissionId: r.submission_id,
    channel: r.channel as Channel,
    receivedAt: isoOut(r.received_at),
    outcome: jsonOut<OrderOutcome>(r.outcome),
  };
}
