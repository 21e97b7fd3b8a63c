/** Excel workbooks (.xlsx): the CSV layout on a sheet, read as Excel stores its cells (decode.ts). */
import { IntakeError } from '../../../domain/errors.ts';
import type { OrderFormat } from '../format.ts';
import { readXlsx } from './decode.ts';
import { orderWorkbook } from './template.ts';

export const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** `PK\x03\x04`: every ZIP archive; the reader tells a workbook from another archive by its parts. */
const isZip = (head: Uint8Array) => head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;

/**
 * What an Excel upload costs while stored and judged. The sheet's XML is inflated and read in pieces, never held; what
 * is held is the file, its shared strings and the orders, until the sheet ends. Measured with bench `decoders`
 * (100,000 rows, a 2.4 MiB file, the whole intake path): ~105 MiB above the process at rest, ~44 × the size; 50 ×
 * leaves a margin. A workbook compresses its orders ~20:1, so per byte it costs far more than a CSV file.
 */
export const XLSX_MEMORY = { fixedBytes: 8 * 1024 * 1024, sizeFactor: 50 } as const;

export const xlsxFormat: OrderFormat<'xlsx'> = {
  name: 'xlsx',
  label: 'Excel',
  mediaTypes: [XLSX_MEDIA_TYPE, 'application/vnd.ms-excel.sheet.macroenabled.12'],
  looseMediaTypes: [],
  extensions: ['xlsx', 'xlsm'],
  // Binary: never recognised from text; by its magic bytes instead.
  sniff: () => false,
  magic: isZip,
  decode: () => {
    // A workbook (a ZIP) is read by `read` on every path that takes workbooks (openOrdersYielding) and refused as a ZIP
    // archive on the others (binaryKind): what reaches here was declared a workbook but is no ZIP at all.
    throw new IntakeError('NOT_PARSEABLE', 'the file is declared as an Excel workbook (.xlsx) but is not one');
  },
  read: (input, opts) => readXlsx(input.raw, opts),
  memoryCost: (size) => XLSX_MEMORY.fixedBytes + size * XLSX_MEMORY.sizeFactor,
  example: (o) => orderWorkbook({
    customerCode: o.codice_cliente,
    units: [],
    rows: o.righe.map((r) => ({ codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine, data_ordine: o.data_ordine, ...r })),
  }),
};

export { readXlsx, decodeXlsx, XLSX_SHEET_LIMITS, serialDate, headerKey } from './decode.ts';
export { orderWorkbook, TEMPLATE_COLUMNS, type TemplateUnit } from './template.ts';
export { XLSX_ZIP_LIMITS } from './zip.ts';
export { previewSheet, type SheetPreview } from './preview.ts';
export { XLSX_LIMITS } from './workbook.ts';
export { cellRef, cellWords, sheetPlacesOf } from './places.ts';
