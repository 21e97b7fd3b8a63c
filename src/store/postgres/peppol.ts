/**
 * Peppol participant identifiers of customers, articles' GTINs and customers' article cross-references on
 * PostgreSQL (migration 035): what turns a UBL ordering document's parties and item identifiers into our codes.
 */
import type pg from 'pg';
import { alreadyExists } from '../common/refusals.ts';
import type { Store } from '../../domain/store/store.ts';
import { nowIso } from '../common/rows.ts';

type PeppolMethods = Pick<Store,
  'setPeppolIds' | 'listPeppolIds' | 'customersByPeppolId' | 'upsertArticleGtins' | 'articlesByGtin' | 'upsertArticleXrefs' | 'articleXrefs' | 'countArticleXrefs'
  | 'ublChangeSequence' | 'recordUblChangeSequence'>;

const key = (scheme: string, identifier: string) => `${scheme}:${identifier}`;

/** Last row wins for a repeated key: a multi-row upsert may not touch one row twice. */
function lastWins<T>(rows: readonly T[], keyOf: (r: T) => string): T[] {
  return [...new Map(rows.map((r) => [keyOf(r), r])).values()];
}

export function postgresPeppol(pool: pg.Pool): PeppolMethods {
  return {
    async setPeppolIds(customerId, ids) {
      const unique = lastWins(ids, (i) => key(i.scheme, i.identifier));
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        // Another customer's identifiers cannot be taken, nor added by a concurrent call: the primary key decides.
        await c.query('DELETE FROM customer_peppol_ids WHERE customer_id = $1', [customerId]);
        const { rows } = await c.query<{ scheme: string; identifier: string; code: string }>(
          `WITH input AS (SELECT * FROM unnest($1::text[], $2::text[]) AS t(scheme, identifier)),
                added AS (INSERT INTO customer_peppol_ids (scheme, identifier, customer_id, created_at)
                          SELECT scheme, identifier, $3, $4 FROM input ON CONFLICT DO NOTHING RETURNING scheme, identifier)
           SELECT i.scheme, i.identifier, cu.code FROM input i
             JOIN customer_peppol_ids p ON p.scheme = i.scheme AND p.identifier = i.identifier
             JOIN customers cu ON cu.id = p.customer_id
           WHERE NOT EXISTS (SELECT 1 FROM added a WHERE a.scheme = i.scheme AND a.identifier = i.identifier)`,
          [unique.map((i) => i.scheme), unique.map((i) => i.identifier), customerId, nowIso()]);
        if (rows.length > 0) {
          throw alreadyExists.peppolIds(rows.map((r) => `${key(r.scheme, r.identifier)} (${r.code})`));
        }
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK');
        throw e;
      } finally {
        c.release();
      }
    },
    async listPeppolIds(customerId) {
      const { rows } = await pool.query<{ scheme: string; identifier: string }>(
        'SELECT scheme, identifier FROM customer_peppol_ids WHERE customer_id = $1 ORDER BY scheme COLLATE "C", identifier COLLATE "C"', [customerId]);
      return rows.map((r) => ({ scheme: r.scheme, identifier: r.identifier }));
    },
    async customersByPeppolId(ids) {
      if (ids.length === 0) return new Map();
      const { rows } = await pool.query<{ scheme: string; identifier: string; customer_id: string }>(
        `SELECT p.scheme, p.identifier, p.customer_id FROM customer_peppol_ids p
         JOIN unnest($1::text[], $2::text[]) AS t(scheme, identifier) ON p.scheme = t.scheme AND p.identifier = t.identifier`,
        [ids.map((i) => i.scheme), ids.map((i) => i.identifier)]);
      return new Map(rows.map((r) => [key(r.scheme, r.identifier), r.customer_id]));
    },
    async upsertArticleGtins(rows) {
      const unique = lastWins(rows, (r) => r.gtin);
      if (unique.length === 0) return;
      await pool.query(
        `INSERT INTO article_gtins (gtin, codice_articolo) SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (gtin) DO UPDATE SET codice_articolo = excluded.codice_articolo`,
        [unique.map((r) => r.gtin), unique.map((r) => r.codice_articolo)]);
    },
    async articlesByGtin(list) {
      if (list.length === 0) return new Map();
      const { rows } = await pool.query<{ gtin: string; codice_articolo: string }>(
        'SELECT gtin, codice_articolo FROM article_gtins WHERE gtin = ANY($1::text[])', [[...new Set(list)]]);
      return new Map(rows.map((r) => [r.gtin, r.codice_articolo]));
    },
    async upsertArticleXrefs(customerId, rows) {
      const unique = lastWins(rows, (r) => r.codice_cliente_articolo);
      if (unique.length === 0) return;
      await pool.query(
        `INSERT INTO article_xrefs (customer_id, codice_cliente_articolo, codice_articolo)
         SELECT $1, * FROM unnest($2::text[], $3::text[])
         ON CONFLICT (customer_id, codice_cliente_articolo) DO UPDATE SET codice_articolo = excluded.codice_articolo`,
        [customerId, unique.map((r) => r.codice_cliente_articolo), unique.map((r) => r.codice_articolo)]);
    },
    async articleXrefs(customerId, codes) {
      if (codes.length === 0) return new Map();
      const { rows } = await pool.query<{ codice_cliente_articolo: string; codice_articolo: string }>(
        `SELECT codice_cliente_articolo, codice_articolo FROM article_xrefs
         WHERE customer_id = $1 AND codice_cliente_articolo = ANY($2::text[])`, [customerId, [...new Set(codes)]]);
      return new Map(rows.map((r) => [r.codice_cliente_articolo, r.codice_articolo]));
    },
    async countArticleXrefs(customerId) {
      const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM article_xrefs WHERE customer_id = $1', [customerId]);
      return Number(rows[0]?.n ?? 0);
    },
    async ublChangeSequence(orderId) {
      const { rows } = await pool.query<{ sequence: string }>('SELECT sequence FROM ubl_change_sequences WHERE order_id = $1', [orderId]);
      return rows[0] === undefined ? undefined : Number(rows[0].sequence);
    },
    async recordUblChangeSequence(orderId, sequence) {
      await pool.query(
        `INSERT INTO ubl_change_sequences (order_id, sequence) VALUES ($1, $2)
         ON CONFLICT (order_id) DO UPDATE SET sequence = greatest(ubl_change_sequences.sequence, excluded.sequence)`, [orderId, sequence]);
    },
  };
}
