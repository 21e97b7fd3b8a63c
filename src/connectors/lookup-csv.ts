/**
 * A connector's lookup table from a CSV file: which article a product of the prepress system is. Columns
 * (header required, any order, case-insensitive, more columns ignored):
 *   chiave_prodotto (or product_key) ; codice_articolo ; unita_misura (optional)
 * Delimiter `;`, `,` or tab, UTF-8 (with or without BOM) or Windows-1252, as the article catalog. Keys are stored
 * normalised (normaliseProductKey: trim, collapse spaces, lower case), exactly as the decoder looks them up.
 * The file replaces the whole table: what is not in it is no longer mapped.
 */
import { IntakeError } from '../domain/errors.ts';
import { normaliseProductKey } from '../intake/connectors/index.ts';
import type { ConnectorLookupRow } from '../domain/store/connectors.ts';
import { csvRecords, readTableText, refuseRows } from './csv-table.ts';
import { requireConnector } from './provision.ts';
import type { Store } from '../domain/store/store.ts';

/**
 * Largest lookup file. A print shop's product range is hundreds to a few thousand entries; the table is loaded
 * whole for every submission of the connector, so it must stay small.
 */
export const MAX_LOOKUP_BYTES = 8 * 1024 * 1024;
export const MAX_LOOKUP_ROWS = 50_000;
/** Field bounds: keys are product names or identifiers, codes and units short identifiers. */
const MAX_KEY_LENGTH = 200;
const MAX_CODE_LENGTH = 64;
const MAX_UNIT_LENGTH = 16;

const KEY_NAMES = ['chiave_prodotto', 'product_key', 'prodotto', 'chiave'];

function column(names: string[], wanted: readonly string[]): number {
  return names.findIndex((n) => wanted.includes(n));
}

/** Parse the file's text; every row error names its line. */
export function parseLookup(text: string): ConnectorLookupRow[] {
  const records = csvRecords(text, 'chiave_prodotto;codice_articolo;unita_misura');
  const names = (records[0] ?? []).map((h) => h.trim().toLowerCase().replace(/[\s-]+/g, '_'));
  const k = column(names, KEY_NAMES);
  const a = column(names, ['codice_articolo']);
  const u = column(names, ['unita_misura']);
  if (k < 0 || a < 0) throw new IntakeError('VALIDATION', 'line 1: the header needs chiave_prodotto (or product_key) and codice_articolo; unita_misura is optional');
  if (records.length - 1 > MAX_LOOKUP_ROWS) throw new IntakeError('VALIDATION', `a lookup table holds at most ${MAX_LOOKUP_ROWS} rows`);

  const rows: ConnectorLookupRow[] = [];
  const seen = new Map<string, number>();
  const errors: string[] = [];
  records.slice(1).forEach((r, i) => {
    const line = i + 2;
    const rawKey = (r[k] ?? '').trim();
    const code = (r[a] ?? '').trim();
    const unit = u >= 0 ? (r[u] ?? '').trim().toUpperCase() : '';
    if (!rawKey || rawKey.length > MAX_KEY_LENGTH) return void errors.push(`line ${line}: the product key must be 1 to ${MAX_KEY_LENGTH} characters`);
    if (!code || code.length > MAX_CODE_LENGTH) return void errors.push(`line ${line}: codice_articolo must be 1 to ${MAX_CODE_LENGTH} characters`);
    if (unit.length > MAX_UNIT_LENGTH) return void errors.push(`line ${line}: unita_misura must be at most ${MAX_UNIT_LENGTH} characters`);
    const productKey = normaliseProductKey(rawKey);
    const first = seen.get(productKey);
    if (first !== undefined) return void errors.push(`line ${line}: product key "${rawKey}" repeats line ${first}`);
    seen.set(productKey, line);
    rows.push(unit ? { productKey, codice_articolo: code, unita_misura: unit } : { productKey, codice_articolo: code });
  });
  refuseRows(errors);
  return rows;
}

export async function readLookupFile(file: string): Promise<ConnectorLookupRow[]> {
  return parseLookup(await readTableText(file, MAX_LOOKUP_BYTES, 'a lookup file'));
}

/** Replace a connector's lookup table with the file's rows; resolves with how many. */
export async function importLookup(store: Store, id: string, file: string): Promise<number> {
  const c = await requireConnector(store, id);
  const rows = await readLookupFile(file);
  return store.replaceConnectorLookup(c.id, rows);
}
