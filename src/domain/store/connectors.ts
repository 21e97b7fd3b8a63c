/**
 * The connectors' part of the store port (src/domain/store/store.ts extends it): production sites, connectors (one
 * customer, a format, bound sites, allowed source addresses, a key), and each connector's profile (product lookup
 * table and mapping) that decoding its payloads needs.
 *
 * What must stay true in every implementation:
 * - a connector and its first key are created in one transaction, and a rotation revokes the old key and makes
 *   the new one current in one transaction: there is never a moment with two working keys or none.
 * - findConnectorByKey finds only the current key of a connector that is not revoked.
 * - a revoked connector stays readable (getConnector, connectorLookup): submissions it brought before are still
 *   decoded with its profile.
 * - every query that takes a customerId returns only that customer's rows.
 */
import type { OrderAttempt } from './records.ts';

/** How a connector's payloads are read. jdf: JDF 1.x tickets and JMF 1.x SubmitQueueEntry messages.
 *  xjdf: XJDF 2.x tickets and XJMF 2.x CommandSubmitQueueEntry. json / xml: the ERP's own shape, turned into
 *  orders by the connector's mapping (without a mapping: the spec's own order JSON/XML, decoded by the core). */
export type ConnectorFormat = 'jdf' | 'xjdf' | 'json' | 'xml';
export const CONNECTOR_FORMATS: readonly ConnectorFormat[] = ['jdf', 'xjdf', 'json', 'xml'];

export interface Site {
  /** Upper case (the store writes it so), e.g. VR. */
  code: string;
  name: string;
  createdAt: string;
}

/** A customer a connector may bring orders for. */
export interface ConnectorCustomer {
  id: string;
  code: string;
}

export interface Connector {
  id: string;
  /** The owner: the customer whose credential the key is and under whom its raw submissions are filed. */
  customerId: string;
  /** The owner's code, for principals and listings. */
  customerCode: string;
  /** The customers whose orders it may bring (migration 009), sorted by code; the owner alone for older ones. */
  customers: ConnectorCustomer[];
  /** Bound to every customer (a printer's own prepress or MIS): `customers` is then empty. */
  allCustomers: boolean;
  /** The operator's product key template (see src/intake/connectors/product-key.ts); unset: the built-in order. */
  productKey?: string;
  name: string;
  format: ConnectorFormat;
  /** Codes of the bound production sites, sorted. */
  sites: string[];
  /** CIDR blocks the connector may call from; empty means any address. */
  allowIps: string[];
  /** JSONata expression turning the ERP's JSON/XML into orders (json and xml formats). */
  mapping?: string;
  /** Public id of the current key (the `<keyId>` of `oic_<keyId>_…`). */
  keyId: string;
  createdAt: string;
  revokedAt?: string;
}

/** A new key: its credential row. The secret itself never reaches the store. */
export interface NewConnectorKey {
  credentialId: string;
  keyId: string;
  secretHash: string;
}

export interface NewConnector {
  id: string;
  /** The owner (see Connector.customerId). */
  customerId: string;
  /** Customers it may bring orders for; default: the owner alone. Ignored when allCustomers. */
  customerIds?: readonly string[];
  allCustomers?: boolean;
  productKey?: string;
  name: string;
  format: ConnectorFormat;
  sites: readonly string[];
  allowIps: readonly string[];
  mapping?: string;
  key: NewConnectorKey;
  createdAt?: string;
}

/** One row of a connector's lookup table: product key (already normalised) → article. */
export interface ConnectorLookupRow {
  productKey: string;
  codice_articolo: string;
  unita_misura?: string;
}

/** One row of a connector's customer table: the sender's id for a customer → ours. */
export interface ConnectorCustomerId {
  /** Trimmed, upper case. */
  externalId: string;
  customerId: string;
  customerCode: string;
}

/**
 * Where the attempts (order_attempts) of a multi-customer connector's tickets go when no bound customer can be
 * named for them (no CustomerID, an unknown one, another customer's): under this id, which no customer has, so no
 * customer's status view shows them, while the connector's own status queries do.
 */
export function unattributedOwner(connectorId: string): string {
  return `connector:${connectorId}`;
}

export interface ConnectorStore {
  /** CONFLICT when the code exists (codes are compared upper case). */
  createSite(s: { code: string; name: string; createdAt?: string }): Promise<Site>;
  getSite(code: string): Promise<Site | undefined>;
  listSites(): Promise<Site[]>;

  /** Connector, bound sites and first key in one transaction. NOT_FOUND for an unknown customer or site. */
  createConnector(c: NewConnector): Promise<Connector>;
  /** Revoked ones too. */
  getConnector(id: string): Promise<Connector | undefined>;
  listConnectors(q: { customerId?: string }): Promise<Connector[]>;
  /** The connector whose current key has this key id, with the key's hash; undefined when revoked or unknown. */
  findConnectorByKey(keyId: string): Promise<{ connector: Connector; secretHash: string } | undefined>;
  /** Revoke the current key and make `key` current. NOT_FOUND when no such connector is active. */
  rotateConnectorKey(id: string, key: NewConnectorKey): Promise<Connector>;
  /** Revoke the connector and its key; false when there was no active connector with that id. */
  revokeConnector(id: string): Promise<boolean>;
  /** Store (or clear, with undefined) the mapping. NOT_FOUND when the connector does not exist. */
  setConnectorMapping(id: string, mapping: string | undefined): Promise<void>;
  /** Replace the whole lookup table in one transaction; resolves with the number of rows. */
  replaceConnectorLookup(id: string, rows: readonly ConnectorLookupRow[]): Promise<number>;
  connectorLookup(id: string): Promise<ConnectorLookupRow[]>;

  // Migration 009: several customers per connector, the customer table, the product key, tickets kept with orders.
  /** Replace the whole customer table in one transaction; NOT_FOUND for an unknown connector or customer id. */
  replaceConnectorCustomerIds(id: string, rows: readonly { externalId: string; customerId: string }[]): Promise<number>;
  connectorCustomerIds(id: string): Promise<ConnectorCustomerId[]>;
  /** Store (or clear, with undefined) the product key template. NOT_FOUND when the connector does not exist. */
  setConnectorProductKey(id: string, template: string | undefined): Promise<void>;
  /** Keep what tickets said with the orders they made; an order that has its details keeps the first ones. */
  saveOrderTickets(rows: readonly { orderId: string; details: string }[]): Promise<void>;
  /** The details kept with an order of that customer (JSON text). */
  orderTicket(customerId: string, orderId: string): Promise<string | undefined>;
  /**
   * The customers (ids) owning an order with this id, or these with this reference, among the customers the
   * connector is bound to (`customerId` narrows to one). Scoping is done here, in the query.
   */
  connectorOrderOwners(connectorId: string, q: { id?: string; ref?: string; customerId?: string }): Promise<string[]>;
  /** The latest attempt of a reference among the connector's customers and its unattributed owner. */
  connectorLatestAttempt(connectorId: string, ref: string, customerId?: string): Promise<OrderAttempt | undefined>;
}
