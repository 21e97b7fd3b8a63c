/**
 * Customers, their credentials and the catalog (articles, units) in the embedded store: plain single statements,
 * apart from store.ts so that the store's core (submissions, claims, orders) stays readable. PostgreSQL's are in its
 * customers.ts.
 */
import type Database from 'better-sqlite3';
import { alreadyExists, notFound } from '../common/refusals.ts';
import type { Article, Credential, CredentialKind, Customer, Store, Unit } from '../../domain/store/store.ts';
import {
  checkCatalog, chunks, isoIn, lastWins, lowerMailbox, nowIso, toCredential, toCustomer, upperUnit,
  type CredentialRow, type CustomerRow,
} from '../common/rows.ts';
import { constraint, statementCache } from './statements.ts';

type CustomerMethods = Pick<Store,
  | 'createCustomer' | 'getCustomer' | 'getCustomerByCode' | 'getCustomerByMailbox' | 'listCustomers'
  | 'addCredential' | 'findCredential' | 'revokeCredentials'
  | 'upsertArticles' | 'upsertUnits' | 'knownArticles' | 'knownUnits' | 'articleDescriptions' | 'countArticles' | 'listUnits'>;

export function sqliteCustomers(db: Database.Database): CustomerMethods {
  const q = statementCache(db);

  const upsertArticleBatch = db.transaction((rows: readonly Article[]) => {
    const s = q(`INSERT INTO articles (codice_articolo, descrizione, unita_misura, demo) VALUES (?, ?, ?, ?)
      ON CONFLICT (codice_articolo) DO UPDATE SET descrizione = excluded.descrizione, unita_misura = excluded.unita_misura, demo = excluded.demo`);
    // A deactivated article stays deactivated (only `articles activate` brings it back); its description follows.
    const inactive = q('UPDATE inactive_articles SET descrizione = ?, unita_misura = ? WHERE codice_articolo = ?');
    for (const r of rows) {
      if (inactive.run(r.descrizione, r.unita_misura, r.codice_articolo).changes === 0) s.run(r.codice_articolo, r.descrizione, r.unita_misura, r.demo === true ? 1 : 0);
    }
  });

  const upsertUnitBatch = db.transaction((rows: readonly Unit[]) => {
    const s = q(`INSERT INTO units (code, description) VALUES (?, ?)
      ON CONFLICT (code) DO UPDATE SET description = excluded.description`);
    for (const r of rows) s.run(upperUnit(r.code), r.description);
  });

  /** Codes asked for that exist; `column` and `table` are constants of this file, never input. */
  function known(table: string, column: string, codes: readonly string[], norm: (c: string) => string): Set<string> {
    const wanted = [...new Set(codes.map(norm))];
    const found = new Set<string>();
    // json_each lets one prepared statement take any number of codes in a single parameter.
    const s = q(`SELECT ${column} AS code FROM ${table} WHERE ${column} IN (SELECT value FROM json_each(?))`);
    for (const part of chunks(wanted)) {
      for (const row of s.all(JSON.stringify(part)) as { code: string }[]) found.add(row.code);
    }
    return new Set(codes.filter((c) => found.has(norm(c))));
  }

  return {
    async createCustomer(c) {
      const customer: Customer = {
        id: c.id, code: c.code, name: c.name, mailbox: lowerMailbox(c.mailbox),
        createdAt: isoIn(c.createdAt ?? nowIso(), 'createdAt'),
      };
      try {
        q('INSERT INTO customers (id, code, name, mailbox, created_at) VALUES (?, ?, ?, ?, ?)')
          .run(customer.id, customer.code, customer.name, customer.mailbox, customer.createdAt);
      } catch (e) {
        if (constraint(e, 'UNIQUE') || constraint(e, 'PRIMARYKEY')) {
          throw alreadyExists.customer({ code: c.code, mailbox: customer.mailbox, id: c.id });
        }
        throw e;
      }
      return customer;
    },

    async getCustomer(id) {
      const r = q('SELECT * FROM customers WHERE id = ?').get(id) as CustomerRow | undefined;
      return r && toCustomer(r);
    },

    async getCustomerByCode(code) {
      const r = q('SELECT * FROM customers WHERE code = ?').get(code) as CustomerRow | undefined;
      return r && toCustomer(r);
    },

    async getCustomerByMailbox(address) {
      const r = q('SELECT * FROM customers WHERE mailbox = ?').get(lowerMailbox(address)) as CustomerRow | undefined;
      return r && toCustomer(r);
    },

    async listCustomers() {
      return (q('SELECT * FROM customers ORDER BY code').all() as CustomerRow[]).map(toCustomer);
    },

    async addCredential(c) {
      try {
        q(`INSERT INTO credentials (id, customer_id, kind, lookup, secret_hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`)
          .run(c.id, c.customerId, c.kind, c.lookup, c.secretHash, isoIn(c.createdAt ?? nowIso(), 'createdAt'));
      } catch (e) {
        if (constraint(e, 'FOREIGNKEY')) throw notFound.customer(c.customerId);
        if (constraint(e, 'UNIQUE') || constraint(e, 'PRIMARYKEY')) {
          throw alreadyExists.credential(c.kind, c.lookup);
        }
        throw e;
      }
    },

    async findCredential(kind: CredentialKind, lookup: string): Promise<Credential | undefined> {
      const r = q('SELECT * FROM credentials WHERE kind = ? AND lookup = ? AND revoked_at IS NULL').get(kind, lookup) as
        | CredentialRow
        | undefined;
      return r && toCredential(r);
    },

    async revokeCredentials(customerId, kind) {
      return q('UPDATE credentials SET revoked_at = ? WHERE customer_id = ? AND kind = ? AND revoked_at IS NULL')
        .run(nowIso(), customerId, kind).changes;
    },

    async upsertArticles(rows) {
      checkCatalog('article', rows.map((r) => [r.codice_articolo, r.descrizione, r.unita_misura]));
      upsertArticleBatch.immediate(lastWins(rows, (r) => r.codice_articolo));
    },

    async upsertUnits(rows) {
      checkCatalog('unit', rows.map((r) => [r.code, r.description]));
      upsertUnitBatch.immediate(lastWins(rows, (r) => upperUnit(r.code)));
    },

    async knownArticles(codes) {
      return known('articles', 'codice_articolo', codes, (c) => c);
    },

    async knownUnits(codes) {
      return known('units', 'code', codes, upperUnit);
    },

    async articleDescriptions(codes) {
      const found = new Map<string, string>();
      const s = q('SELECT codice_articolo AS code, descrizione FROM articles WHERE codice_articolo IN (SELECT value FROM json_each(?))');
      for (const part of chunks([...new Set(codes)])) {
        for (const row of s.all(JSON.stringify(part)) as { code: string; descrizione: string }[]) found.set(row.code, row.descrizione);
      }
      return found;
    },

    async countArticles() {
      return (q('SELECT count(*) AS n FROM articles').get() as { n: number }).n;
    },

    async listUnits() {
      return q('SELECT code, description FROM units ORDER BY code').all() as Unit[];
    },
  };
}
