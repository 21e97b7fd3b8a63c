/** CSV orders, as spreadsheets export them: a header row, one row per order line (csv/stream.ts reads them). */
import type { OrderFormat } from '../format.ts';
import { decodeCsv } from './decode.ts';

/**
 * What a CSV upload costs while stored and judged. It is read in pieces (64 KiB to the parser, 1 MiB to the store,
 * batches of at most 10,000 lines), so what it costs beyond its orders is a little fixed (buffers, the parser, one
 * batch), plus garbage made in proportion to the bytes read (pieces, records, batches) that the collector finds only
 * later, plus its orders: the count is not known before the file is read, so the most it can hold counts.
 */
export const CSV_MEMORY = {
  fixedBytes: 2 * 1024 * 1024,
  /** Twice the size covers what whole-path-phases.ts measured beyond the orders (+100-120 MiB for 48-52 MiB). */
  sizeFactor: 2,
  /**
   * Per order while a CSV file is judged: its outcome (~260 B kept, test/intake/memory-per-order.test.ts), its entry
   * in the reader's plan and the file's identity check, its outcome's copies when the outcome is recorded (JSON text,
   * the write thread's copy): the 1,000,000-line CSV's 100,000 orders peaked ~200 MiB above the rest.
   */
  perOrderBytes: 2048,
  /** The smallest CSV order: one row of seven short fields (`C;R;2024-01-01;;A;1;PZ`). */
  minOrderBytes: 24,
} as const;

const HEADER = ['codice_cliente', 'riferimento_ordine', 'data_ordine', 'codice_articolo', 'quantita', 'unita_misura'];

export const csvFormat: OrderFormat<'csv'> = {
  name: 'csv',
  label: 'CSV',
  mediaTypes: ['text/csv', 'application/csv', 'text/comma-separated-values', 'text/tab-separated-values'],
  // What Windows and many mail clients call a .csv file.
  looseMediaTypes: ['application/vnd.ms-excel'],
  extensions: ['csv', 'tsv'],
  sniff: (head) => {
    const firstLine = head.split(/\r\n|\r|\n/, 1)[0] ?? '';
    return /codice_cliente/i.test(firstLine) && /[;,\t]/.test(firstLine);
  },
  decode: decodeCsv,
  memoryCost: (size, maxOrders) => {
    const orders = Math.min(maxOrders, Math.ceil(size / CSV_MEMORY.minOrderBytes));
    return CSV_MEMORY.fixedBytes + size * CSV_MEMORY.sizeFactor + orders * CSV_MEMORY.perOrderBytes;
  },
  example: (o) => [HEADER.join(';'), ...o.righe.map((r) => [o.codice_cliente, o.riferimento_ordine, o.data_ordine, r.codice_articolo, String(r.quantita).replace('.', ','), r.unita_misura].join(';'))].join('\r\n'),
};

export { decodeCsv, MAX_COLUMNS, MAX_RECORD_CHARS } from './decode.ts';
export { CsvOrderReader, CSV_CHUNK_BYTES, type CsvInput, type CsvReadOptions } from './stream.ts';
