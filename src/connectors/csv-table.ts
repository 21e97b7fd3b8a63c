/**
 * What a connector's small CSV tables (lookup table, customer table) share: the file read within a bound, its
 * encoding (UTF-8 with or without BOM, or Windows-1252), the delimiter (`;`, `,` or tab, from the header) and the
 * records, each failure worded for the operator with the header the file needs.
 */
import { readFile, stat } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { detectDelimiter } from '../catalog/import-articles.ts';
import { sniff } from '../catalog/encoding.ts';
import { IntakeError } from '../domain/errors.ts';

/** The records of a table's text, header first; `header` is how the needed header is shown in errors. */
export function csvRecords(text: string, header: string): string[][] {
  const headerLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  let delimiter: string;
  try {
    delimiter = detectDelimiter(headerLine);
  } catch {
    throw new IntakeError('VALIDATION', `line 1: cannot find the column delimiter (';', ',' or tab); the header must be ${header}`);
  }
  try {
    return parse(text, { delimiter, bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 64 * 1024 }) as string[][];
  } catch (e) {
    throw new IntakeError('VALIDATION', `the file is not valid CSV: ${(e as Error).message}`);
  }
}

/** A table file's text, refused when larger than `maxBytes` (`what` names it in the message). */
export async function readTableText(file: string, maxBytes: number, what: string): Promise<string> {
  if ((await stat(file)).size > maxBytes) throw new IntakeError('VALIDATION', `${what} must not exceed ${maxBytes} bytes`);
  const bytes = await readFile(file);
  return sniff(bytes) === 'windows-1252' ? iconv.decode(bytes, 'win1252') : bytes.toString('utf8');
}

/** Row errors as one VALIDATION error: the first 20, and how many more. */
export function refuseRows(errors: string[]): void {
  if (errors.length === 0) return;
  const shown = errors.slice(0, 20);
  if (errors.length > shown.length) shown.push(`… and ${errors.length - shown.length} more`);
  throw new IntakeError('VALIDATION', shown);
}
