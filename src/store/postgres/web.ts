/**
 * The web's tables on PostgreSQL (migration 010): see the WebStore port in web.ts.
 */
import type pg from 'pg';
import { alreadyExists } from '../common/refusals.ts';
import { pgCode, withTransaction } from './tx.ts';
import { isoIn, nowIso, SUBMISSION_COLUMNS, toOrder, toSummary, type OrderRow, type SubmissionRow } from '../common/rows.ts';
import { type OrderCount, type OrderSummary, type WebStore } from '../../domain/store/web.ts';
import {
  articleSearchSql, customersNamedSql, narrowCustomer, orderSearchSql, pageLimit, submissionSearchSql, toArticle, toAudit, toOperator, toWebSession, type Contains, type OperatorRow,
} from '../common/web-rows.ts';
import { refused } from '../common/partial-terms.ts';
import { pgProductionHistory } from './events.ts';
import { chunks } from '../common/rows.ts';
import { orderExportLinesSql, toExportLines, type OrderExportRow } from '../common/order-export.ts';

/** Spelled exactly as the index submissions_esito_received, or PostgreSQL would not use it. */
export const PG_ESITO = `(outcome->>'esito')`;
/** Refusals since a time (the console's first page): a range on the partial esito index (migration 027). */
export const COUNT_REFUSED_SQL = `SELECT count(*) AS n FROM submissions WHERE ${refused(PG_ESITO)} AND received_at >= $1`;
/** A refused submission of which some order was accepted: read from its outcome, for the rows a page shows. */
const PG_PARTIAL = `(${PG_ESITO} = 'errore' AND EXISTS (SELECT 1 FROM json_array_elements(outcome->'orders') o WHERE o->>'esito' = 'ok'))`;
/** The refusals of COUNT_REFUSED_SQL of which some order was accepted: the same index range, each outcome read. */
export const COUNT_PARTIAL_SQL = `${COUNT_REFUSED_SQL} AND ${PG_PARTIAL}`;
const ORDER_COLUMNS = `id, customer_id, codice_cliente, riferimento_ordine, numero_ordine,
  to_char(data_ordine, 'YYYY-MM-DD') AS data_ordine, to_char(data_consegna, 'YYYY-MM-DD') AS data_consegna,
  submission_id, channel, site, registered_at, production_state, note`;

/** ILIKE ignores the case of every letter. */
const ILIKE: Contains = (column, p) => `${column} ILIKE ${p} ESCAPE '\\'`;

function placeholders(): { values: unknown[]; param: (v: unknown) => string } {
  const values: unknown[] = [];
  return { values, param: (v) => `$${values.push(v)}` };
}

export function pgSubmissionSearch(q: Parameters<WebStore['searchSubmissions']>[0]): { sql: string; values: unknown[] } {
  const { values, param } = placeholders();
  const sql = submissionSearchSql({ ...q, limit: pageLimit(q.limit) }, `${SUBMISSION_COLUMNS}, ${PG_ESITO} AS esito, ${PG_PARTIAL} AS partial`, PG_ESITO, param, ILIKE);
  return { sql, values };
}

export function pgOrderSearch(q: Parameters<WebStore['searchOrders']>[0]): { sql: string; values: unknown[] } {
  const { values, param } = placeholders();
  return { sql: orderSearchSql({ ...q, limit: pageLimit(q.limit) }, ORDER_COLUMNS, param, ILIKE), values };
}

export function pgArticleSearch(q: Parameters<WebStore['searchArticles']>[0]): { sql: string; values: unknown[] } {
  const { values, param } = placeholders();
  return { sql: articleSearchSql(q, param, ILIKE, 'NOT demo'), values };
}

export function postgresWeb(pool: pg.Pool): WebStore {
  const findCustomers = async (text: string) => {
    const { values, param } = placeholders();
    return (await pool.query(customersNamedSql(text, param, ILIKE), values)).rows as { id: string; code: string }[];
  };
  return {
    async createOperator(o) {
      const email = o.email.trim().toLowerCase();
      const createdAt = isoIn(o.createdAt ?? nowIso(), 'createdAt');
      try {
        await pool.query('INSERT INTO operators (id, email, role, password_hash, created_at) VALUES ($1, $2, $3, $4, $5)',
          [o.id, email, o.role, o.passwordHash, createdAt]);
      } catch (e) {
        if (pgCode(e) === '23505') throw alreadyExists.operator(email);
        throw e;
      }
      return { id: o.id, email, role: o.role, passwordHash: o.passwordHash, createdAt };
    },
    async getOperator(id) {
      const { rows } = await pool.query('SELECT * FROM operators WHERE id = $1', [id]);
      return rows[0] && toOperator(rows[0] as OperatorRow);
    },
    async getOperatorByEmail(email) {
      const { rows } = await pool.query('SELECT * FROM operators WHERE email = $1', [email.trim().toLowerCase()]);
      return rows[0] && toOperator(rows[0] as OperatorRow);
    },
    async listOperators() {
      return (await pool.query('SELECT * FROM operators ORDER BY email')).rows.map((r) => toOperator(r as OperatorRow));
    },
    async setOperatorPassword(id, hash) {
      return withTransaction(pool, async (c) => {
        const { rowCount } = await c.query('UPDATE operators SET password_hash = $1 WHERE id = $2', [hash, id]);
        if (rowCount) await c.query(`DELETE FROM web_sessions WHERE kind = 'operator' AND subject_id = $1`, [id]);
        return (rowCount ?? 0) > 0;
      });
    },
    async setOperatorDisabled(id, disabled) {
      return withTransaction(pool, async (c) => {
        const { rowCount } = await c.query('UPDATE operators SET disabled_at = $1 WHERE id = $2', [disabled ? nowIso() : null, id]);
        if (rowCount && disabled) await c.query(`DELETE FROM web_sessions WHERE kind = 'operator' AND subject_id = $1`, [id]);
        return (rowCount ?? 0) > 0;
      });
    },

    async createWebSession(s) {
      await pool.query('INSERT INTO web_sessions (token_hash, kind, subject_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)',
        [s.tokenHash, s.kind, s.subjectId, isoIn(s.createdAt, 'createdAt'), isoIn(s.expiresAt, 'expiresAt')]);
    },
    async getWebSession(tokenHash) {
      const { rows } = await pool.query('SELECT * FROM web_sessions WHERE token_hash = $1 AND expires_at > now()', [tokenHash]);
      return rows[0] && toWebSession(rows[0] as Parameters<typeof toWebSession>[0]);
    },
    async extendWebSession(tokenHash, expiresAt) {
      await pool.query('UPDATE web_sessions SET expires_at = $1 WHERE token_hash = $2', [isoIn(expiresAt, 'expiresAt'), tokenHash]);
    },
    async deleteWebSession(tokenHash) {
      await pool.query('DELETE FROM web_sessions WHERE token_hash = $1', [tokenHash]);
    },
    async deleteWebSessionsOf(kind, subjectId) {
      return (await pool.query('DELETE FROM web_sessions WHERE kind = $1 AND subject_id = $2', [kind, subjectId])).rowCount ?? 0;
    },

    async addAudit(e) {
      await pool.query('INSERT INTO audit_log (id, at, actor, action, object_type, object_id, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [e.id, isoIn(e.at, 'at'), e.actor, e.action, e.objectType, e.objectId, JSON.stringify(e.detail)]);
    },
    async listAudit({ before, objectType, objectId, limit }) {
      const { values, param } = placeholders();
      const where: string[] = [];
      if (objectType !== undefined && objectId !== undefined) where.push(`object_type = ${param(objectType)} AND object_id = ${param(objectId)}`);
      if (before !== undefined) where.push(`id < ${param(before)}`);
      const sql = `SELECT * FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT ${param(pageLimit(limit))}`;
      return (await pool.query(sql, values)).rows.map((r) => toAudit(r as Parameters<typeof toAudit>[0]));
    },

    async webKey(name, candidate) {
      await pool.query('INSERT INTO web_keys (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, candidate]);
      return ((await pool.query('SELECT value FROM web_keys WHERE name = $1', [name])).rows[0] as { value: string }).value;
    },

    async searchSubmissions(asked) {
      const search = await narrowCustomer(asked, findCustomers);
      if (!search) return [];
      const { sql, values } = pgSubmissionSearch(search);
      return (await pool.query(sql, values)).rows.map((r) => toSummary(r as SubmissionRow));
    },
    async searchOrders(asked) {
      const search = await narrowCustomer(asked, findCustomers);
      if (!search) return [];
      const { sql, values } = pgOrderSearch(search);
      const rows = (await pool.query(sql, values)).rows as OrderRow[];
      const history = await pgProductionHistory(pool, rows.filter((r) => r.production_state).map((r) => r.id));
      return rows.map((r): OrderSummary => {
        const { righe: _righe, ...rest } = toOrder(r, []);
        if (rest.productionState) rest.productionHistory = history.get(r.id) ?? [];
        return rest;
      });
    },
    async orderExportLines(orderIds) {
      const rows: OrderExportRow[] = [];
      for (const part of chunks([...orderIds])) {
        for (const r of (await pool.query(orderExportLinesSql('SELECT unnest($1::text[])'), [part])).rows as OrderExportRow[]) rows.push(r);
      }
      return toExportLines(orderIds, rows);
    },
    async searchArticles(search) {
      const { sql, values } = pgArticleSearch(search);
      return (await pool.query(sql, values)).rows.map((r) => toArticle(r as Parameters<typeof toArticle>[0]));
    },
    async orderCounts(since) {
      const { rows } = await pool.query(`SELECT channel, codice_cliente, count(*) AS n FROM orders WHERE registered_at >= $1
        GROUP BY channel, codice_cliente ORDER BY n DESC`, [isoIn(since, 'since')]);
      return (rows as { channel: string; codice_cliente: string; n: string }[])
        .map((r): OrderCount => ({ channel: r.channel as OrderCount['channel'], codice_cliente: r.codice_cliente, count: Number(r.n) }));
    },
    async countRefused(since) {
      const { rows } = await pool.query(COUNT_REFUSED_SQL, [isoIn(since, 'since')]);
      return Number((rows[0] as { n: string }).n);
    },
    async countPartial(since) {
      const { rows } = await pool.query(COUNT_PARTIAL_SQL, [isoIn(since, 'since')]);
      return Number((rows[0] as { n: string }).n);
    },
  };
}
