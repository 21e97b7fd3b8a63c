/**
 * `GET /api/v1/ordini?dal=…&al=…&stato=…&limite=…&cursore=…`: a customer's ERP lists its own orders, oldest first,
 * in pages (docs/customers/rest.md); an integration's (the printer's ERP/MIS) lists every customer's, to resync after
 * its feed cursor expired (docs/customers/eventi.md). This file reads and checks the query and builds the page; with
 * a customer key the store walks only that customer's orders (Store.listCustomerOrders).
 *
 * The cursor is the (registration time, id_ordine) of the last order of the page, opaque to the client (base64url of
 * JSON): the next page starts strictly after it, so an order registered meanwhile never shifts a page, and none is
 * listed twice or skipped.
 */
import { registeredView, type OrderStatus } from '../../domain/order-view.ts';
import { PRODUCTION_STATES, type ProductionState } from '../../domain/types.ts';
import type { CustomerOrderPage } from '../../domain/store/records.ts';
import type { Store } from '../../domain/store/store.ts';
import { isCalendarDate, localDayStart } from '../../http/local-day.ts';

/** Orders per page unless `limite` says otherwise, and the most it may say: a page of full orders, lines included. */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;

/** `stato=registrato`: orders production has reported nothing about yet. */
export const NOT_REPORTED = 'registrato';
export const LIST_STATES: readonly string[] = [NOT_REPORTED, ...PRODUCTION_STATES];

/** The query parameters this listing takes (riferimento_ordine selects the single-order lookup instead). */
export const LIST_PARAMS: readonly string[] = ['dal', 'al', 'stato', 'limite', 'cursore'];
/** An integration (ERP/MIS) lists every customer's orders, or one customer's with `cliente` (its codice_cliente). */
export const INTEGRATION_LIST_PARAMS: readonly string[] = [...LIST_PARAMS, 'cliente'];

export interface OrderListPage {
  ordini: OrderStatus[];
  /** Pass as `cursore` for the next page; null when this page is the last one. */
  cursore_successivo: string | null;
}

export function encodeCursor(at: string, id: string): string {
  return Buffer.from(JSON.stringify({ t: at, i: id })).toString('base64url');
}

function decodeCursor(s: string): { at: string; id: string } | undefined {
  if (s.length > 200 || !/^[A-Za-z0-9_-]+$/.test(s)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as unknown;
    if (typeof v !== 'object' || v === null) return undefined;
    const { t, i } = v as { t?: unknown; i?: unknown };
    if (typeof t !== 'string' || typeof i !== 'string' || i === '' || i.length > 100 || i.includes('\0')) return undefined;
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(t) || Number.isNaN(Date.parse(t))) return undefined;
    return { at: t, id: i };
  } catch {
    return undefined;
  }
}

/** A query parameter given once, as a string; an array (given twice) is refused by the caller. */
function one(query: Record<string, unknown>, name: string): string | undefined | null {
  const v = query[name];
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : null;
}

/** The store's page for this query, or the Italian messages of what is wrong with it (answered 400). */
export function readListQuery(
  query: Record<string, unknown>, timeZone: string, allowed: readonly string[] = LIST_PARAMS,
): { page: CustomerOrderPage } | { errors: string[] } {
  const errors: string[] = [];
  for (const name of Object.keys(query)) {
    if (!allowed.includes(name)) errors.push(`Parametro sconosciuto: "${name}" (ammessi: ${allowed.join(', ')}, oppure riferimento_ordine da solo)`);
    else if (one(query, name) === null) errors.push(`Il parametro ${name} va indicato una sola volta`);
  }
  if (errors.length > 0) return { errors };
  const page: CustomerOrderPage = { limit: DEFAULT_PAGE };
  const dal = one(query, 'dal');
  const al = one(query, 'al');
  for (const [name, v] of [['dal', dal], ['al', al]] as const) {
    if (v !== undefined && v !== null && !isCalendarDate(v)) errors.push(`${name} deve essere una data nella forma AAAA-MM-GG (per esempio 2026-11-28)`);
  }
  if (dal && al && isCalendarDate(dal) && isCalendarDate(al) && al < dal) errors.push(`al (${al}) precede dal (${dal})`);
  if (dal && isCalendarDate(dal)) page.from = localDayStart(dal, timeZone);
  if (al && isCalendarDate(al)) page.to = localDayStart(al, timeZone, 1);
  const stato = one(query, 'stato');
  if (stato !== undefined && stato !== null) {
    if (!LIST_STATES.includes(stato)) errors.push(`stato deve essere uno di: ${LIST_STATES.join(', ')}`);
    else page.productionState = stato === NOT_REPORTED ? null : stato as ProductionState;
  }
  const limite = one(query, 'limite');
  if (limite !== undefined && limite !== null) {
    const n = /^\d{1,6}$/.test(limite) ? Number(limite) : NaN;
    if (!(n >= 1 && n <= MAX_PAGE)) errors.push(`limite deve essere un numero intero da 1 a ${MAX_PAGE}`);
    else page.limit = n;
  }
  const cursore = one(query, 'cursore');
  // Empty is the first page: a client's loop can start with the variable it will fill in from cursore_successivo.
  if (cursore !== undefined && cursore !== null && cursore !== '') {
    const after = decodeCursor(cursore);
    if (!after) errors.push('Il cursore non è valido: usa il valore di cursore_successivo della pagina precedente');
    else page.after = after;
  }
  return errors.length > 0 ? { errors } : { page };
}

/** One page; one order more is read than shown, to tell whether a next page exists. */
export async function listOrderPage(store: Pick<Store, 'listCustomerOrders'>, page: CustomerOrderPage): Promise<OrderListPage> {
  const rows = await store.listCustomerOrders({ ...page, limit: page.limit + 1 });
  const shown = rows.slice(0, page.limit);
  const last = shown[shown.length - 1];
  return {
    ordini: shown.map(registeredView),
    cursore_successivo: rows.length > page.limit && last ? encodeCursor(last.registeredAt, last.id_ordine) : null,
  };
}
