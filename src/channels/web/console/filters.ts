/**
 * The filters the console's lists share (customer, channel, date range, reference, keyset page), read once from the
 * query string: as given, to fill the form again, and as a store search.
 */
import { CHANNELS, type Channel } from '../../../domain/types.ts';
import type { OrderSearch } from '../../../domain/store/web.ts';
import type { WebContext } from '../context.ts';
import { parseCursor, str } from '../render.ts';
import { dayStart } from './dashboard.ts';

/** Rows per page of a list: what a person scans before refining the filters. */
export const PAGE_SIZE = 50;

export function listFilters(ctx: WebContext, query: unknown) {
  const q = (query ?? {}) as Record<string, unknown>;
  const form = { cliente: str(q.cliente, 40) ?? '', canale: str(q.canale, 20) ?? '', dal: str(q.dal, 10) ?? '', al: str(q.al, 10) ?? '', rif: str(q.rif, 100) ?? '' };
  const search: OrderSearch = { limit: PAGE_SIZE };
  // Customer and reference find a part of the value, in any case (`ferri` finds "Tipografia Ferri" by its name).
  if (form.cliente.trim()) search.customer = form.cliente.trim();
  if ((CHANNELS as readonly string[]).includes(form.canale)) search.channel = form.canale as Channel;
  search.from = dayStart(form.dal, ctx.timeZone);
  search.to = dayStart(form.al, ctx.timeZone, 1);
  if (form.rif.trim()) search.riferimento = form.rif.trim();
  search.after = parseCursor(q.dopo);
  return { q, form, search };
}
