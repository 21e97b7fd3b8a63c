/**
 * Loading the article catalog from a CSV file: `codice_articolo;descrizione;unita_misura`, any order, an optional
 * `gtin` column (the GTIN a UBL order line may name the article by), more columns ignored. Streamed end to end (file → decoder → csv-parse → batches), so memory use does not grow
 * with the file: a 1,000,000-row catalog loads like a 10-row one, only longer. Rows are upserted: importing
 * the same file again changes nothing, and a corrected file fixes what the previous one got wrong.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { parse } from 'csv-parse';
import type { CatalogImportStore } from '../domain/store/ports.ts';
import type { Article } from '../domain/store/store.ts';
import { UNIT_CODE_PATTERN } from './units.ts';
import { normaliseGtin } from './gtin.ts';
import { NotUtf8Error, decoderFor, firstLine, sniffFile, type SniffedEncoding } from './encoding.ts';

export interface ImportArticlesOptions {
  /** Called as the file is read; totalBytes is the file size. */
  onProgress?(bytesRead: number, totalBytes: number): void;
}

/** Rows per store call: one transaction each. Big enough to amortise the round trip, small enough to bound memory. */
export const ARTICLE_BATCH_SIZE = 5_000;
/**
 * Longest record csv-parse will buffer. A quote left open would otherwise make the parser swallow the rest of
 * the file into one field; this turns it into an error at that line.
 */
const MAX_RECORD_CHARS = 64 * 1024;
/** Field bounds: article codes are short identifiers, descriptions a line of text. */
const MAX_CODE_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1_000;

const REQUIRED = ['codice_articolo', 'descrizione', 'unita_misura'] as const;
type Column = (typeof REQUIRED)[number];
type Columns = Record<Column, number> & { gtin?: number };
const EXPECTED_HEADER = REQUIRED.join(';');

/** The delimiter that occurs most in the header line (';' wins ties: it is what Italian Excel writes). */
export function detectDelimiter(header: string): ';' | ',' | '\t' {
  const count = (c: string) => header.split(c).length - 1;
  const candidates = [';', '\t', ','] as const;
  let best: ';' | ',' | '\t' = ';';
  let bestCount = 0;
  for (const c of candidates) {
    const n = count(c);
    if (n > bestCount) [best, bestCount] = [c, n];
  }
  if (bestCount === 0) {
    throw new Error(`line 1: cannot find the column delimiter (';', ',' or tab); the header must be ${EXPECTED_HEADER}`);
  }
  return best;
}

function headerIndexes(record: string[]): Columns {
  // "Codice articolo", "CODICE-ARTICOLO" and "codice_articolo" all name the same column.
  const names = record.map((h) => h.replace(/^\uFEFF/, '').trim().toLowerCase().replace(/[\s-]+/g, '_'));
  const missing = REQUIRED.filter((c) => !names.includes(c));
  if (missing.length > 0) {
    throw new Error(`line 1: the header lacks ${missing.join(', ')}; expected ${EXPECTED_HEADER}`);
  }
  const cols = Object.fromEntries(REQUIRED.map((c) => [c, names.indexOf(c)])) as Columns;
  if (names.includes('gtin')) cols.gtin = names.indexOf('gtin');
  return cols;
}

function toArticle(record: string[], cols: Columns, line: number): Article & { gtin?: string } {
  const code = (record[cols.codice_articolo] ?? '').trim();
  const descrizione = (record[cols.descrizione] ?? '').trim();
  const unit = (record[cols.unita_misura] ?? '').trim().toUpperCase();
  if (code === '') throw new Error(`line ${line}: codice_articolo is missing`);
  // The store refuses NUL too, but could not say which line held it.
  if ([code, descrizione, unit].some((v) => v.includes('\0'))) throw new Error(`line ${line}: contains a NUL character`);
  if (code.length > MAX_CODE_LENGTH) throw new Error(`line ${line}: codice_articolo is longer than ${MAX_CODE_LENGTH} characters`);
  if (descrizione.length > MAX_DESCRIPTION_LENGTH) {
    throw new Error(`line ${line}: descrizione is longer than ${MAX_DESCRIPTION_LENGTH} characters`);
  }
  if (unit !== '' && !UNIT_CODE_PATTERN.test(unit)) {
    throw new Error(`line ${line}: unita_misura "${unit}" is not a unit code (letters and digits, at most 10)`);
  }
  const gtinText = cols.gtin === undefined ? '' : (record[cols.gtin] ?? '').trim();
  if (gtinText === '') return { codice_articolo: code, descrizione, unita_misura: unit };
  const gtin = normaliseGtin(gtinText);
  if (gtin === undefined) throw new Error(`line ${line}: gtin "${gtinText.slice(0, 40)}" is not a GTIN (8, 12, 13 or 14 digits with a valid check digit)`);
  return { codice_articolo: code, descrizione, unita_misura: unit, gtin };
}

/** What csv-parse yields with `info: true`: the fields and where they were read. */
type ParsedRecords = AsyncIterable<{ record: string[]; info: { lines: number } }>;

async function importWith(
  store: CatalogImportStore,
  file: string,
  encoding: SniffedEncoding,
  delimiter: string,
  totalBytes: number,
  opts: ImportArticlesOptions,
): Promise<number> {
  let rows = 0;
  let bytesRead = 0;
  const source = createReadStream(file, { highWaterMark: 64 * 1024 });
  source.on('data', (chunk) => {
    bytesRead += chunk.length;
    opts.onProgress?.(bytesRead, totalBytes);
  });
  const parser = parse({
    delimiter,
    bom: true,
    info: true,
    relax_column_count: true,
    skip_empty_lines: true,
    max_record_size: MAX_RECORD_CHARS,
  });

  // The consumer's own error (a bad row) is the one to report: tearing the pipeline down after it can surface
  // a secondary AbortError first.
  let rowError: unknown;
  const consume = async (records: ParsedRecords) => {
    let cols: Columns | undefined;
    // Keyed by code: a code twice in one batch would make a multi-row upsert touch one row twice (PostgreSQL
    // refuses that); the later row wins, as it would across batches.
    let batch = new Map<string, Article>();
    let gtins = new Map<string, string>();
    const flush = async () => {
      await store.upsertArticles([...batch.values()]);
      if (gtins.size > 0) await store.upsertArticleGtins([...gtins].map(([gtin, codice_articolo]) => ({ gtin, codice_articolo })));
      batch = new Map();
      gtins = new Map();
    };
    for await (const { record, info } of records) {
      if (!cols) {
        cols = headerIndexes(record);
        continue;
      }
      if (record.every((f) => f.trim() === '')) continue; // a row of empty cells, as spreadsheets leave at the end
      const { gtin, ...article } = toArticle(record, cols, info.lines);
      batch.set(article.codice_articolo, article);
      if (gtin !== undefined) gtins.set(gtin, article.codice_articolo);
      rows++;
      if (batch.size >= ARTICLE_BATCH_SIZE) await flush();
    }
    if (!cols) throw new Error(`the file has no header line; expected ${EXPECTED_HEADER}`);
    if (batch.size > 0) await flush();
  };
  try {
    await pipeline(source, decoderFor(encoding), parser, (records: ParsedRecords) => consume(records).catch((err: unknown) => {
      rowError = err;
      throw err;
    }));
  } catch (err) {
    throw rowError ?? err;
  }
  return rows;
}

function describe(file: string, err: unknown): Error {
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOENT') return new Error(`${file}: no such file`);
  if (code === 'EACCES') return new Error(`${file}: permission denied`);
  if (err instanceof NotUtf8Error) {
    return new Error(`${file}: ${err.message}; save the whole file as UTF-8 (or as Windows-1252) and import it again`);
  }
  // csv-parse's own messages already name the line ("… at line 12").
  return new Error(`${file}: ${err instanceof Error ? err.message : String(err)}`);
}

export async function importArticles(
  store: CatalogImportStore,
  file: string,
  opts: ImportArticlesOptions = {},
): Promise<{ rows: number }> {
  try {
    const st = await stat(file);
    if (!st.isFile()) throw new Error(st.isDirectory() ? 'is a directory' : 'is not a regular file');
    const { head, encoding } = await sniffFile(file);
    if (head.length === 0) throw new Error(`the file is empty; expected a header line ${EXPECTED_HEADER}`);
    const delimiter = detectDelimiter(firstLine(head, encoding));
    try {
      return { rows: await importWith(store, file, encoding, delimiter, st.size, opts) };
    } catch (err) {
      // Only ASCII in the first 64 KiB and then a byte that is not UTF-8: the file is Windows-1252 after all.
      // Starting over is safe because rows are upserted and ASCII reads the same in both encodings.
      if (!(err instanceof NotUtf8Error) || encoding !== 'ascii') throw err;
      return { rows: await importWith(store, file, 'windows-1252', delimiter, st.size, opts) };
    }
  } catch (err) {
    throw describe(file, err);
  }
}
