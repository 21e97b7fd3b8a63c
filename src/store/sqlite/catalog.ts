/**
 * Articles taken out of service, and removed, in the embedded store (migration 031): see deactivateArticles and its
 * neighbours in the Store port. A move between articles and inactive_articles is one transaction, so an article is
 * never in neither table.
 */
import type Database from 'better-sqlite3';
import type { InactiveArticle, Store } from '../../domain/store/store.ts';
import { isoOut, nowIso } from '../common/rows.ts';
import { statementCache } from './statements.ts';

type CatalogMethods = Pick<Store, 'deactivateArticles' | 'activateArticles' | 'removeArticles' | 'inactiveArticles' | 'listInactiveArticles'>;

export function sqliteCatalog(db: Database.Database): CatalogMethods {
  const q = statementCache(db);
  const unique = (codes: readonly string[]) => [...new Set(codes)];

  const deactivate = db.transaction((codes: readonly string[], at: string): string[] => {
    const copy = q(`INSERT INTO inactive_articles (codice_articolo, descrizione, unita_misura, deactivated_at)
      SELECT codice_articolo, descrizione, unita_misura, ? FROM articles WHERE codice_articolo = ?
      ON CONFLICT (codice_articolo) DO UPDATE SET descrizione = excluded.descrizione, unita_misura = excluded.unita_misura,
        deactivated_at = excluded.deactivated_at`);
    const drop = q('DELETE FROM articles WHERE codice_articolo = ?');
    return codes.filter((c) => {
      copy.run(at, c);
      return drop.run(c).changes > 0;
    });
  });

  const activate = db.transaction((codes: readonly string[]): string[] => {
    const copy = q(`INSERT INTO articles (codice_articolo, descrizione, unita_misura)
      SELECT codice_articolo, descrizione, unita_misura FROM inactive_articles WHERE codice_articolo = ?
      ON CONFLICT (codice_articolo) DO UPDATE SET descrizione = excluded.descrizione, unita_misura = excluded.unita_misura`);
    const drop = q('DELETE FROM inactive_articles WHERE codice_articolo = ?');
    return codes.filter((c) => {
      copy.run(c);
      return drop.run(c).changes > 0;
    });
  });

  const remove = db.transaction((codes: readonly string[]): string[] => {
    const active = q('DELETE FROM articles WHERE codice_articolo = ?');
    const inactive = q('DELETE FROM inactive_articles WHERE codice_articolo = ?');
    return codes.filter((c) => active.run(c).changes + inactive.run(c).changes > 0);
  });

  return {
    async deactivateArticles(codes) {
      return deactivate.immediate(unique(codes), nowIso());
    },
    async activateArticles(codes) {
      return activate.immediate(unique(codes));
    },
    async removeArticles(codes) {
      return remove.immediate(unique(codes));
    },
    async inactiveArticles(codes) {
      const wanted = unique(codes);
      if (wanted.length === 0) return new Set();
      const rows = q('SELECT codice_articolo FROM inactive_articles WHERE codice_articolo IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify(wanted)) as { codice_articolo: string }[];
      return new Set(rows.map((r) => r.codice_articolo));
    },
    async listInactiveArticles(limit) {
      const rows = q('SELECT codice_articolo, descrizione, unita_misura, deactivated_at FROM inactive_articles ORDER BY codice_articolo LIMIT ?')
        .all(Math.max(1, Math.trunc(limit) || 1)) as { codice_articolo: string; descrizione: string; unita_misura: string; deactivated_at: string }[];
      return rows.map((r): InactiveArticle => ({
        codice_articolo: r.codice_articolo, descrizione: r.descrizione, unita_misura: r.unita_misura, deactivatedAt: isoOut(r.deactivated_at),
      }));
    },
  };
}
