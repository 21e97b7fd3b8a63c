/**
 * A connector's customer table from a CSV file (issue 20): the sender's own customer ids (a printer's MIS numbers,
 * CustomerInfo/@CustomerID in its tickets) → our codice_cliente. Columns (header required, any order,
 * case-insensitive, more columns ignored):
 *   id_esterno ; codice_cliente
 * Delimiter `;`, `,` or tab, UTF-8 (with or without BOM) or Windows-1252, as the lookup table. External ids are
 * stored trimmed and upper case, and compared so. Every customer named must exist and be one the connector is
 * bound to (a table cannot widen what a key may do). The file replaces the whole table.
 */
import { findCustomerByCode } from '../customers/find.ts';
import { IntakeError } from '../domain/errors.ts';
import type { Connector } from '../domain/store/connectors.ts';
import type { Store } from '../domain/store/store.ts';
import { csvRecords, readTableText, refuseRows } from './csv-table.ts';
import { requireConnector } from './provision.ts';

/** A printer's customer list is thousands of rows at most; the table is loaded whole for every submission. */
export const MAX_CUSTOMER_TABLE_BYTES = 4 * 1024 * 1024;
export const MAX_CUSTOMER_TABLE_ROWS = 50_000;
/** External ids are identifiers; the bound keeps a pasted paragraph out. */
const MAX_EXTERNAL_ID = 100;

export interface CustomerTableRow {
  externalId: string;
  codice_cliente: string;
}

export function normaliseExternalId(id: string): string {
  return id.trim().toUpperCase();
}

/** Parse the file's text; every row error names its line. */
export function parseCustomerTable(text: string): CustomerTableRow[] {
  const records = csvRecords(text, 'id_esterno;codice_cliente');
  const names = (records[0] ?? []).map((h) => h.trim().toLowerCase().replace(/[\s-]+/g, '_'));
  const x = names.findIndex((n) => n === 'id_esterno' || n === 'external_id' || n === 'customerid');
  const c = names.indexOf('codice_cliente');
  if (x < 0 || c < 0) throw new IntakeError('VALIDATION', 'line 1: the header needs id_esterno and codice_cliente');
  if (records.length - 1 > MAX_CUSTOMER_TABLE_ROWS) throw new IntakeError('VALIDATION', `a customer table holds at most ${MAX_CUSTOMER_TABLE_ROWS} rows`);
  const rows: CustomerTableRow[] = [];
  const seen = new Map<string, number>();
  const errors: string[] = [];
  records.slice(1).forEach((r, i) => {
    const line = i + 2;
    const external = normaliseExternalId(r[x] ?? '');
    const code = (r[c] ?? '').trim();
    if (!external || external.length > MAX_EXTERNAL_ID) return void errors.push(`line ${line}: id_esterno must be 1 to ${MAX_EXTERNAL_ID} characters`);
    if (!code) return void errors.push(`line ${line}: codice_cliente is empty`);
    const first = seen.get(external);
    if (first !== undefined) return void errors.push(`line ${line}: id_esterno "${external}" repeats line ${first}`);
    seen.set(external, line);
    rows.push({ externalId: external, codice_cliente: code });
  });
  refuseRows(errors);
  return rows;
}

/** Rows → store rows, every customer existing and bound to the connector. */
async function resolveRows(store: Store, c: Connector, rows: readonly CustomerTableRow[]): Promise<{ externalId: string; customerId: string }[]> {
  const byCode = new Map<string, string | undefined>();
  const errors: string[] = [];
  const out: { externalId: string; customerId: string }[] = [];
  for (const r of rows) {
    const key = r.codice_cliente.toUpperCase();
    if (!byCode.has(key)) byCode.set(key, (await findCustomerByCode(store, r.codice_cliente))?.id);
    const id = byCode.get(key);
    if (id === undefined) errors.push(`id_esterno "${r.externalId}": no customer with code ${r.codice_cliente}`);
    else if (!c.allCustomers && !c.customers.some((b) => b.id === id)) {
      errors.push(`id_esterno "${r.externalId}": customer ${r.codice_cliente} is not bound to connector ${c.id} (bound: ${c.customers.map((b) => b.code).join(', ')})`);
    } else out.push({ externalId: r.externalId, customerId: id });
  }
  if (errors.length) throw new IntakeError('VALIDATION', errors.slice(0, 20));
  return out;
}

/** Replace a connector's customer table with the file's rows; resolves with how many. */
export async function importCustomerTable(store: Store, id: string, file: string): Promise<number> {
  const c = await requireConnector(store, id);
  const text = await readTableText(file, MAX_CUSTOMER_TABLE_BYTES, 'a customer table file');
  return store.replaceConnectorCustomerIds(c.id, await resolveRows(store, c, parseCustomerTable(text)));
}
