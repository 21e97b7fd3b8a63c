/** Rows of the connector tables and their conversions, shared by the SQLite and PostgreSQL implementations of ConnectorStore (src/domain/store/connectors.ts). */
import type { Connector, ConnectorCustomer, ConnectorFormat, ConnectorLookupRow, Site } from '../../domain/store/connectors.ts';
import { invalid } from './refusals.ts';

/**
 * A lookup or customer table that names one key twice, refused before either engine replaces the stored one (the
 * primary key would refuse it too, but mid-way and without saying which key).
 */
export function checkUniqueKeys<T>(rows: readonly T[], key: (r: T) => string, refusal: (key: string) => Error): void {
  const seen = new Set<string>();
  for (const r of rows) {
    const k = key(r);
    if (seen.has(k)) throw refusal(k);
    seen.add(k);
  }
}

export const checkUniqueProductKeys = (rows: readonly ConnectorLookupRow[]): void =>
  checkUniqueKeys(rows, (r) => r.productKey, invalid.duplicateProductKey);

export const checkUniqueExternalIds = (rows: readonly { externalId: string }[]): void =>
  checkUniqueKeys(rows, (r) => r.externalId, invalid.duplicateExternalId);

/** Columns read for a Connector (with `cr.lookup` of its current key and `cu.code` of its customer). */
export const CONNECTOR_SELECT = `SELECT c.id, c.customer_id, cu.code AS customer_code, c.name, c.format, c.allow_ips, c.mapping,
  c.created_at, c.revoked_at, cr.lookup AS key_id, cr.secret_hash, c.all_customers, c.product_key
  FROM connectors c JOIN customers cu ON cu.id = c.customer_id JOIN credentials cr ON cr.id = c.credential_id`;

export interface ConnectorRow {
  id: string;
  customer_id: string;
  customer_code: string;
  name: string;
  format: string;
  allow_ips: unknown;
  mapping: string | null;
  created_at: unknown;
  revoked_at: unknown;
  key_id: string;
  secret_hash: string;
  all_customers: unknown;
  product_key: string | null;
}

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

export function toConnector(r: ConnectorRow, sites: readonly string[], customers: readonly ConnectorCustomer[] = []): Connector {
  const allow = typeof r.allow_ips === 'string' ? JSON.parse(r.allow_ips) as unknown : r.allow_ips;
  const all = r.all_customers === true || Number(r.all_customers) === 1;
  const c: Connector = {
    id: r.id, customerId: r.customer_id, customerCode: r.customer_code,
    customers: all ? [] : [...customers].sort((a, b) => a.code.localeCompare(b.code)), allCustomers: all,
    name: r.name, format: r.format as ConnectorFormat,
    sites: [...sites].sort(), allowIps: Array.isArray(allow) ? allow.map(String) : [], keyId: r.key_id, createdAt: iso(r.created_at),
  };
  if (r.mapping !== null && r.mapping !== undefined) c.mapping = r.mapping;
  if (r.product_key !== null && r.product_key !== undefined) c.productKey = r.product_key;
  if (r.revoked_at !== null && r.revoked_at !== undefined) c.revokedAt = iso(r.revoked_at);
  return c;
}

export function toSite(r: { code: string; name: string; created_at: unknown }): Site {
  return { code: r.code, name: r.name, createdAt: iso(r.created_at) };
}

export function upperSite(code: string): string {
  return code.trim().toUpperCase();
}

/** Sites of each connector id, from (connector_id, site_code) rows. */
export function sitesByConnector(rows: readonly { connector_id: string; site_code: string }[]): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const r of rows) {
    const list = m.get(r.connector_id);
    if (list) list.push(r.site_code);
    else m.set(r.connector_id, [r.site_code]);
  }
  return m;
}

/** Bound customers of each connector id, from (connector_id, id, code) rows. */
export function customersByConnector(rows: readonly { connector_id: string; id: string; code: string }[]): Map<string, ConnectorCustomer[]> {
  const m = new Map<string, ConnectorCustomer[]>();
  for (const r of rows) {
    const list = m.get(r.connector_id) ?? [];
    list.push({ id: r.id, code: r.code });
    m.set(r.connector_id, list);
  }
  return m;
}

export function toLookupRow(r: { product_key: string; codice_articolo: string; unita_misura: string | null }): ConnectorLookupRow {
  return r.unita_misura === null || r.unita_misura === undefined
    ? { productKey: r.product_key, codice_articolo: r.codice_articolo }
    : { productKey: r.product_key, codice_articolo: r.codice_articolo, unita_misura: r.unita_misura };
}
