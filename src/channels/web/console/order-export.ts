/**
 * The console's CSV export of the filtered orders, for Excel as Italian offices run it: `;` between cells, UTF-8 with
 * a BOM (without it Excel reads UTF-8 as Windows-1252), CRLF line ends. One row per order line, the order's fields
 * repeated, so a pivot table or a filter on an article works without reshaping. Times are local to the service's time
 * zone and spelled `2026-11-28 14:05:00`, which Excel reads as a date and time (an ISO `T…Z` stays text there);
 * quantities take a decimal comma, which Italian Excel reads as a number.
 */
import type { OrderExportLine, OrderSummary } from '../../../domain/store/web.ts';

/** A CSV cell: quoted, quotes doubled, and a leading = + - @ neutralised so a spreadsheet never runs it as a formula. */
export function csvCell(v: unknown): string {
  let s = v === undefined || v === null ? '' : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return `"${s.replace(/"/g, '""')}"`;
}

export const EXPORT_HEADER = [
  'numero_ordine', 'codice_cliente', 'cliente', 'riferimento_ordine', 'data_ordine', 'data_consegna', 'riga',
  'codice_articolo', 'descrizione_articolo', 'quantita', 'unita_misura', 'stato_produzione', 'canale', 'registrato_il', 'id_ordine',
  // The note last: the columns before it keep the places a spreadsheet built on this export expects.
  'note',
].join(';');

const localFormats = new Map<string, Intl.DateTimeFormat>();

/** `2026-11-28 14:05:00` in `timeZone` (sv-SE writes the ISO order with a space). */
export function spreadsheetTime(iso: string, timeZone: string): string {
  let f = localFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
    localFormats.set(timeZone, f);
  }
  return f.format(new Date(iso));
}

/** The rows of one page of orders: each order's lines, in the page's order. */
export function exportRows(
  orders: readonly OrderSummary[], lines: readonly OrderExportLine[], customerNames: ReadonlyMap<string, string>, timeZone: string,
): string[] {
  const byOrder = new Map<string, OrderExportLine[]>();
  for (const l of lines) {
    const list = byOrder.get(l.orderId);
    if (list) list.push(l);
    else byOrder.set(l.orderId, [l]);
  }
  const rows: string[] = [];
  for (const o of orders) {
    const registered = spreadsheetTime(o.registeredAt, timeZone);
    for (const l of byOrder.get(o.id_ordine) ?? []) {
      rows.push([
        o.numero_ordine, o.codice_cliente, customerNames.get(o.customerId), o.riferimento_ordine, o.data_ordine, o.data_consegna,
        l.index + 1, l.codice_articolo, l.descrizione, String(l.quantita).replace('.', ','), l.unita_misura,
        l.productionState, o.channel, registered, o.id_ordine, o.note,
      ].map(csvCell).join(';'));
    }
  }
  return rows;
}
