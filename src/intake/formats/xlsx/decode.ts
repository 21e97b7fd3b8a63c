/**
 * Excel orders: the CSV layout on a sheet (`ordini`, any case, or else the first). The header row is the first of the
 * first 20 rows that names the columns (title rows above it are skipped), by their CSV names or their human forms,
 * ignoring case, accents, spaces and punctuation ("Quantità", "U.M."). Rows with the same (codice_cliente,
 * riferimento_ordine) make one order, as in CSV; empty rows are ignored.
 *
 * Cells are read as Excel stores them: numbers as numbers (to 15 significant digits, as Excel shows them), dates as
 * serial numbers in the workbook's date system, a code stored as a number with a zero-padded format as displayed
 * (`00123`), formulas by their cached value. Text people typed for a number or a date is read by people-values.ts,
 * exactly as in CSV.
 */
import { IntakeError } from '../../../domain/errors.ts';
import type { DecodeInput } from '../input.ts';
import { LINE_FIELDS, ORDER_FIELDS, OPTIONAL_ORDER_FIELDS } from '../fields.ts';
import { markUnread, noteNumber, numberContext, readDate, readNumber } from '../people-values.ts';
import { columnLetters, isWorkbook, notWorkbook, readSheet, readWorkbook, type CellValue, type SheetRow, type Styles, type WorkbookInfo } from './workbook.ts';
import { SHEET_PLACES, withPlaces } from './places.ts';
import type { SheetPlaces } from '../../../domain/types.ts';
import { WorkbookZip } from './zip.ts';

export const XLSX_SHEET_LIMITS = {
  /** Rows searched for the header: room for a title, a date and a few notes above it. */
  headerRows: 20,
  /**
   * Rows of orders in one sheet. The orders are held until the sheet ends (rows of one order may be far apart, as in
   * CSV): 200,000 rows is twice the 100,000 the bench reads at ~120 MiB, and far above any order file people make.
   */
  maxRows: 200_000,
} as const;

/** Fields of the layout (the CSV's), in the key order a candidate has (order fields, then the lines'). */
const OPTIONAL = OPTIONAL_ORDER_FIELDS;
const REQUIRED = [...ORDER_FIELDS, ...LINE_FIELDS].filter((f) => !OPTIONAL.has(f));
const DATE_FIELDS: ReadonlySet<string> = new Set(['data_ordine', 'data_consegna']);
/**
 * A row with none of these is empty: the template fills the customer's code down its rows, and a row where only that
 * (or a note) is written is one nobody filled in.
 */
const CONTENT_FIELDS = ['riferimento_ordine', 'data_ordine', 'data_consegna', 'codice_articolo', 'quantita', 'unita_misura', 'azione', 'motivo'] as const;

/** `Unità di misura` → `unitadimisura`: no case, accents, spaces or punctuation. */
export function headerKey(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** Header names (as headerKey gives them) → field. The CSV names and the forms people write. */
const HEADER_NAMES = new Map<string, string>([
  ...[...ORDER_FIELDS, ...LINE_FIELDS].map((f) => [headerKey(f), f] as const),
  ['cliente', 'codice_cliente'], ['codcliente', 'codice_cliente'],
  ['riferimento', 'riferimento_ordine'], ['rifordine', 'riferimento_ordine'], ['riferimentodellordine', 'riferimento_ordine'],
  ['datadellordine', 'data_ordine'], ['datadiconsegna', 'data_consegna'],
  ['articolo', 'codice_articolo'], ['codarticolo', 'codice_articolo'],
  ['qta', 'quantita'], ['qt', 'quantita'],
  ['unitadimisura', 'unita_misura'], ['um', 'unita_misura'], ['unita', 'unita_misura'],
  ['note', 'note'],
]);

export interface XlsxReadOptions {
  /** Rows of orders allowed (tests use a small one). */
  maxRows?: number;
  /** Stop remembering orders beyond this many (the caller refuses such a file on its count). */
  maxOrders?: number;
}

export interface XlsxResult {
  candidates: unknown[];
  /** Orders in the sheet (maxOrders + 1 when there are more). */
  count: number;
}

/** The header row: field → column, and each column's name as written. */
interface Header {
  row: number;
  columns: Map<string, number>;
  names: Map<string, string>;
}

function cellText(v: CellValue): string {
  switch (v.t) {
    case 's':
    case 'e':
      return v.s;
    case 'b':
      return v.b ? 'VERO' : 'FALSO';
    case 'n':
      return String(v.n);
  }
}

function headerOf(row: SheetRow): Header | undefined {
  const columns = new Map<string, number>();
  const names = new Map<string, string>();
  for (const c of row.cells) {
    if (c.v.t !== 's') continue;
    const field = HEADER_NAMES.get(headerKey(c.v.s));
    if (field === undefined) continue;
    if (columns.has(field)) {
      throw new IntakeError('NOT_PARSEABLE', `the Excel sheet's header (row ${row.row}) names the column ${field} more than once`);
    }
    columns.set(field, c.col);
    names.set(field, c.v.s.trim());
  }
  // A row naming at least three columns of the layout is its header; a title row names none.
  return columns.size >= 3 ? { row: row.row, columns, names } : undefined;
}

/** Excel's 15 significant digits: 0.1 + 0.2 in a formula is shown, and meant, as 0.3. */
const excelNumber = (n: number) => Number(n.toPrecision(15));

/** A serial date (days since 1899-12-30, or 1904-01-01) as ISO; undefined out of the calendar Excel has. */
export function serialDate(serial: number, date1904: boolean): string | undefined {
  const days = Math.floor(serial);
  if (days < 1 || days > 2_958_465) return undefined;
  // The 1900 system counts a 29 February 1900 that did not exist (serial 60): days before it are one later.
  const offset = date1904 ? Date.UTC(1904, 0, 1) : days < 60 ? Date.UTC(1899, 11, 31) : Date.UTC(1899, 11, 30);
  return new Date(offset + days * 86_400_000).toISOString().slice(0, 10);
}

/** A code or text field as the sheet displays it: a number with a `00000` format is padded. */
function textField(v: CellValue, styles: Styles): string {
  if (v.t !== 'n') return cellText(v);
  const n = excelNumber(v.n);
  const pad = styles.zeroPad[v.style] ?? 0;
  if (pad > 0 && Number.isInteger(n) && n >= 0) return String(n).padStart(pad, '0');
  return String(n);
}

export async function readXlsx(raw: Buffer, opts: XlsxReadOptions = {}): Promise<XlsxResult> {
  const zip = await WorkbookZip.open(raw);
  try {
    if (!isWorkbook(zip)) throw notWorkbook(zip);
    const info = await readWorkbook(zip);
    return await readOrders(zip, info, opts);
  } finally {
    zip.close();
  }
}

async function readOrders(zip: WorkbookZip, info: WorkbookInfo, opts: XlsxReadOptions): Promise<XlsxResult> {
  const maxRows = opts.maxRows ?? XLSX_SHEET_LIMITS.maxRows;
  const maxOrders = opts.maxOrders ?? Infinity;
  const { styles, date1904 } = info;
  let header: Header | undefined;
  let dataRows = 0;
  const orders = new Map<string, { righe: unknown[]; [f: string]: unknown }>();
  let count = 0;
  /** Lines whose quantity was text: read once the whole sheet shows how its numbers are written. */
  const textQuantities: { line: Record<string, unknown>; text: string }[] = [];
  const numbers = numberContext();
  let places: { columns: SheetPlaces['colonne'] } | undefined;

  /** The row's values by column (a row has a handful of cells; the array is reused). */
  const byCol: (CellValue | undefined)[] = [];

  function dateField(order: Record<string, unknown>, field: string, v: CellValue): string {
    if (v.t === 'n') {
      const iso = serialDate(v.n, date1904);
      if (iso !== undefined) return iso;
      const text = String(excelNumber(v.n));
      markUnread(order, field, `«${text}» non è una data: scriva per esempio 28/11/2026`);
      return text;
    }
    const text = cellText(v);
    const r = readDate(text);
    if (r.ok) return r.value;
    markUnread(order, field, r.reason);
    return text;
  }

  function onRow(row: SheetRow): void {
    if (header === undefined) {
      header = headerOf(row);
      if (header === undefined && row.row >= XLSX_SHEET_LIMITS.headerRows) throw noHeader(info.sheetName);
      if (header !== undefined) {
        const missing = REQUIRED.filter((f) => !header!.columns.has(f));
        if (missing.length > 0) {
          throw new IntakeError('NOT_PARSEABLE', `the Excel sheet ${info.sheetName} must name the columns ${REQUIRED.join(', ')} in its header (row ${header.row}); missing: ${missing.join(', ')}`);
        }
        const columns: SheetPlaces['colonne'] = {};
        for (const [field, col] of header.columns) columns[field] = { lettera: columnLetters(col), nome: header.names.get(field)! };
        places = { columns };
      }
      return;
    }
    const h = header;
    byCol.length = 0;
    for (const c of row.cells) byCol[c.col] = c.v;
    const get = (field: string) => {
      const col = h.columns.get(field);
      return col === undefined ? undefined : byCol[col];
    };
    if (!CONTENT_FIELDS.some((f) => get(f) !== undefined)) return;
    if (++dataRows > maxRows) {
      throw new IntakeError('NOT_PARSEABLE', `the Excel sheet ${info.sheetName} has more than ${maxRows} rows of orders; split it into several files`);
    }
    const codice = get('codice_cliente');
    const riferimento = get('riferimento_ordine');
    const codiceText = codice ? textField(codice, styles) : '';
    const riferimentoText = riferimento ? textField(riferimento, styles) : '';
    const key = `${codiceText.length}:${codiceText}${riferimentoText}`;
    let order = orders.get(key);
    if (order === undefined) {
      // Beyond maxOrders nothing more is remembered: the count says "more" and the caller refuses the file.
      if (count >= maxOrders) {
        count = maxOrders + 1;
        return;
      }
      count++;
      order = {} as { righe: unknown[]; [f: string]: unknown };
      for (const field of ORDER_FIELDS) {
        const v = get(field);
        if (v === undefined) {
          if (!OPTIONAL.has(field) && h.columns.has(field)) order[field] = '';
          continue;
        }
        order[field] = DATE_FIELDS.has(field) ? dateField(order, field, v) : textField(v, styles);
      }
      order.righe = [];
      withPlaces(order, { foglio: info.sheetName, righe: [], colonne: places!.columns });
      orders.set(key, order);
    }
    const line: Record<string, unknown> = {
      codice_articolo: '', quantita: '', unita_misura: '',
    };
    const articolo = get('codice_articolo');
    if (articolo) line.codice_articolo = textField(articolo, styles);
    const quantita = get('quantita');
    if (quantita?.t === 'n') line.quantita = excelNumber(quantita.n);
    else if (quantita) {
      const text = cellText(quantita);
      line.quantita = text;
      if (text.trim() !== '') {
        noteNumber(numbers, text);
        textQuantities.push({ line, text });
      }
    }
    const unita = get('unita_misura');
    if (unita) line.unita_misura = textField(unita, styles);
    order.righe.push(line);
    (order as { [SHEET_PLACES]?: SheetPlaces })[SHEET_PLACES]!.righe.push(row.row);
  }

  await readSheet(zip, info, onRow);
  if (header === undefined) throw noHeader(info.sheetName);
  let k = 0;
  for (const { line, text } of textQuantities) {
    const r = readNumber(text, numbers);
    if (r.ok) line.quantita = r.value;
    else markUnread(line, 'quantita', r.reason);
    // A sheet of quantities typed as text: turns for the event loop while they are read.
    if (++k % 10_000 === 0) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (count === 0) throw new IntakeError('NO_ORDERS', 'the file holds no order');
  return { candidates: [...orders.values()], count };
}

function noHeader(sheet: string): IntakeError {
  return new IntakeError(
    'NOT_PARSEABLE',
    `the Excel sheet ${sheet} has no header row naming the columns (codice_cliente, riferimento_ordine, data_ordine, codice_articolo, quantita, unita_misura) in its first ${XLSX_SHEET_LIMITS.headerRows} rows`,
  );
}

/** For DecodeInput callers (tests, tools): the candidates of a workbook. */
export async function decodeXlsx(input: DecodeInput, opts: XlsxReadOptions = {}): Promise<unknown[]> {
  return (await readXlsx(input.raw, opts)).candidates;
}
