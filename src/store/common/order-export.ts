/**
 * The console's CSV export of orders, one row per line (WebStore.orderExportLines): the statement both engines run,
 * given their spelling of "the order ids in this parameter", and the row conversion. A page of orders is read by
 * primary key (order_lines (order_id, idx), orders and the catalog's tables by their keys), so a page of the export
 * costs the same at any depth.
 */
import type { OrderExportLine } from '../../domain/store/web.ts';
import type { ProductionState } from '../../domain/types.ts';

export function orderExportLinesSql(idsIn: string): string {
  return `SELECT l.order_id, l.idx, l.codice_articolo, l.quantita, l.unita_misura, o.production_state,
      COALESCE(a.descrizione, i.descrizione) AS descrizione
    FROM order_lines l
    JOIN orders o ON o.id = l.order_id
    LEFT JOIN articles a ON a.codice_articolo = l.codice_articolo
    LEFT JOIN inactive_articles i ON i.codice_articolo = l.codice_articolo
    WHERE l.order_id IN (${idsIn})`;
}

export interface OrderExportRow {
  order_id: string; idx: number; codice_articolo: string; quantita: number | string; unita_misura: string;
  production_state: string | null; descrizione: string | null;
}

/** Rows in the order of `orderIds`, then line order (the statement does not sort: its caller knows the order). */
export function toExportLines(orderIds: readonly string[], rows: readonly OrderExportRow[]): OrderExportLine[] {
  const rank = new Map(orderIds.map((id, i) => [id, i]));
  return [...rows]
    .sort((a, b) => (rank.get(a.order_id)! - rank.get(b.order_id)!) || a.idx - b.idx)
    .map((r) => {
      const line: OrderExportLine = { orderId: r.order_id, index: Number(r.idx), codice_articolo: r.codice_articolo, quantita: Number(r.quantita), unita_misura: r.unita_misura };
      if (r.descrizione !== null) line.descrizione = r.descrizione;
      if (r.production_state) line.productionState = r.production_state as ProductionState;
      return line;
    });
}
