/**
 * Articles taken out of service, and removed, on PostgreSQL (migration 031): see deactivateArticles and its neighbours
 * in the Store port. Each move is one statement (a DELETE … RETURNING feeding an INSERT), so one transaction: an
 * article is never in neither table.
 */
import type pg from 'pg';
import type { InactiveArticle, Store } from '../../domain/store/store.ts';
import { isoOut, nowIso } from '../common/rows.ts';

type CatalogMethods = Pick<Store, 'deactivateArticles' | 'activateArticles' | 'removeArticles' | 'inactiveArticles' | 'listInactiveArticles'>;

export function postgresCatalog(pool: pg.Pool): CatalogMethods {
  const unique = (codes: readonly string[]) => [...new Set(codes)];
  const codesOf = (rows: { codice_articolo: string }[]) => rows.map((r) => r.codice_articolo);

  return {
    async deactivateArticles(codes) {
      const { rows } = await pool.query<{ codice_articolo: string }>(
        `WITH moved AS (DELETE FROM articles WHERE codice_articolo = ANY($1::text[]) RETURNING codice_articolo, descrizione, unita_misura)
         INSERT INTO inactive_articles (codice_articolo, descrizione, unita_misura, deactivated_at)
         SELECT codice_articolo, descrizione, unita_misura, $2 FROM moved
         ON CONFLICT (codice_articolo) DO UPDATE SET descrizione = excluded.descrizione, unita_misura = excluded.unita_misura,
           deactivated_at = excluded.deactivated_at
         RETURNING codice_articolo`,
        [unique(codes), nowIso()]);
      return codesOf(rows);
    },
    async activateArticles(codes) {
      const { rows } = await pool.query<{ codice_articolo: string }>(
        `WITH moved AS (DELETE FROM inactive_articles WHERE codice_articolo = ANY($1::text[]) RETURNING codice_articolo, descrizione, unita_misura)
         INSERT INTO articles (codice_articolo, descrizione, unita_misura) SELECT codice_articolo, descrizione, unita_misura FROM moved
         ON CONFLICT (codice_articolo) DO UPDATE SET descrizione = excluded.descrizione, unita_misura = excluded.unita_misura
         RETURNING codice_articolo`,
        [unique(codes)]);
      return codesOf(rows);
    },
    async removeArticles(codes) {
      const { rows } = await pool.query<{ codice_articolo: string }>(
        `WITH a AS (DELETE FROM articles WHERE codice_articolo = ANY($1::text[]) RETURNING codice_articolo),
              i AS (DELETE FROM inactive_articles WHERE codice_articolo = ANY($1::text[]) RETURNING codice_articolo)
         SELECT codice_articolo FROM a UNION SELECT codice_articolo FROM i`,
        [unique(codes)]);
      return codesOf(rows);
    },
    async inactiveArticles(codes) {
      const wanted = unique(codes);
      if (wanted.length === 0) return new Set();
      const { rows } = await pool.query<{ codice_articolo: string }>(
        'SELECT codice_articolo FROM inactive_articles WHERE codice_articolo = ANY($1::text[])', [wanted]);
      return new Set(codesOf(rows));
    },
    async listInactiveArticles(limit) {
      const { rows } = await pool.query<{ codice_articolo: string; descrizione: string; unita_misura: string; deactivated_at: Date }>(
        `SELECT codice_articolo, descrizione, unita_misura, deactivated_at FROM inactive_articles
         ORDER BY codice_articolo COLLATE "C" LIMIT $1`, [Math.max(1, Math.trunc(limit) || 1)]);
      return rows.map((r): InactiveArticle => ({
        codice_articolo: r.codice_articolo, descrizione: r.descrizione, unita_misura: r.unita_misura, deactivatedAt: isoOut(r.deactivated_at),
      }));
    },
  };
}
