/**
 * The operator's side of connectors: create one for a customer (its key is returned once, here, and stored only
 * as a hash), rotate and revoke its key, load its lookup table and its mapping. Everything is checked here, so
 * the store receives only well-formed rows and the CLI stays a thin shell.
 */
import { uuidv7 } from '../domain/uuid7.ts';
import { generateConnectorKey, hashConnectorKey } from '../auth/secrets.ts';
import { requireCustomerByCode } from '../customers/find.ts';
import { IntakeError } from '../domain/errors.ts';
import { CONNECTOR_FORMATS, type ConnectorFormat } from '../domain/store/connectors.ts';
import { compileMapping } from '../intake/connectors/index.ts';
import { parseProductKeyTemplate } from '../intake/connectors/product-key-template.ts';
import type { Connector, NewConnectorKey } from '../domain/store/connectors.ts';
import type { ConnectorAdminStore } from '../domain/store/ports.ts';
import { parseAllowList } from './ip-allow.ts';
import { parseSiteList } from './sites.ts';

/** A connector's name says which system it is ("Switch Verona"), nothing longer. */
const MAX_CONNECTOR_NAME = 200;
/**
 * Largest mapping kept. A JSONata expression for an ERP export is a page or two; the bound keeps a mistaken file
 * (the export itself instead of the mapping) from being stored and compiled for every submission.
 */
export const MAX_MAPPING_BYTES = 64 * 1024;

export interface IssuedConnector {
  connector: Connector;
  /** The whole `service-x-key` (`oic_…`), shown once. */
  key: string;
}

export function checkFormat(format: unknown): ConnectorFormat {
  if (typeof format !== 'string' || !(CONNECTOR_FORMATS as readonly string[]).includes(format.trim().toLowerCase())) {
    throw new IntakeError('VALIDATION', `format must be one of ${CONNECTOR_FORMATS.join(', ')}`);
  }
  return format.trim().toLowerCase() as ConnectorFormat;
}

/** A mapping is compiled before it is stored, so a broken one is refused at the operator's desk, not per order. */
export function checkMapping(text: string): string {
  if (Buffer.byteLength(text, 'utf8') > MAX_MAPPING_BYTES) throw new IntakeError('VALIDATION', `a mapping must not exceed ${MAX_MAPPING_BYTES} bytes`);
  if (text.trim() === '') throw new IntakeError('VALIDATION', 'the mapping is empty');
  try {
    compileMapping(text);
  } catch (e) {
    throw new IntakeError('VALIDATION', `the mapping does not compile: ${(e as Error).message}`);
  }
  return text;
}

function newKey(): { key: NewConnectorKey; token: string } {
  const { keyId, token } = generateConnectorKey();
  return { key: { credentialId: uuidv7(), keyId, secretHash: hashConnectorKey(token) }, token };
}

/** A product key template is checked before it is stored, like a mapping. */
export function checkProductKey(format: ConnectorFormat, template: string): string {
  if (format !== 'jdf' && format !== 'xjdf') {
    throw new IntakeError('VALIDATION', `a ${format} connector has no tickets: product keys are for jdf and xjdf connectors`);
  }
  parseProductKeyTemplate(template);
  return template.trim();
}

/**
 * Who a connector belongs to and whose orders it may bring: `--customer C` alone (one customer, as before), or
 * `--customers C001,C002` / `--customers all` (a printer's prepress or MIS). The owner is `--customer`, else the
 * first of `--customers`; bound to all, the owner must be named, since its raw submissions are filed there.
 */
async function bindings(store: ConnectorAdminStore, input: { customer?: string; customers?: string }): Promise<{ ownerId: string; customerIds: string[]; all: boolean }> {
  const list = input.customers?.trim();
  if (list === undefined || list === '') {
    if (!input.customer) throw new IntakeError('VALIDATION', 'name the customer (--customer C001) or the customers (--customers C001,C002 or all)');
    const owner = await requireCustomerByCode(store, input.customer);
    return { ownerId: owner.id, customerIds: [owner.id], all: false };
  }
  if (list.toLowerCase() === 'all') {
    if (!input.customer) {
      throw new IntakeError('VALIDATION', "a connector bound to all customers still belongs to one account: name it with --customer (e.g. the printer's own code); what the connector sends is filed there");
    }
    return { ownerId: (await requireCustomerByCode(store, input.customer)).id, customerIds: [], all: true };
  }
  const codes = [...new Set(list.split(',').map((c) => c.trim()).filter(Boolean))];
  const ids: string[] = [];
  for (const code of codes) ids.push((await requireCustomerByCode(store, code)).id);
  const ownerId = input.customer ? (await requireCustomerByCode(store, input.customer)).id : ids[0]!;
  return { ownerId, customerIds: [...new Set([...ids])], all: false };
}

export async function addConnector(store: ConnectorAdminStore, input: {
  customer?: string; customers?: string; name: string; sites: string; format: string; allowIps?: string; mapping?: string; productKey?: string;
}): Promise<IssuedConnector> {
  const bound = await bindings(store, input);
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (name.length === 0 || name.length > MAX_CONNECTOR_NAME) {
    throw new IntakeError('VALIDATION', `connector name must be 1 to ${MAX_CONNECTOR_NAME} characters`);
  }
  const format = checkFormat(input.format);
  const sites = parseSiteList(input.sites);
  let allowIps: string[];
  try {
    allowIps = parseAllowList(input.allowIps);
  } catch (e) {
    throw new IntakeError('VALIDATION', (e as Error).message);
  }
  if (input.mapping !== undefined && format !== 'json' && format !== 'xml') {
    throw new IntakeError('VALIDATION', `a ${format} connector reads tickets, not mapped data: mappings are for json and xml connectors`);
  }
  const mapping = input.mapping === undefined ? undefined : checkMapping(input.mapping);
  const productKey = input.productKey === undefined ? undefined : checkProductKey(format, input.productKey);
  const { key, token } = newKey();
  const connector = await store.createConnector({
    id: uuidv7(), customerId: bound.ownerId, customerIds: bound.customerIds, allCustomers: bound.all,
    name, format, sites, allowIps, mapping, key, ...(productKey === undefined ? {} : { productKey }),
  });
  return { connector, key: token };
}

export async function requireConnector(store: ConnectorAdminStore, id: string): Promise<Connector> {
  const c = await store.getConnector(id.trim());
  if (!c) throw new IntakeError('NOT_FOUND', `no connector ${id}`);
  return c;
}

/** Revoke the current key and issue a new one; the old key stops working in the same transaction. */
export async function rotateConnectorKey(store: ConnectorAdminStore, id: string): Promise<IssuedConnector> {
  const c = await requireConnector(store, id);
  if (c.revokedAt) throw new IntakeError('CONFLICT', `connector ${c.id} was revoked on ${c.revokedAt}: add a new one`);
  const { key, token } = newKey();
  return { connector: await store.rotateConnectorKey(c.id, key), key: token };
}

export async function revokeConnector(store: ConnectorAdminStore, id: string): Promise<Connector> {
  const c = await requireConnector(store, id);
  if (!(await store.revokeConnector(c.id))) throw new IntakeError('CONFLICT', `connector ${c.id} is already revoked`);
  return requireConnector(store, c.id);
}

export async function setMapping(store: ConnectorAdminStore, id: string, text: string): Promise<Connector> {
  const c = await requireConnector(store, id);
  if (c.format !== 'json' && c.format !== 'xml') {
    throw new IntakeError('VALIDATION', `connector ${c.id} reads ${c.format}: mappings are for json and xml connectors`);
  }
  await store.setConnectorMapping(c.id, checkMapping(text));
  return requireConnector(store, c.id);
}

/** Set (or, with `auto`, clear) the product key template of a jdf/xjdf connector. */
export async function setProductKey(store: ConnectorAdminStore, id: string, template: string): Promise<Connector> {
  const c = await requireConnector(store, id);
  const auto = template.trim().toLowerCase() === 'auto';
  await store.setConnectorProductKey(c.id, auto ? undefined : checkProductKey(c.format, template));
  return requireConnector(store, c.id);
}
