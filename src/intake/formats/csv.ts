/**
 * CSV orders, as spreadsheets export them: a header row naming the columns (any order, any case), one row per
 * order line with the order's fields repeated. Rows with the same (codice_cliente, riferimento_ordine) make
 * one order, whether or not they are next to each other; orders come out in the order they first appear.
 */
import { CsvError, parse } from 'csv-parse/sync';
import { IntakeError } from '../../errors.ts';
import type { DecodeInput } from './input.ts';
import { declaredCharset } from './detect.ts';
import { LINE_FIELDS, ORDER_FIELDS, OPTIONAL_ORDER_FIELDS, spreadsheetNumber } from './fields.ts';
import { checkShape } from './csv-shape.ts';
import { decodeText } from './text.ts';

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

type Columns = Map<string, number>;

export function decodeCsv(input: DecodeInput): unknown[] {
  // Italian Excel writes Windows-1252 with no way to say so; any file that is not valid UTF-8 is taken as such.
  const text = decodeText(input.raw, { charset: declaredCharset(input), fallback: 'windows-1252', label: 'CSV' });
  const delimiter = detectDelimiter(headerLine(text));
  const rows = parseRows(text, delimiter);
  const header = rows.shift();
  if (header === undefined) throw new IntakeError('NOT_PARSEABLE', 'CSV must start with a header row');
  return group(rows, columnsOf(header));
}

/**
 * The header: the first line with something in it (csv-parse skips the same blank and delimiter-only lines),
 * cut at the longest row allowed, which is enough to count its columns; and its line number.
 */
function headerLine(text: string): { line: string; number: number } {
  const m = /^[^\r\n]*[^\s;,"][^\r\n]*/m.exec(text);
  if (!m) return { line: '', number: 1 };
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
function detectDelimiter({ line, number }: { line: string; number: number }): string {
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

function parseRows(text: string, delimiter: string): string[][] {
  checkShape(text, delimiter, { maxColumns: MAX_COLUMNS, maxQuotedChars: MAX_RECORD_CHARS });
  try {
    return parse(text, {
      delimiter,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      // A row of nothing but delimiters is what Excel writes for formatted but empty rows.
      skip_records_with_empty_values: true,
      // Backstop for one huge unquoted cell, which checkShape does not measure.
      max_record_size: MAX_RECORD_CHARS,
    });
  } catch (e) {
    throw new IntakeError('NOT_PARSEABLE', csvErrorMessage(e));
  }
}

/** csv-parse messages name the line and carry nothing internal. */
function csvErrorMessage(e: unknown): string {
  if (!(e instanceof CsvError)) return 'CSV cannot be read';
  if (e.code === 'CSV_MAX_RECORD_SIZE') {
    const line = (e as unknown as { lines?: unknown }).lines;
    return `CSV rows must not be longer than ${MAX_RECORD_CHARS} characters (line ${String(line)})`;
  }
  return `CSV cannot be read: ${e.message}`;
}

function tooManyColumns(line: number): IntakeError {
  return new IntakeError('NOT_PARSEABLE', `CSV must not have more than ${MAX_COLUMNS} columns (line ${line} has more)`);
}

function missingColumns(missing: readonly string[]): IntakeError {
  return new IntakeError(
    'NOT_PARSEABLE',
    `CSV header must name the columns ${REQUIRED_COLUMNS.join(', ')} (data_consegna optional); missing: ${missing.join(', ')}`,
  );
}

function columnsOf(header: string[]): Columns {
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

function group(rows: string[][], columns: Columns): unknown[] {
  const orders = new Map<string, { righe: unknown[] }>();
  for (const record of rows) {
    // A short row (trailing empty cells dropped by the exporter) reads as empty cells; stage A reports them.
    const cell = (name: string): string => {
      const index = columns.get(name);
      return index === undefined ? '' : record[index] ?? '';
    };
    const key = JSON.stringify([cell('codice_cliente'), cell('riferimento_ordine')]);
    let order = orders.get(key);
    if (order === undefined) {
      const fields: Record<string, string> = {};
      for (const field of ORDER_FIELDS) {
        const value = cell(field);
        if (!(value === '' && OPTIONAL_ORDER_FIELDS.has(field))) fields[field] = value;
      }
      order = { ...fields, righe: [] };
      orders.set(key, order);
    }
    const quantita = cell('quantita');
    order.righe.push({
      codice_articolo: cell('codice_articolo'),
      quantita: spreadsheetNumber(quantita) ?? quantita,
      unita_misura: cell('unita_misura'),
    });
  }
  return [...orders.values()];
}
