/** Rows of the web's tables, their conversions and the console's list queries, shared by the SQLite and PostgreSQL implementations of WebStore (src/domain/store/web.ts). */
import type {
  ArticleSearch, AuditEntry, Operator, OperatorRole, OrderSearch, SubmissionSearch, WebSession, WebSessionKind,
} from '../../domain/store/web.ts';
import type { Article } from '../../domain/store/records.ts';
import { refused, UNPROCESSED } from './partial-terms.ts';

export interface OperatorRow {
  id: string; email: string; role: string; password_hash: string; created_at: unknown; disabled_at: unknown;
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

export function toOperator(r: OperatorRow): Operator {
  const o: Operator = { id: r.id, email: r.email, role: r.role as OperatorRole, passwordHash: r.password_hash, createdAt: iso(r.created_at) };
  if (r.disabled_at !== null && r.disabled_at !== undefined) o.disabledAt = iso(r.disabled_at);
  return o;
}

export function toWebSession(r: { token_hash: string; kind: string; subject_id: string; created_at: unknown; expires_at: unknown }): WebSession {
  return { tokenHash: r.token_hash, kind: r.kind as WebSessionKind, subjectId: r.subject_id, createdAt: iso(r.created_at), expiresAt: iso(r.expires_at) };
}

export function toAudit(r: { id: string; at: unknown; actor: string; action: string; object_type: string; object_id: string; detail: unknown }): AuditEntry {
  const detail = typeof r.detail === 'string' ? JSON.parse(r.detail) as Record<string, unknown> : (r.detail ?? {}) as Record<string, unknown>;
  return { id: r.id, at: iso(r.at), actor: r.actor, action: r.action, objectType: r.object_type, objectId: r.object_id, detail };
}

/** `text` as a LIKE pattern that finds it anywhere in a value, its own `%`, `_` and `\` taken literally (ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * How an engine spells "contains, in any case" for a column and a parameter: SQLite's LIKE ignores the case of ASCII
 * letters, PostgreSQL's ILIKE of every letter.
 */
export type Contains = (column: string, param: string) => string;

/** The customers whose code or name contains the pattern (customers is a small table, read whole). */
function customersMatching(param: (v: unknown) => string, contains: Contains, p: string): string {
  return `SELECT id FROM customers WHERE ${contains('code', param(p))} OR ${contains('name', param(p))}`;
}

/**
 * The customer filter as a term of a list. Several customers' rows cannot come in time order from the index by
 * customer (SQLite sorted them all, a whole customer's history per page): `walk` spells the column so that the
 * engine walks the time index instead and keeps the rows of those customers, stopping at the page's limit (SQLite
 * takes no index for `+column`). A text naming one customer never comes here (narrowCustomer).
 */
function customerTerm(text: string, param: (v: unknown) => string, contains: Contains, walk: string): string {
  return `${walk} IN (${customersMatching(param, contains, containsPattern(text))})`;
}

/**
 * The statement that finds the customers a customer text names, for narrowCustomer: up to two that contain it, the
 * one whose code is the text itself first.
 */
export function customersNamedSql(text: string, param: (v: unknown) => string, contains: Contains): string {
  // Each value its own placeholder, in the order they appear: SQLite's `?` are taken in turn.
  return `SELECT id, code FROM customers WHERE code = ${param(text)} OR ${contains('code', param(containsPattern(text)))}
    OR ${contains('name', param(containsPattern(text)))} ORDER BY CASE WHEN code = ${param(text)} THEN 0 ELSE 1 END LIMIT 2`;
}

/**
 * A search whose customer text names one customer becomes a search of that customer's id, which its index serves in
 * time order: the text is the customer's code (the console's links to a customer's lists say `cliente=C001`, which
 * must not also list C0010's), or only one customer contains it. Undefined when no customer (or none compatible with
 * the search's own customerId) matches, so the answer is empty. `find` runs customersNamedSql.
 */
export async function narrowCustomer<Q extends { customer?: string; customerId?: string }>(
  q: Q, find: (text: string) => Promise<{ id: string; code: string }[]> | { id: string; code: string }[],
): Promise<Q | undefined> {
  if (q.customer === undefined) return q;
  const found = await find(q.customer);
  const one = found.length === 1 || found[0]?.code === q.customer ? found[0] : undefined;
  if (found.length === 0) return undefined;
  if (!one) return q;
  if (q.customerId !== undefined && q.customerId !== one.id) return undefined;
  const { customer: _customer, ...rest } = q;
  return { ...rest, customerId: one.id } as Q;
}

/**
 * A list query built from the filters that are set: one statement text per combination (a handful), so each
 * uses the index for its leading filter; `? IS NULL OR …` would defeat every index. `param` spells the engine's
 * placeholder for the next value; `esito` its expression for the outcome's esito (the indexed expression, spelled
 * exactly as in migration 010).
 */
export function submissionSearchSql(
  q: SubmissionSearch, columns: string, esito: string, param: (v: unknown) => string, contains: Contains, walk = 'customer_id',
): string {
  const where: string[] = [];
  if (q.customerId !== undefined) where.push(`customer_id = ${param(q.customerId)}`);
  if (q.customer !== undefined) where.push(customerTerm(q.customer, param, contains, walk));
  if (q.channel !== undefined) where.push(`channel = ${param(q.channel)}`);
  // The partial indexes' own terms (partial-terms.ts): the lists of received, failed and refused submissions take them;
  // accepted ones, nearly every row, are kept from the walk of the time index.
  if (q.outcome === 'received' || q.outcome === 'failed') where.push(`state = ${param(q.outcome)}`, UNPROCESSED);
  if (q.outcome === 'errore') where.push(refused(esito));
  if (q.outcome === 'ok') where.push(`${esito} = 'ok'`);
  if (q.from !== undefined) where.push(`received_at >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`received_at < ${param(q.to)}`);
  if (q.riferimento !== undefined) {
    // Per submission met on the walk, its attempts by their primary key (submission_id, idx): no index finds a part
    // of a reference, so the walk stops at the page's limit instead of reading every attempt first.
    where.push(`EXISTS (SELECT 1 FROM order_attempts a WHERE a.submission_id = submissions.id
      AND ${contains('a.riferimento_ordine', param(containsPattern(q.riferimento)))})`);
  }
  if (q.after !== undefined) where.push(`(received_at, id) < (${param(q.after.at)}, ${param(q.after.id)})`);
  return `SELECT ${columns} FROM submissions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY received_at DESC, id DESC LIMIT ${param(q.limit)}`;
}

export function orderSearchSql(
  q: OrderSearch, columns: string, param: (v: unknown) => string, contains: Contains, walk = 'customer_id',
): string {
  const where: string[] = [];
  if (q.customerId !== undefined) where.push(`customer_id = ${param(q.customerId)}`);
  if (q.customer !== undefined) where.push(customerTerm(q.customer, param, contains, walk));
  if (q.channel !== undefined) where.push(`channel = ${param(q.channel)}`);
  if (q.from !== undefined) where.push(`registered_at >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`registered_at < ${param(q.to)}`);
  if (q.riferimento !== undefined) where.push(contains('riferimento_ordine', param(containsPattern(q.riferimento))));
  if (q.after !== undefined) where.push(`(registered_at, id) < (${param(q.after.at)}, ${param(q.after.id)})`);
  return `SELECT ${columns} FROM orders ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY registered_at DESC, id DESC LIMIT ${param(q.limit)}`;
}

/**
 * Articles whose code or description contains the text, by code: the primary key's order, walked until the page is
 * full (a part of a value has no index). Demo articles only when asked for.
 */
export function articleSearchSql(q: ArticleSearch, param: (v: unknown) => string, contains: Contains, notDemo: string): string {
  const where: string[] = [];
  if (q.text !== '') {
    const p = containsPattern(q.text);
    where.push(`(${contains('codice_articolo', param(p))} OR ${contains('descrizione', param(p))})`);
  }
  if (q.demo !== true) where.push(notDemo);
  return `SELECT codice_articolo, descrizione, unita_misura, demo FROM articles ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY codice_articolo LIMIT ${param(pageLimit(q.limit))}`;
}

export function toArticle(r: { codice_articolo: string; descrizione: string; unita_misura: string; demo: unknown }): Article {
  const a: Article = { codice_articolo: r.codice_articolo, descrizione: r.descrizione, unita_misura: r.unita_misura };
  if (r.demo === true || r.demo === 1) a.demo = true;
  return a;
}

/** Most rows one list page may ask for: a page is read by a person, and an export pages through the same query. */
export const MAX_PAGE = 1000;

export function pageLimit(n: number): number {
  return Math.max(1, Math.min(MAX_PAGE, Math.trunc(n) || 1));
}
