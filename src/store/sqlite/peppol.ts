/**
 * Peppol participant identifiers of customers, articles' GTINs and customers' article cross-references in the
 * embedded store (migration 035): what turns a UBL ordering document's parties and item identifiers into our codes.
 */
import type Database from 'better-sqlite3';
import { alreadyExists } from '../common/refusals.ts';
import type { Store } from '../../domain/store/store.ts';
import { nowIso } from '../common/rows.ts';
import { statementCache } from './statements.ts';

type PeppolMethods = Pick<Store,
  'setPeppolIds' | 'listPeppolIds' | 'customersByPeppolId' | 'upsertArticleGtins' | 'articlesByGtin' | 'upsertArticleXrefs' | 'articleXrefs' | 'countArticleXrefs'
  | 'ublChangeSequence' | 'recordUblChangeSequence'>;

const key = (scheme: string, identifier: string) => `${scheme}:${identifier}`;

export function sqlitePeppol(db: Database.Database): PeppolMethods {
  const q = statementCache(db);

  const setIds = db.transaction((customerId: string, ids: readonly { scheme: string; identifier: string }[], at: string) => {
    const owner = q('SELECT c.code FROM customer_peppol_ids p JOIN customers c ON c.id = p.customer_id WHERE p.scheme = ? AND p.identifier = ? AND p.customer_id <> ?');
    const taken = ids.flatMap((i) => {
      const row = owner.get(i.scheme, i.identifier, customerId) as { code: string } | undefined;
      return row ? [`${key(i.scheme, i.identifier)} (${row.code})`] : [];
    });
    if (taken.length > 0) throw alreadyExists.peppolIds(taken);
    q('DELETE FROM customer_peppol_ids WHERE customer_id = ?').run(customerId);
    const add = q('INSERT OR IGNORE INTO customer_peppol_ids (scheme, identifier, customer_id, created_at) VALUES (?, ?, ?, ?)');
    for (const i of ids) add.run(i.scheme, i.identifier, customerId, at);
  });

  const gtins = db.transaction((rows: readonly { gtin: string; codice_articolo: string }[]) => {
    const s = q('INSERT INTO article_gtins (gtin, codice_articolo) VALUES (?, ?) ON CONFLICT (gtin) DO UPDATE SET codice_articolo = excluded.codice_articolo');
    for (const r of rows) s.run(r.gtin, r.codice_articolo);
  });

  const xrefs = db.transaction((customerId: string, rows: readonly { codice_cliente_articolo: string; codice_articolo: string }[]) => {
    const s = q(`INSERT INTO article_xrefs (customer_id, codice_cliente_articolo, codice_articolo) VALUES (?, ?, ?)
      ON CONFLICT (customer_id, codice_cliente_articolo) DO UPDATE SET codice_articolo = excluded.codice_articolo`);
    for (const r of rows) s.run(customerId, r.codice_cliente_articolo, r.codice_articolo);
  });

  return {
    async setPeppolIds(customerId, ids) {
      setIds.immediate(customerId, ids, nowIso());
    },
    async listPeppolIds(customerId) {
      return q('SELECT scheme, identifier FROM customer_peppol_ids WHERE customer_id = ? ORDER BY scheme, identifier')
        .all(customerId) as { scheme: string; identifier: string }[];
    },
    async customersByPeppolId(ids) {
      if (ids.length === 0) return new Map();
      const rows = q(`SELECT p.scheme, p.identifier, p.customer_id FROM customer_peppol_ids p
        JOIN json_each(?) j ON p.scheme = json_extract(j.value, '$[0]') AND p.identifier = json_extract(j.value, '$[1]')`)
        .all(JSON.stringify(ids.map((i) => [i.scheme, i.identifier]))) as { scheme: string; identifier: string; customer_id: string }[];
      return new Map(rows.map((r) => [key(r.scheme, r.identifier), r.customer_id]));
    },
    async upsertArticleGtins(rows) {
      if (rows.length > 0) gtins.immediate(rows);
    },
    async articlesByGtin(list) {
      if (list.length === 0) return new Map();
      const rows = q('SELECT gtin, codice_articolo FROM article_gtins WHERE gtin IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify([...new Set(list)])) as { gtin: string; codice_articolo: string }[];
      return new Map(rows.map((r) => [r.gtin, r.codice_articolo]));
    },
    async upsertArticleXrefs(customerId, rows) {
      if (rows.length > 0) xrefs.immediate(customerId, rows);
    },
    async articleXrefs(customerId, codes) {
      if (codes.length === 0) return new Map();
      const rows = q(`SELECT codice_cliente_articolo, codice_articolo FROM article_xrefs
        WHERE customer_id = ? AND codice_cliente_articolo IN (SELECT value FROM json_each(?))`)
        .all(customerId, JSON.stringify([...new Set(codes)])) as { codice_cliente_articolo: string; codice_articolo: string }[];
      return new Map(rows.map((r) => [r.codice_cliente_articolo, r.codice_articolo]));
    },
    async countArticleXrefs(customerId) {
      return (q('SELECT count(*) AS n FROM article_xrefs WHERE customer_id = ?').get(customerId) as { n: number }).n;
    },
    async ublChangeSequence(orderId) {
      return (q('SELECT sequence FROM ubl_change_sequences WHERE order_id = ?').get(orderId) as { sequence: number } | undefined)?.sequence;
    },
    async recordUblChangeSequence(orderId, sequence) {
      q(`INSERT INTO ubl_change_sequences (order_id, sequence) VALUES (?, ?)
        ON CONFLICT (order_id) DO UPDATE SET sequence = max(sequence, excluded.sequence)`).run(orderId, sequence);
    },
  };
}
