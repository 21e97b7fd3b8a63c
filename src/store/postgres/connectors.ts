/**
 * The connectors' tables on PostgreSQL (migration 004): see the ConnectorStore port in connectors.ts. A rotation
 * locks the connector row (FOR UPDATE), so two operators rotating at once leave one current key, not two.
 */
import type pg from 'pg';
import type { OrderWriters } from './order-writers.ts';
import type { PoolClient } from 'pg';
import { alreadyExists, invalid, notFound } from '../common/refusals.ts';
import { type Connector, type ConnectorLookupRow, type ConnectorStore, type NewConnectorKey } from '../../domain/store/connectors.ts';
import { CONNECTOR_SELECT, checkUniqueProductKeys, customersByConnector, sitesByConnector, toConnector, toLookupRow, toSite, upperSite, type ConnectorRow } from '../common/connector-rows.ts';
import { pgCode, withTransaction } from './tx.ts';
import { chunks, isoIn, nowIso } from '../common/rows.ts';
import { postgresConnectorTenants } from './connector-tenants.ts';

/** Lookup rows per INSERT: a big table goes in a few statements, each well under the parameter limit. */
const LOOKUP_BATCH = 1_000;

export function postgresConnectors(pool: pg.Pool, writers: OrderWriters): ConnectorStore {
  const tx = <T>(fn: (c: PoolClient) => Promise<T>): Promise<T> => withTransaction(pool, fn);

  async function withSites(c: PoolClient | pg.Pool, rows: ConnectorRow[]): Promise<Connector[]> {
    if (rows.length === 0) return [];
    const links: { connector_id: string; site_code: string }[] = [];
    for (const part of chunks(rows.map((r) => r.id))) {
      links.push(...(await c.query('SELECT connector_id, site_code FROM connector_sites WHERE connector_id = ANY($1::text[])', [part])).rows);
    }
    const bySite = sitesByConnector(links);
    const bound: { connector_id: string; id: string; code: string }[] = [];
    for (const part of chunks(rows.map((r) => r.id))) {
      bound.push(...(await c.query(`SELECT cc.connector_id, cu.id, cu.code FROM connector_customers cc JOIN customers cu ON cu.id = cc.customer_id
        WHERE cc.connector_id = ANY($1::text[])`, [part])).rows);
    }
    const byCustomer = customersByConnector(bound);
    return rows.map((r) => toConnector(r, bySite.get(r.id) ?? [], byCustomer.get(r.id) ?? []));
  }

  async function read(c: PoolClient | pg.Pool, id: string): Promise<Connector | undefined> {
    const { rows } = await c.query(`${CONNECTOR_SELECT} WHERE c.id = $1`, [id]);
    return rows.length ? (await withSites(c, rows as ConnectorRow[]))[0] : undefined;
  }

  async function insertKey(c: PoolClient, customerId: string, key: NewConnectorKey, at: string): Promise<void> {
    try {
      await c.query(`INSERT INTO credentials (id, customer_id, kind, lookup, secret_hash, created_at) VALUES ($1, $2, 'connector', $3, $4, $5)`,
        [key.credentialId, customerId, key.keyId, key.secretHash, at]);
    } catch (e) {
      if (pgCode(e) === '23505') throw alreadyExists.connectorKey(key.keyId);
      throw e;
    }
  }

  return {
    ...postgresConnectorTenants(pool, writers),

    async createSite(s) {
      const site = { code: upperSite(s.code), name: s.name, createdAt: isoIn(s.createdAt ?? nowIso(), 'createdAt') };
      try {
        await pool.query('INSERT INTO sites (code, name, created_at) VALUES ($1, $2, $3)', [site.code, site.name, site.createdAt]);
      } catch (e) {
        if (pgCode(e) === '23505') throw alreadyExists.site(site.code);
        throw e;
      }
      return site;
    },

    async getSite(code) {
      const { rows } = await pool.query('SELECT code, name, created_at FROM sites WHERE code = $1', [upperSite(code)]);
      return rows[0] && toSite(rows[0] as Parameters<typeof toSite>[0]);
    },

    async listSites() {
      const { rows } = await pool.query('SELECT code, name, created_at FROM sites ORDER BY code COLLATE "C"');
      return (rows as Parameters<typeof toSite>[0][]).map(toSite);
    },

    async createConnector(n) {
      return tx(async (c) => {
        const customerIds = n.allCustomers ? [] : [...new Set(n.customerIds ?? [n.customerId])];
        for (const id of [n.customerId, ...customerIds]) {
          if ((await c.query('SELECT 1 FROM customers WHERE id = $1', [id])).rowCount === 0) throw notFound.customer(id);
        }
        const sites = [...new Set(n.sites.map(upperSite))];
        const { rows: found } = await c.query('SELECT code FROM sites WHERE code = ANY($1::text[])', [sites]);
        const known = new Set(found.map((r: { code: string }) => r.code));
        const missing = sites.filter((s) => !known.has(s));
        if (missing.length > 0) throw notFound.sites(missing);
        const at = isoIn(n.createdAt ?? nowIso(), 'createdAt');
        await insertKey(c, n.customerId, n.key, at);
        try {
          await c.query(`INSERT INTO connectors (id, customer_id, name, format, credential_id, allow_ips, mapping, created_at, all_customers, product_key)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, [n.id, n.customerId, n.name, n.format, n.key.credentialId,
            JSON.stringify(n.allowIps), n.mapping ?? null, at, n.allCustomers === true, n.productKey ?? null]);
        } catch (e) {
          if (pgCode(e) === '23505') throw alreadyExists.connector(n.id);
          if (pgCode(e) === '23514') throw invalid.connectorFormat(n.format);
          throw e;
        }
        await c.query('INSERT INTO connector_sites (connector_id, site_code) SELECT $1, unnest($2::text[])', [n.id, sites]);
        await c.query('INSERT INTO connector_customers (connector_id, customer_id) SELECT $1, unnest($2::text[])', [n.id, customerIds]);
        return (await read(c, n.id))!;
      });
    },

    async getConnector(id) {
      return read(pool, id);
    },

    async listConnectors({ customerId }) {
      const { rows } = customerId === undefined
        ? await pool.query(`${CONNECTOR_SELECT} ORDER BY c.created_at, c.id COLLATE "C"`)
        : await pool.query(`${CONNECTOR_SELECT} WHERE c.customer_id = $1 ORDER BY c.created_at, c.id COLLATE "C"`, [customerId]);
      return withSites(pool, rows as ConnectorRow[]);
    },

    async findConnectorByKey(keyId) {
      const { rows } = await pool.query(
        `${CONNECTOR_SELECT} WHERE cr.kind = 'connector' AND cr.lookup = $1 AND cr.revoked_at IS NULL AND c.revoked_at IS NULL`, [keyId]);
      const r = rows[0] as ConnectorRow | undefined;
      if (!r) return undefined;
      return { connector: (await withSites(pool, [r]))[0]!, secretHash: r.secret_hash };
    },

    async rotateConnectorKey(id, key) {
      return tx(async (c) => {
        const { rows } = await c.query('SELECT customer_id, credential_id FROM connectors WHERE id = $1 AND revoked_at IS NULL FOR UPDATE', [id]);
        const cur = rows[0] as { customer_id: string; credential_id: string } | undefined;
        if (!cur) throw notFound.activeConnector(id);
        const at = nowIso();
        await c.query('UPDATE credentials SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, cur.credential_id]);
        await insertKey(c, cur.customer_id, key, at);
        await c.query('UPDATE connectors SET credential_id = $1 WHERE id = $2', [key.credentialId, id]);
        return (await read(c, id))!;
      });
    },

    async revokeConnector(id) {
      return tx(async (c) => {
        const { rows } = await c.query('SELECT credential_id FROM connectors WHERE id = $1 AND revoked_at IS NULL FOR UPDATE', [id]);
        const cur = rows[0] as { credential_id: string } | undefined;
        if (!cur) return false;
        const at = nowIso();
        await c.query('UPDATE connectors SET revoked_at = $1 WHERE id = $2', [at, id]);
        await c.query('UPDATE credentials SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, cur.credential_id]);
        return true;
      });
    },

    async setConnectorMapping(id, mapping) {
      const res = await pool.query('UPDATE connectors SET mapping = $1 WHERE id = $2', [mapping ?? null, id]);
      if (res.rowCount === 0) throw notFound.connector(id);
    },

    async replaceConnectorLookup(id, rows: readonly ConnectorLookupRow[]) {
      checkUniqueProductKeys(rows);
      return tx(async (c) => {
        if ((await c.query('SELECT 1 FROM connectors WHERE id = $1 FOR UPDATE', [id])).rowCount === 0) {
          throw notFound.connector(id);
        }
        await c.query('DELETE FROM connector_lookup WHERE connector_id = $1', [id]);
        for (const part of chunks(rows, LOOKUP_BATCH)) {
          await c.query(`INSERT INTO connector_lookup (connector_id, product_key, codice_articolo, unita_misura)
            SELECT $1, k, a, u FROM unnest($2::text[], $3::text[], $4::text[]) AS t(k, a, u)`,
          [id, part.map((r) => r.productKey), part.map((r) => r.codice_articolo), part.map((r) => r.unita_misura ?? null)]);
        }
        return rows.length;
      });
    },

    async connectorLookup(id) {
      const { rows } = await pool.query(
        'SELECT product_key, codice_articolo, unita_misura FROM connector_lookup WHERE connector_id = $1 ORDER BY product_key COLLATE "C"', [id]);
      return (rows as Parameters<typeof toLookupRow>[0][]).map(toLookupRow);
    },
  };
}
