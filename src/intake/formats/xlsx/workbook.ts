/**
 * The parts of a workbook the orders need, read from its ZIP (zip.ts) with the streaming XML reader (xml.ts): which
 * sheet (`ordini`, any case, or else the first), the date system (1900 or 1904), the cell formats (which are dates,
 * which pad numbers with zeros), the shared strings, and then the sheet's cells, row by row, as they are inflated.
 *
 * What is never read: macros (an .xlsm's vbaProject.bin is a part like any other, left untouched), pictures, other
 * sheets. What is refused: a workbook that links other workbooks (its values would come from files we do not have).
 */
import { IntakeError } from '../../../domain/errors.ts';
import { XmlReader, type XmlHandler } from './xml.ts';
import type { WorkbookZip } from './zip.ts';

/** A cell's value as the workbook stores it. */
export type CellValue =
  | { t: 'n'; n: number; style: number }
  | { t: 's'; s: string }
  | { t: 'b'; b: boolean }
  | { t: 'e'; s: string };

export interface Cell {
  /** Column from 0. */
  col: number;
  v: CellValue;
}

export interface SheetRow {
  /** Row number from 1, as the sheet shows it. */
  row: number;
  cells: Cell[];
}

/**
 * Cell formats, by style index: the zero-padded width of a code (`00000`: 5), and whether it shows a date. Orders
 * need no date formats (a number in a date column is a date, the column says so, whatever format it shows in); the
 * console's view of a sheet shows dates as dates.
 */
export interface Styles {
  zeroPad: number[];
  date: boolean[];
}

/** Built-in number formats that show dates (ECMA-376 18.8.30). */
const BUILTIN_DATES = new Set([14, 15, 16, 17, 22]);

/** Whether a format code shows a date: d, m or y outside quotes, escapes and [brackets] (`General` is not one). */
export function isDateFormat(code: string): boolean {
  const plain = code.replace(/"[^"]*"/g, '').replace(/\\./g, '').replace(/\[[^\]]*\]/g, '').split(';')[0]!;
  return !/general/i.test(plain) && /[dmy]/i.test(plain);
}

export interface WorkbookInfo {
  sheetName: string;
  sheetPart: string;
  date1904: boolean;
  macros: boolean;
  styles: Styles;
  sharedStrings: string[];
}

export const XLSX_LIMITS = {
  /** Columns read: the layout has nine, a few extra (descriptions, prices) are normal; cells beyond are ignored. */
  maxColumns: 200,
  /**
   * Characters of shared strings held (every distinct text of the workbook): a 100,000-row order sheet has a few
   * megabytes of them. Bounds what a workbook of huge texts can make the process hold.
   */
  maxSharedChars: 64 * 1024 * 1024,
} as const;

const MAIN_TYPES = new Map<string, boolean>([
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml', false],
  ['application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml', false],
  ['application/vnd.ms-excel.sheet.macroenabled.main+xml', true],
  ['application/vnd.ms-excel.template.macroenabled.main+xml', true],
]);

/** Reads a whole (small) part through a handler. */
async function readPart(zip: WorkbookZip, name: string, h: XmlHandler): Promise<boolean> {
  const reader = new XmlReader(name, h);
  const found = await zip.read(name, (p) => reader.feedBytes(p));
  if (found) reader.end();
  return found;
}

function handler(open: XmlHandler['open'], text: XmlHandler['text'] = () => undefined, close: XmlHandler['close'] = () => undefined): XmlHandler {
  return { open, close, text };
}

/** What kind of ZIP this is when it is not a workbook: a message for the sender. */
export function notWorkbook(zip: WorkbookZip): IntakeError {
  if (zip.has('mimetype') && zip.has('content.xml')) {
    return new IntakeError('UNSUPPORTED_MEDIA_TYPE', 'the file is an OpenDocument spreadsheet (.ods); save it as an Excel workbook (.xlsx)');
  }
  if (zip.has('word/document.xml')) return new IntakeError('UNSUPPORTED_MEDIA_TYPE', 'the file is a Word document (.docx), not an Excel workbook');
  return new IntakeError('UNSUPPORTED_MEDIA_TYPE', 'the file is a ZIP archive, not an Excel workbook (.xlsx); send the order files themselves');
}

/** Whether the ZIP is a workbook at all (its content types and its workbook part). */
export function isWorkbook(zip: WorkbookZip): boolean {
  return zip.has('[Content_Types].xml') && zip.has('xl/workbook.xml');
}

function resolveTarget(target: string): string {
  if (target.startsWith('/')) return target.slice(1);
  // Relative to xl/ (the workbook's folder); `../` is rare but allowed.
  const parts = ['xl', ...target.split('/')];
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}

export async function readWorkbook(zip: WorkbookZip): Promise<WorkbookInfo> {
  if (zip.names().some((n) => n.startsWith('xl/externallinks/'))) {
    throw new IntakeError('NOT_PARSEABLE', 'the Excel workbook links other workbooks (external links); copy the values into it and remove the links');
  }
  let macros = false;
  let mainType: string | undefined;
  await readPart(zip, '[Content_Types].xml', handler((name, a) => {
    if (name === 'Override' && a.PartName?.toLowerCase() === '/xl/workbook.xml') mainType = a.ContentType?.toLowerCase();
  }));
  if (mainType !== undefined) {
    const m = MAIN_TYPES.get(mainType);
    if (m === undefined) throw new IntakeError('UNSUPPORTED_MEDIA_TYPE', 'the file is an Office document that is not an Excel workbook (.xlsx)');
    macros = m;
  }

  const sheets: { name: string; rid: string }[] = [];
  let date1904 = false;
  await readPart(zip, 'xl/workbook.xml', handler((name, a) => {
    if (name === 'workbookPr') date1904 = a.date1904 === '1' || a.date1904 === 'true';
    if (name === 'sheet' && a.id !== undefined) sheets.push({ name: a.name ?? '', rid: a.id });
  }));
  if (sheets.length === 0) throw new IntakeError('NOT_PARSEABLE', 'the Excel workbook has no sheet');

  const rels = new Map<string, { type: string; target: string; external: boolean }>();
  await readPart(zip, 'xl/_rels/workbook.xml.rels', handler((name, a) => {
    if (name === 'Relationship' && a.Id) rels.set(a.Id, { type: a.Type ?? '', target: a.Target ?? '', external: a.TargetMode === 'External' });
  }));
  if ([...rels.values()].some((r) => r.type.endsWith('/externalLink') || r.external)) {
    throw new IntakeError('NOT_PARSEABLE', 'the Excel workbook links other workbooks (external links); copy the values into it and remove the links');
  }
  const chosen = sheets.find((s) => s.name.trim().toLowerCase() === 'ordini') ?? sheets[0]!;
  const rel = rels.get(chosen.rid);
  if (!rel || !rel.type.endsWith('/worksheet')) {
    throw new IntakeError('NOT_PARSEABLE', `the Excel workbook cannot be read: the sheet ${chosen.name} is not a worksheet`);
  }
  const partOf = (suffix: string, fallback: string) => {
    const r = [...rels.values()].find((x) => x.type.endsWith(suffix));
    return r ? resolveTarget(r.target) : fallback;
  };
  const styles = await readStyles(zip, partOf('/styles', 'xl/styles.xml'));
  const sharedStrings = await readSharedStrings(zip, partOf('/sharedStrings', 'xl/sharedStrings.xml'));
  return { sheetName: chosen.name, sheetPart: resolveTarget(rel.target), date1904, macros, styles, sharedStrings };
}

/** `00000` → 5: a format of zeros only pads a whole number to that many digits. */
function zeroPadOf(code: string): number {
  return /^0+$/.test(code.trim()) ? code.trim().length : 0;
}

async function readStyles(zip: WorkbookZip, part: string): Promise<Styles> {
  const codes = new Map<number, string>();
  const styles: Styles = { zeroPad: [], date: [] };
  let inXfs = false;
  await readPart(zip, part, handler(
    (name, a) => {
      if (name === 'numFmt' && a.numFmtId !== undefined) codes.set(Number(a.numFmtId), a.formatCode ?? '');
      else if (name === 'cellXfs') inXfs = true;
      else if (name === 'xf' && inXfs) {
        const id = Number(a.numFmtId ?? 0);
        const code = codes.get(id);
        styles.zeroPad.push(code !== undefined ? zeroPadOf(code) : id === 1 ? 1 : 0);
        styles.date.push(code !== undefined ? isDateFormat(code) : BUILTIN_DATES.has(id));
      }
    },
    undefined,
    (name) => {
      if (name === 'cellXfs') inXfs = false;
    },
  ));
  return styles;
}

/** Shared strings: the text runs of each `si`, phonetic hints (`rPh`) left out. */
async function readSharedStrings(zip: WorkbookZip, part: string): Promise<string[]> {
  const out: string[] = [];
  let chars = 0;
  let current: string | undefined;
  let inT = false;
  let phonetic = 0;
  await readPart(zip, part, handler(
    (name) => {
      if (name === 'si') current = '';
      else if (name === 't') inT = true;
      else if (name === 'rPh') phonetic++;
    },
    (t) => {
      if (inT && phonetic === 0 && current !== undefined) {
        current += t;
        chars += t.length;
        if (chars > XLSX_LIMITS.maxSharedChars) {
          throw new IntakeError('NOT_PARSEABLE', `the Excel workbook is refused: its texts are longer than ${XLSX_LIMITS.maxSharedChars} characters in all`);
        }
      }
    },
    (name) => {
      if (name === 't') inT = false;
      else if (name === 'rPh') phonetic--;
      else if (name === 'si' && current !== undefined) {
        out.push(current);
        current = undefined;
      }
    },
  ));
  return out;
}

/** `E7` → column 4 (from 0); -1 when not a cell reference. */
export function columnOfRef(ref: string): number {
  let col = 0;
  let i = 0;
  for (; i < ref.length; i++) {
    const c = ref.charCodeAt(i);
    if (c >= 65 && c <= 90) col = col * 26 + (c - 64);
    else if (c >= 97 && c <= 122) col = col * 26 + (c - 96);
    else break;
  }
  return i === 0 ? -1 : col - 1;
}

/** Column 4 → `E`. */
export function columnLetters(col: number): string {
  let s = '';
  for (let n = col + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

/**
 * The sheet's rows with something in them, handed to `onRow` as each row ends (cells in column order, empty ones
 * left out). Rows and cells without a reference (some writers omit them) follow the one before.
 */
export async function readSheet(zip: WorkbookZip, info: WorkbookInfo, onRow: (row: SheetRow) => void): Promise<void> {
  const { sharedStrings } = info;
  let row: SheetRow | undefined;
  let lastRow = 0;
  let col = -1;
  let type = 'n';
  let style = 0;
  let text: string | undefined;
  let inSheetData = false;
  let textTarget: 'v' | 't' | undefined;
  let inIs = false;
  let phonetic = 0;
  const h: XmlHandler = {
    open(name, a) {
      if (name === 'sheetData') inSheetData = true;
      if (!inSheetData) return;
      switch (name) {
        case 'row': {
          const r = a.r !== undefined ? Number(a.r) : lastRow + 1;
          row = { row: Number.isInteger(r) && r > 0 ? r : lastRow + 1, cells: [] };
          lastRow = row.row;
          col = -1;
          break;
        }
        case 'c':
          col = a.r !== undefined ? columnOfRef(a.r) : col + 1;
          if (col < 0) col = 0;
          type = a.t ?? 'n';
          style = a.s !== undefined ? Number(a.s) : 0;
          text = undefined;
          break;
        case 'v':
          textTarget = 'v';
          text = '';
          break;
        case 'is':
          inIs = true;
          text = '';
          break;
        case 't':
          if (inIs) textTarget = 't';
          break;
        case 'rPh':
          phonetic++;
          break;
      }
    },
    text(t) {
      if (textTarget !== undefined && phonetic === 0) text += t;
    },
    close(name) {
      if (name === 'sheetData') inSheetData = false;
      if (!inSheetData && name !== 'sheetData') return;
      switch (name) {
        case 'v':
        case 't':
          textTarget = undefined;
          break;
        case 'is':
          inIs = false;
          break;
        case 'rPh':
          phonetic--;
          break;
        case 'c': {
          if (row === undefined || text === undefined || col >= XLSX_LIMITS.maxColumns) break;
          const v = cellValue(type, text, style, sharedStrings);
          if (v !== undefined) row.cells.push({ col, v });
          break;
        }
        case 'row':
          if (row !== undefined && row.cells.length > 0) onRow(row);
          row = undefined;
          break;
      }
    },
  };
  const reader = new XmlReader(info.sheetPart, h);
  const found = await zip.read(info.sheetPart, (p) => reader.feedBytes(p));
  if (!found) throw new IntakeError('NOT_PARSEABLE', `the Excel workbook cannot be read: the sheet ${info.sheetName} is missing`);
  reader.end();
}

function cellValue(type: string, text: string, style: number, shared: string[]): CellValue | undefined {
  switch (type) {
    case 's': {
      const s = shared[Number(text)];
      return s === undefined || s === '' ? undefined : { t: 's', s };
    }
    case 'inlineStr':
    case 'str':
      return text === '' ? undefined : { t: 's', s: text };
    case 'b':
      return { t: 'b', b: text.trim() === '1' };
    case 'e':
      return { t: 'e', s: text };
    case 'd':
      // An ISO 8601 date-time (strict OOXML): its date part is the date a person typed.
      return text.trim() === '' ? undefined : { t: 's', s: text.trim().slice(0, 10) };
    default: {
      if (text.trim() === '') return undefined;
      const n = Number(text);
      return Number.isFinite(n) ? { t: 'n', n, style } : { t: 's', s: text };
    }
  }
}
