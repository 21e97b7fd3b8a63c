/**
 * Customers, their credentials and the catalog (articles, units) on PostgreSQL: plain single statements, apart from
 * store.ts so that the store's core (submissions, claims, orders) stays readable.
 */
import type pg from 'pg';
import { alreadyExists, notFound } from '../common/refusals.ts';
import type { Customer, Store, Unit } from '../../domain/store/store.ts';
import {
  checkCatalog, chunks, isoIn, lastWins, lowerMailbox, nowIso, toCredential, toCustomer, upperUnit,
  type CredentialRow, type CustomerRow,
} from '../common/rows.ts';
import { pgCode } from './tx.ts';

export type CustomerMethods = Pick<Store,
  | 'createCustomer' | 'getCustomer' | 'getCustomerByCode' | 'getCustomerByMailbox' | 'listCustomers'
  | 'addCredential' | 'findCredential' | 'revokeCredentials'
  | 'upsertArticles' | 'upsertUnits' | 'knownArticles' | 'knownUnits' | 'articleDescriptions' | 'countArticles' | 'listUnits'>;

export function postgresCustomers(pool: pg.Pool): CustomerMethods {
  async function one<R>(sql: string, params: unknown[] = []): Promise<R | undefined> {
    return (await pool.query(sql, params)).rows[0] as R | undefined;
  }

  async function all<R>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await pool.query(sql, params)).rows as R[];
  }

  async function known(table: string, column: string, codes: readonly string[], norm: (c: string) => string): Promise<Set<string>> {
    const wanted = [...new Set(codes.map(norm))];
    const found = new Set<string>();
    for (const part of chunks(wanted)) {
      const rows = await all<{ code: string }>(`SELECT ${column} AS code FROM ${table} WHERE ${column} = ANY($1::text[])`, [part]);
      for (const r of rows) found.add(r.code);
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
        await pool.query('INSERT INTO customers (id, code, name, mailbox, created_at) VALUES ($1, $2, $3, $4, $5)',
          [customer.id, customer.code, customer.name, customer.mailbox, customer.createdAt]);
      } catch (e) {
        if (pgCode(e) === '23505') {
          throw alreadyExists.customer({ code: c.code, mailbox: customer.mailbox, id: c.id });
        }
        throw e;
      }
      return customer;
    },

    async getCustomer(id) {
      const r = await one<CustomerRow>('SELECT * FROM customers WHERE id = $1', [id]);
      return r && toCustomer(r);
    },

    async getCustomerByCode(code) {
      const r = await one<CustomerRow>('SELECT * FROM customers WHERE code = $1', [code]);
      return r && toCustomer(r);
    },

    async getCustomerByMailbox(address) {
      const r = await one<CustomerRow>('SELECT * FROM customers WHERE mailbox = $1', [lowerMailbox(address)]);
      return r && toCustomer(r);
    },

    async listCustomers() {
      return (await all<CustomerRow>('SELECT * FROM customers ORDER BY code COLLATE "C"')).map(toCustomer);
    },

    async addCredential(c) {
      try {
        await pool.query(
          'INSERT INTO credentials (id, customer_id, kind, lookup, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [c.id, c.customerId, c.kind, c.lookup, c.secretHash, isoIn(c.createdAt ?? nowIso(), 'createdAt')],
        );
      } catch (e) {
        if (pgCode(e) === '23503') throw notFound.customer(c.customerId);
        if (pgCode(e) === '23505') throw alreadyExists.credential(c.kind, c.lookup);
        throw e;
      }
    },

    async findCredential(kind, lookup) {
      const r = await one<CredentialRow>(
        'SELECT * FROM credentials WHERE kind = $1 AND lookup = $2 AND revoked_at IS NULL', [kind, lookup]);
      return r && toCredential(r);
    },

    async revokeCredentials(customerId, kind) {
      const res = await pool.query(
        'UPDATE credentials SET revoked_at = $1 WHERE customer_id = $2 AND kind = $3 AND revoked_at IS NULL',
        [nowIso(), customerId, kind]);
      return res.rowCount ?? 0;
    },

    async upsertArticles(rows) {
      checkCatalog('article', rows.map((r) => [r.codice_articolo, r.descrizione, r.unita_misura]));
      const list = lastWins(rows, (r) => r.codice_articolo);
      if (list.length === 0) return;
      // One statement is one transaction; arrays keep it at four parameters whatever the batch size.
      // A deactivated article stays deactivated (only `articles activate` brings it back); its description follows.
      await pool.query(
        `WITH input AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::boolean[]) AS t (codice_articolo, descrizione, unita_misura, demo)),
         kept AS (UPDATE inactive_articles i SET descrizione = input.descrizione, unita_misura = input.unita_misura
           FROM input WHERE i.codice_articolo = input.codice_articolo RETURNING i.codice_articolo)
         INSERT INTO articles (codice_articolo, descrizione, unita_misura, demo)
         SELECT * FROM input WHERE codice_articolo NOT IN (SELECT codice_articolo FROM kept)
         ON CONFLICT (codice_articolo) DO UPDATE SET descrizione = excluded.descrizione, unita_misura = excluded.unita_misura,
           demo = excluded.demo`,
        [list.map((r) => r.codice_articolo), list.map((r) => r.descrizione), list.map((r) => r.unita_misura), list.map((r) => r.demo === true)],
      );
    },

    async upsertUnits(rows) {
      checkCatalog('unit', rows.map((r) => [r.code, r.description]));
      const list = lastWins(rows, (r) => upperUnit(r.code));
      if (list.length === 0) return;
      await pool.query(
        `INSERT INTO units (code, description) SELECT * FROM unnest($1::text[], $2::text[])
         ON CONFLICT (code) DO UPDATE SET description = excluded.description`,
        [list.map((r) => upperUnit(r.code)), list.map((r) => r.description)],
      );
    },

    async knownArticles(codes) {
      return known('articles', 'codice_articolo', codes, (c) => c);
    },

    async knownUnits(codes) {
      return known('units', 'code', codes, upperUnit);
    },

    async articleDescriptions(codes) {
      const found = new Map<string, string>();
      for (const part of chunks([...new Set(codes)])) {
        const rows = await all<{ code: string; descrizione: string }>(
          'SELECT codice_articolo AS code, descrizione FROM articles WHERE codice_articolo = ANY($1::text[])', [part]);
        for (const r of rows) found.set(r.code, r.descrizione);
      }
      return found;
    },

    async countArticles() {
      return (await one<{ n: number }>('SELECT count(*)::int AS n FROM articles'))?.n ?? 0;
    },

    async listUnits() {
      return all<Unit>('SELECT code, description FROM units ORDER BY code COLLATE "C"');
    },
  };
}
