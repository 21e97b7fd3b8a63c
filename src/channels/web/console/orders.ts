/**
 * Orders in the console: filtered list (keyset pages) and the filtered list as CSV (its rows: order-export.ts). One
 * order in detail, with its versions and requests: order-lifecycle.ts.
 */
import type { FastifyInstance } from 'fastify';
import { CHANNELS } from '../../../domain/types.ts';
import type { OrderSummary } from '../../../domain/store/web.ts';
import type { WebContext } from '../context.ts';
import { cursorOf, download } from '../render.ts';
import { actor, consolePage, record } from './page.ts';
import { listFilters, PAGE_SIZE } from './filters.ts';
import { EXPORT_HEADER, exportRows } from './order-export.ts';

/** Orders one CSV export may hold (each a row per line): a spreadsheet's worth; narrower filters give the rest. */
export const MAX_EXPORT_ROWS = 100_000;

export { csvCell } from './order-export.ts';

export function registerOrderRoutes(app: FastifyInstance, ctx: WebContext): void {
  app.get('/ordini', async (req, reply) => {
    const { form, search } = listFilters(ctx, req.query);
    const rows = await ctx.store.searchOrders(search);
    const last = rows.length === PAGE_SIZE ? rows[rows.length - 1] : undefined;
    const params = new URLSearchParams(Object.entries(form).filter(([, v]) => v !== ''));
    const exportUrl = `/console/ordini.csv?${params.toString()}`;
    if (last) params.set('dopo', cursorOf(last.registeredAt, last.id_ordine));
    return consolePage(ctx, req, reply, 'console/orders.eta', {
      title: 'Ordini', nav: 'orders', rows, form, channels: CHANNELS, exportUrl,
      next: last ? `/console/ordini?${params.toString()}` : undefined, paged: search.after !== undefined,
    });
  });

  app.get('/ordini.csv', async (req, reply) => {
    // Exporting is an action (docs/operators/console.md): a viewer looks at the list, he does not take it away.
    actor(req);
    const { search } = listFilters(ctx, req.query);
    const lines = [EXPORT_HEADER];
    const customerNames = new Map((await ctx.store.listCustomers()).map((c) => [c.id, c.name]));
    let after = search.after;
    let n = 0;
    // Keyset pages of the same query the list shows, so the export costs the same per row at any depth.
    while (n < MAX_EXPORT_ROWS) {
      const rows: OrderSummary[] = await ctx.store.searchOrders({ ...search, after, limit: 1000 });
      const orderLines = await ctx.store.orderExportLines(rows.map((o) => o.id_ordine));
      for (const row of exportRows(rows, orderLines, customerNames, ctx.timeZone)) lines.push(row);
      n += rows.length;
      const last = rows[rows.length - 1];
      if (!last || rows.length < 1000) break;
      after = { at: last.registeredAt, id: last.id_ordine };
    }
    await record(ctx, req, 'ordini.esporta', 'ordini', 'csv', { ordini: n, righe: lines.length - 1 });
    // BOM: Excel in Italian opens UTF-8 CSV correctly only with it.
    return download(reply, 'ordini.csv', 'text/csv; charset=utf-8', `\ufeff${lines.join('\r\n')}\r\n`);
  });

}
