/**
 * The web's tables in the embedded store (migration 010): see the WebStore port in web.ts.
 */
import type Database from 'better-sqlite3';
import { alreadyExists } from '../common/refusals.ts';
import { isoIn, nowIso, SUBMISSION_COLUMNS, toOrder, toSummary, type OrderRow, type SubmissionRow } from '../common/rows.ts';
import { statementCache } from './statements.ts';
import { type OrderCount, type OrderSummary, type WebStore } from '../../domain/store/web.ts';
import {
  articleSearchSql, customersNamedSql, narrowCustomer, orderSearchSql, pageLimit, submissionSearchSql, toArticle, toAudit, toOperator, toWebSession, type Contains, type OperatorRow,
} from '../common/web-rows.ts';
import { refused } from '../common/partial-terms.ts';
import { sqliteProductionHistory } from './events.ts';
import { chunks } from '../common/rows.ts';
import { orderExportLinesSql, toExportLines, type OrderExportRow } from '../common/order-export.ts';

/** Spelled exactly as the index submissions_esito_received, or SQLite would not use it. */
export const SQLITE_ESITO = `json_extract(outcome, '$.esito')`;
/** Refusals since a time (the console's first page): a range on the partial esito index (migration 027). */
export const COUNT_REFUSED_SQL = `SELECT count(*) AS n FROM submissions WHERE ${refused(SQLITE_ESITO)} AND received_at >= ?`;
/** A refused submission of which some order was accepted: read from its outcome, for the rows a page shows. */
const SQLITE_PARTIAL = `(${SQLITE_ESITO} = 'errore' AND EXISTS (SELECT 1 FROM json_each(outcome, '$.orders') WHERE json_extract(value, '$.esito') = 'ok'))`;
/** The refusals of COUNT_REFUSED_SQL of which some order was accepted: the same index range, each outcome read. */
export const COUNT_PARTIAL_SQL = `${COUNT_REFUSED_SQL} AND ${SQLITE_PARTIAL}`;
const ORDER_COLUMNS = `id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, data_ordine, data_consegna,
  submission_id, channel, site, registered_at, production_state, note`;

/** LIKE ignores the case of ASCII letters in SQLite (case_sensitive_like is never turned on). */
const LIKE: Contains = (column, p) => `${column} LIKE ${p} ESCAPE '\\'`;

/** The statement text and values of a submissions search (exported for the query-plan test). */
export function sqliteSubmissionSearch(q: Parameters<WebStore['searchSubmissions']>[0]): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const sql = submissionSearchSql({ ...q, limit: pageLimit(q.limit) }, `${SUBMISSION_COLUMNS}, ${SQLITE_ESITO} AS esito, ${SQLITE_PARTIAL} AS partial`, SQLITE_ESITO, (v) => {
    values.push(v);
    return '?';
  }, LIKE, '+customer_id');
  return { sql, values };
}

export function sqliteOrderSearch(q: Parameters<WebStore['searchOrders']>[0]): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const sql = orderSearchSql({ ...q, limit: pageLimit(q.limit) }, ORDER_COLUMNS, (v) => {
    values.push(v);
    return '?';
  }, LIKE, '+customer_id');
  return { sql, values };
}

export function sqliteArticleSearch(q: Parameters<WebStore['searchArticles']>[0]): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const sql = articleSearchSql(q, (v) => {
    values.push(v);
    return '?';
  }, LIKE, 'demo = 0');
  return { sql, values };
}

export function sqliteWeb(db: Database.Database): WebStore {
  const q = statementCache(db);
  const endSessions = (kind: string, subjectId: string) => q('DELETE FROM web_sessions WHERE kind = ? AND subject_id = ?').run(kind, subjectId).changes;

  const setPassword = db.transaction((id: string, hash: string): boolean => {
    const { changes } = q('UPDATE operators SET password_hash = ? WHERE id = ?').run(hash, id);
    if (changes > 0) endSessions('operator', id);
    return changes > 0;
  });
  const setDisabled = db.transaction((id: string, disabled: boolean): boolean => {
    const { changes } = q('UPDATE operators SET disabled_at = ? WHERE id = ?').run(disabled ? nowIso() : null, id);
    if (changes > 0 && disabled) endSessions('operator', id);
    return changes > 0;
  });

  const findCustomers = (text: string) => {
    const values: unknown[] = [];
    const sql = customersNamedSql(text, (v) => (values.push(v), '?'), LIKE);
    return q(sql).all(...values) as { id: string; code: string }[];
  };

  return {
    async createOperator(o) {
      const row = { ...o, email: o.email.trim().toLowerCase(), createdAt: isoIn(o.createdAt ?? nowIso(), 'createdAt') };
      try {
        q('INSERT INTO operators (id, email, role, password_hash, created_at) VALUES (?, ?, ?, ?, ?)')
          .run(row.id, row.email, row.role, row.passwordHash, row.createdAt);
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw alreadyExists.operator(row.email);
        throw e;
      }
      return { id: row.id, email: row.email, role: row.role, passwordHash: row.passwordHash, createdAt: row.createdAt };
    },
    async getOperator(id) {
      const r = q('SELECT * FROM operators WHERE id = ?').get(id) as OperatorRow | undefined;
      return r && toOperator(r);
    },
    async getOperatorByEmail(email) {
      const r = q('SELECT * FROM operators WHERE email = ?').get(email.trim().toLowerCase()) as OperatorRow | undefined;
      return r && toOperator(r);
    },
    async listOperators() {
      return (q('SELECT * FROM operators ORDER BY email').all() as OperatorRow[]).map(toOperator);
    },
    async setOperatorPassword(id, hash) {
      return setPassword(id, hash);
    },
    async setOperatorDisabled(id, disabled) {
      return setDisabled(id, disabled);
    },

    async createWebSession(s) {
      q('INSERT INTO web_sessions (token_hash, kind, subject_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
        .run(s.tokenHash, s.kind, s.subjectId, isoIn(s.createdAt, 'createdAt'), isoIn(s.expiresAt, 'expiresAt'));
    },
    async getWebSession(tokenHash) {
      const r = q('SELECT * FROM web_sessions WHERE token_hash = ? AND expires_at > ?').get(tokenHash, nowIso()) as
        | Parameters<typeof toWebSession>[0]
        | undefined;
      return r && toWebSession(r);
    },
    async extendWebSession(tokenHash, expiresAt) {
      q('UPDATE web_sessions SET expires_at = ? WHERE token_hash = ?').run(isoIn(expiresAt, 'expiresAt'), tokenHash);
    },
    async deleteWebSession(tokenHash) {
      q('DELETE FROM web_sessions WHERE token_hash = ?').run(tokenHash);
    },
    async deleteWebSessionsOf(kind, subjectId) {
      return endSessions(kind, subjectId);
    },

    async addAudit(e) {
      q('INSERT INTO audit_log (id, at, actor, action, object_type, object_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(e.id, isoIn(e.at, 'at'), e.actor, e.action, e.objectType, e.objectId, JSON.stringify(e.detail));
    },
    async listAudit({ before, objectType, objectId, limit }) {
      const where: string[] = [];
      const values: unknown[] = [];
      if (objectType !== undefined && objectId !== undefined) {
        where.push('object_type = ? AND object_id = ?');
        values.push(objectType, objectId);
      }
      if (before !== undefined) {
        where.push('id < ?');
        values.push(before);
      }
      values.push(pageLimit(limit));
      const rows = q(`SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ?`).all(...values);
      return (rows as Parameters<typeof toAudit>[0][]).map(toAudit);
    },

    async webKey(name, candidate) {
      q('INSERT INTO web_keys (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING').run(name, candidate);
      return (q('SELECT value FROM web_keys WHERE name = ?').get(name) as { value: string }).value;
    },

    async searchSubmissions(asked) {
      const search = await narrowCustomer(asked, findCustomers);
      if (!search) return [];
      const { sql, values } = sqliteSubmissionSearch(search);
      return (q(sql).all(...values) as SubmissionRow[]).map(toSummary);
    },
    async searchOrders(asked) {
      const search = await narrowCustomer(asked, findCustomers);
      if (!search) return [];
      const { sql, values } = sqliteOrderSearch(search);
      const rows = q(sql).all(...values) as OrderRow[];
      const history = sqliteProductionHistory(q, rows.filter((r) => r.production_state).map((r) => r.id));
      return rows.map((r): OrderSummary => {
        const { righe: _righe, ...rest } = toOrder(r, []);
        if (rest.productionState) rest.productionHistory = history.get(r.id) ?? [];
        return rest;
      });
    },
    async orderExportLines(orderIds) {
      const rows: OrderExportRow[] = [];
      const s = q(orderExportLinesSql('SELECT value FROM json_each(?)'));
      for (const part of chunks([...orderIds])) for (const r of s.all(JSON.stringify(part)) as OrderExportRow[]) rows.push(r);
      return toExportLines(orderIds, rows);
    },
    async searchArticles(search) {
      const { sql, values } = sqliteArticleSearch(search);
      return (q(sql).all(...values) as Parameters<typeof toArticle>[0][]).map(toArticle);
    },
    async orderCounts(since) {
      const rows = q(`SELECT channel, codice_cliente, count(*) AS n FROM orders WHERE registered_at >= ?
        GROUP BY channel, codice_cliente ORDER BY n DESC`).all(isoIn(since, 'since')) as { channel: string; codice_cliente: string; n: number }[];
      return rows.map((r): OrderCount => ({ channel: r.channel as OrderCount['channel'], codice_cliente: r.codice_cliente, count: Number(r.n) }));
    },
    async countRefused(since) {
      const r = q(COUNT_REFUSED_SQL).get(isoIn(since, 'since')) as { n: number };
      return Number(r.n);
    },
    async countPartial(since) {
      const r = q(COUNT_PARTIAL_SQL).get(isoIn(since, 'since')) as { n: number };
      return Number(r.n);
    },
  };
}
