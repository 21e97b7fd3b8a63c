/**
 * A customer's article cross-references from a CSV file: `codice_cliente_articolo;codice_articolo` (the customer's own
 * code, as its UBL orders carry it in BuyersItemIdentification/ID, and ours), any order, more columns ignored.
 * Rows are upserted: importing a corrected file again fixes what the previous one got wrong.
 */
import { readFile, stat } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { Store } from '../domain/store/store.ts';
import type { CustomerLookup } from '../domain/store/ports.ts';
import { requireCustomerByCode } from '../customers/find.ts';
import { detectDelimiter } from './import-articles.ts';

/**
 * A customer's cross-references are a list of the articles it orders: thousands, not millions. The file is read
 * whole, so its size is bounded (some 100,000 rows at this size).
 */
export const MAX_XREF_FILE_BYTES = 8 * 1024 * 1024;
const MAX_CODE_LENGTH = 64;
const COLUMNS = ['codice_cliente_articolo', 'codice_articolo'] as const;
const BATCH = 5_000;

function text(raw: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(raw);
  } catch {
    // Not UTF-8: what Italian Excel saves as "CSV (delimitato dal separatore di elenco)".
    return new TextDecoder('windows-1252').decode(raw);
  }
}

export async function importArticleXrefs(
  store: CustomerLookup & Pick<Store, 'upsertArticleXrefs' | 'countArticleXrefs'>, code: string, file: string,
): Promise<{ rows: number; total: number }> {
  const customer = await requireCustomerByCode(store, code);
  const rows: { codice_cliente_articolo: string; codice_articolo: string }[] = [];
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new Error('is not a regular file');
    if (st.size > MAX_XREF_FILE_BYTES) throw new Error(`is larger than ${MAX_XREF_FILE_BYTES / (1024 * 1024)} MiB; split it`);
    const content = text(await readFile(file)).replace(/^\uFEFF/, '');
    if (content.trim() === '') throw new Error(`the file is empty; expected a header line ${COLUMNS.join(';')}`);
    const records = parse(content, { delimiter: detectDelimiter(content.split(/\r?\n/, 1)[0] ?? ''), relax_column_count: true, skip_empty_lines: true }) as string[][];
    const names = (records[0] ?? []).map((h) => h.trim().toLowerCase().replace(/[\s-]+/g, '_'));
    const missing = COLUMNS.filter((c) => !names.includes(c));
    if (missing.length > 0) throw new Error(`line 1: the header lacks ${missing.join(', ')}; expected ${COLUMNS.join(';')}`);
    const [theirs, ours] = COLUMNS.map((c) => names.indexOf(c)) as [number, number];
    records.slice(1).forEach((r, i) => {
      const a = (r[theirs] ?? '').trim();
      const b = (r[ours] ?? '').trim();
      if (a === '' && b === '') return;
      const line = i + 2;
      if (a === '' || b === '') throw new Error(`line ${line}: both codes are needed`);
      if (a.length > MAX_CODE_LENGTH || b.length > MAX_CODE_LENGTH) throw new Error(`line ${line}: a code is longer than ${MAX_CODE_LENGTH} characters`);
      if ([a, b].some((v) => v.includes('\0'))) throw new Error(`line ${line}: contains a NUL character`);
      rows.push({ codice_cliente_articolo: a, codice_articolo: b });
    });
  } catch (err) {
    const c = (err as { code?: unknown }).code;
    const why = c === 'ENOENT' ? 'no such file' : err instanceof Error ? err.message : String(err);
    throw new Error(`${file}: ${why}`, { cause: err });
  }
  for (let i = 0; i < rows.length; i += BATCH) await store.upsertArticleXrefs(customer.id, rows.slice(i, i + BATCH));
  return { rows: rows.length, total: await store.countArticleXrefs(customer.id) };
}
