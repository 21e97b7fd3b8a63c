/**
 * The header row of a CSV order file: where it is, which delimiter splits it, which column holds which field.
 */
import { IntakeError } from '../../../domain/errors.ts';
import { LINE_FIELDS, ORDER_FIELDS, OPTIONAL_ORDER_FIELDS } from '../fields.ts';

/**
 * Most columns in any row. The layout has seven; a few extra columns (descriptions, notes) are normal. A
 * hostile or broken file with 100,000 columns must fail at once instead of building huge rows.
 */
export const MAX_COLUMNS = 200;

/**
 * Most characters in one row. A real row is a few hundred characters; this bounds the memory of a row that
 * never ends (a missing closing quote swallowing the rest of the file).
 */
export const MAX_RECORD_CHARS = 64 * 1024;

const DELIMITERS = [';', ',', '\t'] as const;
const KNOWN_COLUMNS: readonly string[] = [...ORDER_FIELDS, ...LINE_FIELDS];
const REQUIRED_COLUMNS = KNOWN_COLUMNS.filter((c) => !OPTIONAL_ORDER_FIELDS.has(c));

export type Columns = Map<string, number>;

export interface HeaderLine {
  line: string;
  /** Its line number, from 1. */
  number: number;
}

/** A line with something in it: csv-parse skips the same blank and delimiter-only lines. */
const CONTENT_LINE = /^[^\r\n]*[^\s;,"][^\r\n]*/m;

/**
 * The header in the text read so far: the first line with something in it, cut at the longest row allowed
 * (enough to count its columns), and its line number. Undefined while that line may still go on in text not
 * read yet; at the end of the file (`complete`) a file without such a line gives an empty line 1.
 */
export function findHeaderLine(text: string, complete: boolean): HeaderLine | undefined {
  const m = CONTENT_LINE.exec(text);
  if (!m) return complete ? { line: '', number: 1 } : undefined;
  const end = m.index + m[0].length;
  if (!complete && end >= text.length && m[0].length <= MAX_RECORD_CHARS) return undefined;
  return {
    line: m[0].slice(0, MAX_RECORD_CHARS + 1),
    number: text.slice(0, m.index).split(/\r\n|\r|\n/).length,
  };
}

function normalizeName(cell: string): string {
  return cell.trim().replace(/^"(.*)"$/s, '$1').trim().toLowerCase();
}

/**
 * The delimiter that splits the header into the most known column names; on a tie the semicolon (Italian
 * Excel) wins, then the comma. A quoted header cell holding a delimiter can only mislead the count a little,
 * and csv-parse does the real splitting afterwards.
 */
export function detectDelimiter({ line, number }: HeaderLine): string {
  let best: { delimiter: string; known: number; cells: number } | undefined;
  for (const delimiter of DELIMITERS) {
    const cells = line.split(delimiter);
    const known = new Set(cells.map(normalizeName).filter((c) => KNOWN_COLUMNS.includes(c))).size;
    if (best === undefined || known > best.known) best = { delimiter, known, cells: cells.length };
  }
  if (best === undefined) throw missingColumns(REQUIRED_COLUMNS);
  if (best.cells > MAX_COLUMNS) throw tooManyColumns(number);
  if (best.known === 0) throw missingColumns(REQUIRED_COLUMNS);
  return best.delimiter;
}

function tooManyColumns(line: number): IntakeError {
  return new IntakeError('NOT_PARSEABLE', `CSV must not have more than ${MAX_COLUMNS} columns (line ${line} has more)`);
}

function missingColumns(missing: readonly string[]): IntakeError {
  return new IntakeError(
    'NOT_PARSEABLE',
    `CSV header must name the columns ${REQUIRED_COLUMNS.join(', ')} (data_consegna and note optional); missing: ${missing.join(', ')}`,
  );
}

export function columnsOf(header: string[]): Columns {
  const columns: Columns = new Map();
  header.forEach((cell, index) => {
    const name = normalizeName(cell);
    if (!KNOWN_COLUMNS.includes(name)) return; // extra columns (descriptions, notes) are ignored
    if (columns.has(name)) throw new IntakeError('NOT_PARSEABLE', `CSV header names the column ${name} more than once`);
    columns.set(name, index);
  });
  const missing = REQUIRED_COLUMNS.filter((c) => !columns.has(c));
  if (missing.length > 0) throw missingColumns(missing);
  return columns;
}
