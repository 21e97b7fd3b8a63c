/**
 * CSV orders, as spreadsheets export them: a header row naming the columns (any order, any case), one row per
 * order line with the order's fields repeated. Rows with the same (codice_cliente, riferimento_ordine) make
 * one order, whether or not they are next to each other; orders come out in the order they first appear.
 *
 * The reading itself is stream.ts (in pieces, for files of any size); this is the whole-file form.
 */
import type { DecodeInput } from '../input.ts';
import { CsvOrderReader } from './stream.ts';

export { MAX_COLUMNS, MAX_RECORD_CHARS } from './header.ts';

export function decodeCsv(input: DecodeInput): unknown[] {
  return [...CsvOrderReader.open(input).orders()];
}
