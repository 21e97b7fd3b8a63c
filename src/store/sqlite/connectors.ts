/**
 * The connectors' tables in the embedded store (migration 004): see the ConnectorStore port in connectors.ts.
 * Writes that span several statements are better-sqlite3 transactions taken IMMEDIATE (the CLI may write while
 * `serve` runs).
 */
import type Database from 'better-sqlite3';
import { alreadyExists, invalid, notFound } from '../common/refusals.ts';
import { type Connector, type ConnectorLookupRow, type ConnectorStore, type NewConnector, type NewConnectorKey } from '../../domain/store/connectors.ts';
import { CONNECTOR_SELECT, checkUniqueProductKeys, customersByConnector, sitesByConnector, toConnector, toLookupRow, toSite, upperSite, type ConnectorRow } from '../common/connector-rows.ts';
import { chunks, isoIn, nowIso } from '../common/rows.ts';
import { statementCache } from './statements.ts';
import { sqliteConnectorTenants } from './connector-tenants.ts';

export function sqliteConnectors(db: Database.Database): ConnectorStore {
  const q = statementCache(db);

  function withSites(rows: ConnectorRow[]): Connector[] {
    if (rows.length === 0) return [];
    const links: { connector_id: string; site_code: string }[] = [];
    const s = q('SELECT connector_id, site_code FROM connector_sites WHERE connector_id IN (SELECT value FROM json_each(?))');
    for (const part of chunks(rows.map((r) => r.id))) links.push(...(s.all(JSON.stringify(part)) as typeof links));
    const bySite = sitesByConnector(links);
    const bound: { connector_id: string; id: string; code: string }[] = [];
    const cs = q(`SELECT cc.connector_id, cu.id, cu.code FROM connector_customers cc JOIN customers cu ON cu.id = cc.customer_id
      WHERE cc.connector_id IN (SELECT value FROM json_each(?))`);
    for (const part of chunks(rows.map((r) => r.id))) bound.push(...(cs.all(JSON.stringify(part)) as typeof bound));
    const byCustomer = customersByConnector(bound);
    return rows.map((r) => toConnector(r, bySite.get(r.id) ?? [], byCustomer.get(r.id) ?? []));
  }

  function read(id: string): Connector | undefined {
    const r = q(`${CONNECTOR_SELECT} WHERE c.id = ?`).get(id) as ConnectorRow | undefined;
    return r && withSites([r])[0];
  }

  function insertKey(customerId: string, key: NewConnectorKey, at: string): void {
    try {
      q(`INSERT INTO credentials (id, customer_id, kind, lookup, secret_hash, created_at) VALUES (?, ?, 'connector', ?, ?, ?)`)
        .run(key.credentialId, customerId, key.keyId, key.secretHash, at);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw alreadyExists.connectorKey(key.keyId);
      }
      throw e;
    }
  }

  const create = db.transaction((c: NewConnector): Connector => {
    const customerIds = c.allCustomers ? [] : [...new Set(c.customerIds ?? [c.customerId])];
    for (const id of [c.customerId, ...customerIds]) {
      if (!q('SELECT 1 FROM customers WHERE id = ?').get(id)) throw notFound.customer(id);
    }
    const sites = [...new Set(c.sites.map(upperSite))];
    const missing = sites.filter((s) => !q('SELECT 1 FROM sites WHERE code = ?').get(s));
    if (missing.length > 0) throw notFound.sites(missing);
    const at = isoIn(c.createdAt ?? nowIso(), 'createdAt');
    insertKey(c.customerId, c.key, at);
    try {
      q(`INSERT INTO connectors (id, customer_id, name, format, credential_id, allow_ips, mapping, created_at, all_customers, product_key)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(c.id, c.customerId, c.name, c.format, c.key.credentialId,
        JSON.stringify(c.allowIps), c.mapping ?? null, at, c.allCustomers ? 1 : 0, c.productKey ?? null);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw alreadyExists.connector(c.id);
      if (code === 'SQLITE_CONSTRAINT_CHECK') throw invalid.connectorFormat(c.format);
      throw e;
    }
    const link = q('INSERT INTO connector_sites (connector_id, site_code) VALUES (?, ?)');
    for (const s of sites) link.run(c.id, s);
    const bind = q('INSERT INTO connector_customers (connector_id, customer_id) VALUES (?, ?)');
    for (const id of customerIds) bind.run(c.id, id);
    return read(c.id)!;
  });

  const rotate = db.transaction((id: string, key: NewConnectorKey): Connector => {
    const cur = q('SELECT customer_id, credential_id FROM connectors WHERE id = ? AND revoked_at IS NULL').get(id) as
      | { customer_id: string; credential_id: string }
      | undefined;
    if (!cur) throw notFound.activeConnector(id);
    const at = nowIso();
    q('UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, cur.credential_id);
    insertKey(cur.customer_id, key, at);
    q('UPDATE connectors SET credential_id = ? WHERE id = ?').run(key.credentialId, id);
    return read(id)!;
  });

  const revoke = db.transaction((id: string): boolean => {
    const at = nowIso();
    const cur = q('SELECT credential_id FROM connectors WHERE id = ? AND revoked_at IS NULL').get(id) as { credential_id: string } | undefined;
    if (!cur) return false;
    q('UPDATE connectors SET revoked_at = ? WHERE id = ?').run(at, id);
    q('UPDATE credentials SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(at, cur.credential_id);
    return true;
  });

  const replaceLookup = db.transaction((id: string, rows: readonly ConnectorLookupRow[]): number => {
    if (!q('SELECT 1 FROM connectors WHERE id = ?').get(id)) throw notFound.connector(id);
    q('DELETE FROM connector_lookup WHERE connector_id = ?').run(id);
    const ins = q('INSERT INTO connector_lookup (connector_id, product_key, codice_articolo, unita_misura) VALUES (?, ?, ?, ?)');
    for (const r of rows) ins.run(id, r.productKey, r.codice_articolo, r.unita_misura ?? null);
    return rows.length;
  });

  return {
    ...sqliteConnectorTenants(db),

    async createSite(s) {
      const site = { code: upperSite(s.code), name: s.name, createdAt: isoIn(s.createdAt ?? nowIso(), 'createdAt') };
      try {
        q('INSERT INTO sites (code, name, created_at) VALUES (?, ?, ?)').run(site.code, site.name, site.createdAt);
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw alreadyExists.site(site.code);
        throw e;
      }
      return site;
    },

    async getSite(code) {
      const r = q('SELECT code, name, created_at FROM sites WHERE code = ?').get(upperSite(code)) as Parameters<typeof toSite>[0] | undefined;
      return r && toSite(r);
    },

    async listSites() {
      return (q('SELECT code, name, created_at FROM sites ORDER BY code').all() as Parameters<typeof toSite>[0][]).map(toSite);
    },

    async createConnector(c) {
      return create.immediate(c);
    },

    async getConnector(id) {
      return read(id);
    },

    async listConnectors({ customerId }) {
      const rows = (customerId === undefined
        ? q(`${CONNECTOR_SELECT} ORDER BY c.created_at, c.id`).all()
        : q(`${CONNECTOR_SELECT} WHERE c.customer_id = ? ORDER BY c.created_at, c.id`).all(customerId)) as ConnectorRow[];
      return withSites(rows);
    },

    async findConnectorByKey(keyId) {
      const r = q(`${CONNECTOR_SELECT} WHERE cr.kind = 'connector' AND cr.lookup = ? AND cr.revoked_at IS NULL AND c.revoked_at IS NULL`)
        .get(keyId) as ConnectorRow | undefined;
      if (!r) return undefined;
      return { connector: withSites([r])[0]!, secretHash: r.secret_hash };
    },

    async rotateConnectorKey(id, key) {
      return rotate.immediate(id, key);
    },

    async revokeConnector(id) {
      return revoke.immediate(id);
    },

    async setConnectorMapping(id, mapping) {
      if (q('UPDATE connectors SET mapping = ? WHERE id = ?').run(mapping ?? null, id).changes === 0) {
        throw notFound.connector(id);
      }
    },

    async replaceConnectorLookup(id, rows) {
      checkUniqueProductKeys(rows);
      return replaceLookup.immediate(id, rows);
    },

    async connectorLookup(id) {
      return (q(`SELECT product_key, codice_articolo, unita_misura FROM connector_lookup WHERE connector_id = ? ORDER BY product_key`)
        .all(id) as Parameters<typeof toLookupRow>[0][]).map(toLookupRow);
    },
  };
}
