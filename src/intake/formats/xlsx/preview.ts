/**
 * A workbook's order sheet as a table of texts, for the console's view of a received file (a workbook is not text
 * to show as it is): the first rows, cells as Excel displays them (dates as dates, zero-padded codes padded).
 */
import { IntakeError } from '../../../domain/errors.ts';
import { isWorkbook, notWorkbook, readSheet, readWorkbook, type CellValue, type Styles } from './workbook.ts';
import { StopReading, WorkbookZip } from './zip.ts';
import { serialDate } from './decode.ts';

export interface SheetPreview {
  sheet: string;
  /** Row number (from 1) and the cells' texts, from column A. */
  rows: { row: number; cells: string[] }[];
  /** More rows follow those shown. */
  cut: boolean;
}

function shown(v: CellValue, styles: Styles, date1904: boolean): string {
  switch (v.t) {
    case 's':
    case 'e':
      return v.s;
    case 'b':
      return v.b ? 'VERO' : 'FALSO';
    case 'n': {
      if (styles.date[v.style]) return serialDate(v.n, date1904)?.split('-').reverse().join('/') ?? String(v.n);
      const n = Number(v.n.toPrecision(15));
      const pad = styles.zeroPad[v.style] ?? 0;
      return pad > 0 && Number.isInteger(n) && n >= 0 ? String(n).padStart(pad, '0') : String(n).replace('.', ',');
    }
  }
}

/** The first `maxRows` rows with something in them, at most `maxColumns` columns; undefined when not a workbook. */
export async function previewSheet(raw: Buffer, maxRows = 200, maxColumns = 26): Promise<SheetPreview | undefined> {
  let zip: WorkbookZip;
  try {
    zip = await WorkbookZip.open(raw);
  } catch {
    return undefined;
  }
  try {
    if (!isWorkbook(zip)) throw notWorkbook(zip);
    const info = await readWorkbook(zip);
    const out: SheetPreview = { sheet: info.sheetName, rows: [], cut: false };
    try {
      await readSheet(zip, info, (r) => {
        if (out.rows.length >= maxRows) {
          out.cut = true;
          throw new StopReading();
        }
        const cells: string[] = [];
        for (const c of r.cells) if (c.col < maxColumns) cells[c.col] = shown(c.v, info.styles, info.date1904);
        out.rows.push({ row: r.row, cells: Array.from(cells, (x) => x ?? '') });
      });
    } catch (e) {
      if (!(e instanceof StopReading)) throw e;
    }
    return out;
  } catch (e) {
    if (e instanceof IntakeError) return undefined;
    throw e;
  } finally {
    zip.close();
  }
}
