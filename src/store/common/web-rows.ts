/** Rows of the web's tables, their conversions and the console's list queries, shared by the SQLite and PostgreSQL implementations of WebStore (src/domain/store/web.ts). */
import type {
  AuditEntry, Operator, OperatorRole, OrderSearch, SubmissionSearch, WebSession, WebSessionKind,
} from '../../domain/store/web.ts';
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

/**
 * A list query built from the filters that are set: one statement text per combination (a handful), so each
 * uses the index for its leading filter; `? IS NULL OR …` would defeat every index. `param` spells the engine's
 * placeholder for the next value; `esito` its expression for the outcome's esito (the indexed expression, spelled
 * exactly as in migration 010).
 */
export function submissionSearchSql(
  q: SubmissionSearch, columns: string, esito: string, param: (v: unknown) => string,
): string {
  const where: string[] = [];
  if (q.customerId !== undefined) where.push(`customer_id = ${param(q.customerId)}`);
  if (q.channel !== undefined) where.push(`channel = ${param(q.channel)}`);
  // The partial indexes' own terms (partial-terms.ts): the lists of received, failed and refused submissions take them;
  // accepted ones, nearly every row, are kept from the walk of the time index.
  if (q.outcome === 'received' || q.outcome === 'failed') where.push(`state = ${param(q.outcome)}`, UNPROCESSED);
  if (q.outcome === 'errore') where.push(refused(esito));
  if (q.outcome === 'ok') where.push(`${esito} = 'ok'`);
  if (q.from !== undefined) where.push(`received_at >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`received_at < ${param(q.to)}`);
  if (q.riferimento !== undefined) {
    where.push(`id IN (SELECT submission_id FROM order_attempts WHERE riferimento_ordine = ${param(q.riferimento)})`);
  }
  if (q.after !== undefined) where.push(`(received_at, id) < (${param(q.after.at)}, ${param(q.after.id)})`);
  return `SELECT ${columns} FROM submissions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY received_at DESC, id DESC LIMIT ${param(q.limit)}`;
}

export function orderSearchSql(q: OrderSearch, columns: string, param: (v: unknown) => string): string {
  const where: string[] = [];
  if (q.customerId !== undefined) where.push(`customer_id = ${param(q.customerId)}`);
  if (q.channel !== undefined) where.push(`channel = ${param(q.channel)}`);
  if (q.from !== undefined) where.push(`registered_at >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`registered_at < ${param(q.to)}`);
  if (q.riferimento !== undefined) where.push(`riferimento_ordine = ${param(q.riferimento)}`);
  if (q.after !== undefined) where.push(`(registered_at, id) < (${param(q.after.at)}, ${param(q.after.id)})`);
  return `SELECT ${columns} FROM orders ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY registered_at DESC, id DESC LIMIT ${param(q.limit)}`;
}

/** Most rows one list page may ask for: a page is read by a person, and an export pages through the same query. */
export const MAX_PAGE = 1000;

export function pageLimit(n: number): number {
  return Math.max(1, Math.min(MAX_PAGE, Math.trunc(n) || 1));
}
