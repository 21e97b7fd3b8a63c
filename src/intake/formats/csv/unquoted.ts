/**
 * The records of a CSV text that holds no quote character, split the way csv-parse splits it with the reader's
 * options (csv/stream.ts parserOptions) at a fraction of its cost: the second pass over a large file, once the
 * first pass (csv-parse itself) has checked the file and seen no quote in it.
 *
 * What must stay true: for a text without `"` the records are exactly csv-parse's, batch boundaries aside. Without
 * a quote csv-parse has no state but these (its options: no comment, no trimming, no casting):
 * - the record delimiter is discovered at the first CR or LF of the text — `\r\n`, else `\n`, else `\r` — and
 *   from then on only that one ends a record (a lone `\r` in a `\n` file stays in its cell, and the reverse);
 * - a record is split on the one-character delimiter; an empty line is skipped (skip_empty_lines), and so is a
 *   record whose every cell is blank once trimmed (skip_records_with_empty_values: String#trim, as csv-parse);
 * - the last line is a record even without a line break after it;
 * - each record carries its line number (RECORD_LINE), counted as csv-parse's `lines`.
 * Errors (a row beyond max_record_size) are the first pass's to find: this reader never sees a file with one.
 * test/intake/formats/csv-unquoted.test.ts compares it with csv-parse on generated texts.
 */

import { RECORD_LINE, type LinedRecord } from '../file-rows.ts';

/** The byte csv-parse reads as a quote (and as its escape): a file holding it is never read here. */
export const QUOTE_BYTE = 0x22;

/**
 * csv-parse's `lines` counts every CR and LF that is not the record delimiter as a line too (a CR inside a cell of a
 * LF file): the lines a record adds, so that both readers number records alike.
 */
function linesIn(line: string, last = false): number {
  if (line.indexOf('\r') === -1 && line.indexOf('\n') === -1) return 1;
  let n = 1;
  // A break that ends the text is not counted by csv-parse (nothing follows it).
  const end = last ? line.length - 1 : line.length;
  for (let i = 0; i < end; i++) {
    const c = line.charCodeAt(i);
    if (c === 10 || c === 13) n++;
  }
  return n;
}

function keep(line: string, delimiter: string, out: string[][], number: number): void {
  if (line === '') return;
  const cells: LinedRecord = line.split(delimiter);
  for (const cell of cells) {
    if (cell.trim() !== '') {
      cells[RECORD_LINE] = number;
      out.push(cells);
      return;
    }
  }
}

/**
 * The records of UTF-8 bytes (valid UTF-8: the caller's source checked or transcoded them), one batch per piece
 * read. A BOM left in the bytes is text, as csv-parse (without its `bom` option) reads it.
 */
export function* unquotedRecords(pieces: Iterable<Uint8Array>, delimiter: string): Generator<string[][], void, undefined> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let recordDelimiter: string | undefined;
  let carry = '';
  let lineNumber = 0;
  const split = (text: string, end: boolean): string[][] => {
    const out: string[][] = [];
    if (recordDelimiter === undefined) {
      const at = text.search(/[\r\n]/);
      if (at < 0 || (text[at] === '\r' && at === text.length - 1 && !end)) {
        // No line end yet (or a CR whose next character decides between \r\n and \r): wait for more text.
        if (end) keep(text, delimiter, out, (lineNumber += linesIn(text, true)));
        else carry = text;
        return out;
      }
      recordDelimiter = text[at] === '\n' ? '\n' : text[at + 1] === '\n' ? '\r\n' : '\r';
    }
    const lines = text.split(recordDelimiter);
    // The last piece is a line not yet ended (or, at the end of the text, the last line of the file).
    carry = end ? '' : lines.pop()!;
    lines.forEach((line, k) => keep(line, delimiter, out, (lineNumber += linesIn(line, end && k === lines.length - 1))));
    return out;
  };
  for (const piece of pieces) {
    const text = carry + decoder.decode(piece, { stream: true });
    carry = '';
    const out = split(text, false);
    if (out.length > 0) yield out;
  }
  const out = split(carry + decoder.decode(), true);
  if (out.length > 0) yield out;
}
