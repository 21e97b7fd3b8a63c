/**
 * What a customer may learn about one of its orders, whatever channel brought it: the view behind
 * `GET /api/v1/ordini/{id}`, `GET /api/v1/ordini?riferimento_ordine=` and SOAP `StatoOrdine` (built by
 * src/domain/order-view.ts, which also gives order events their `data`).
 */
import { refusedView as refused, type OrderStatus } from '../domain/order-view.ts';
import { lifecycleView } from './lifecycle.ts';
import type { RegisteredOrder, StoredSubmission } from '../domain/types.ts';
import type { OrderAttempt } from '../domain/store/store.ts';
import type { StatusStore } from '../domain/store/ports.ts';

export type { OrderState, OrderStatus } from '../domain/order-view.ts';

/**
 * A registered order as its customer sees it: with its version, its versions and its requests, and for one that came
 * as a UBL document what the document said besides (`documento`: prices, delivery place, contact, references).
 */
async function registered(store: StatusStore, o: RegisteredOrder): Promise<OrderStatus> {
  const [view, details] = await Promise.all([lifecycleView(store, o), store.orderTicket(o.customerId, o.id_ordine)]);
  if (details === undefined) return view;
  const parsed = JSON.parse(details) as { formato?: unknown };
  return parsed.formato === 'ubl' ? { ...view, documento: parsed } : view;
}

/**
 * An id or a reference holding a NUL names nothing stored (intake refuses control characters in every code, and
 * PostgreSQL cannot store NUL in text): it is not looked up, as PostgreSQL would refuse even to compare it (a 500).
 */
export function namesNothing(v: string): boolean {
  return v.includes('\0');
}

async function fromSubmission(store: StatusStore, customerId: string, s: StoredSubmission): Promise<OrderStatus> {
  if (s.state !== 'processed' || !s.outcome) {
    return { stato: 'ricevuto', id_ordine: s.reservedOrderId, canale: s.channel, ricevuto_il: s.receivedAt };
  }
  const o = s.outcome.orders[0];
  if (o?.esito === 'ok' && o.id_ordine) {
    // A duplicate points at the order registered earlier; show that one.
    const order = await store.getOrder(customerId, o.id_ordine);
    if (order) return registered(store, order);
  }
  return { ...refused(o, s.channel, s.receivedAt, s.outcome.fileError?.message), id_ordine: s.reservedOrderId };
}

/** By id_ordine: a registered order, or the pending/refused single-order submission that reserved that id. */
export async function statusById(store: StatusStore, customerId: string, id: string): Promise<OrderStatus | undefined> {
  if (namesNothing(id)) return undefined;
  const order = await store.getOrder(customerId, id);
  if (order) return registered(store, order);
  const s = await store.findSubmissionByReservedOrderId(customerId, id);
  return s ? fromSubmission(store, customerId, s) : undefined;
}

/** The view of a recorded attempt that registered nothing (the connector path's scoped lookups use it too). */
export function attemptStatus(a: OrderAttempt): OrderStatus {
  return refused(a.outcome, a.channel, a.receivedAt);
}

/** By the customer's own reference: the registered order, else the latest refusal of that reference. */
export async function statusByRef(store: StatusStore, customerId: string, ref: string): Promise<OrderStatus | undefined> {
  if (namesNothing(ref)) return undefined;
  const order = await store.getOrderByRef(customerId, ref);
  if (order) return registered(store, order);
  const a: OrderAttempt | undefined = await store.latestAttempt(customerId, ref);
  return a ? refused(a.outcome, a.channel, a.receivedAt) : undefined;
}
