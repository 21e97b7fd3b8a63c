/**
 * What a customer may learn about one of its orders, whatever channel brought it: the view behind
 * `GET /api/v1/ordini/{id}`, `GET /api/v1/ordini?riferimento_ordine=` and SOAP `StatoOrdine` (built by
 * order-view.ts, which also gives order events their `data`).
 */
import { refusedView as refused, registeredView as registered, type OrderStatus } from '../domain/order-view.ts';
import type { StoredSubmission } from '../domain/types.ts';
import type { OrderAttempt, Store } from '../domain/store/store.ts';

export type { OrderState, OrderStatus } from '../domain/order-view.ts';

async function fromSubmission(store: Store, customerId: string, s: StoredSubmission): Promise<OrderStatus> {
  if (s.state !== 'processed' || !s.outcome) {
    return { stato: 'ricevuto', id_ordine: s.reservedOrderId, canale: s.channel, ricevuto_il: s.receivedAt };
  }
  const o = s.outcome.orders[0];
  if (o?.esito === 'ok' && o.id_ordine) {
    // A duplicate points at the order registered earlier; show that one.
    const order = await store.getOrder(customerId, o.id_ordine);
    if (order) return registered(order);
  }
  return { ...refused(o, s.channel, s.receivedAt, s.outcome.fileError?.message), id_ordine: s.reservedOrderId };
}

/** By id_ordine: a registered order, or the pending/refused single-order submission that reserved that id. */
export async function statusById(store: Store, customerId: string, id: string): Promise<OrderStatus | undefined> {
  const order = await store.getOrder(customerId, id);
  if (order) return registered(order);
  const s = await store.findSubmissionByReservedOrderId(customerId, id);
  return s ? fromSubmission(store, customerId, s) : undefined;
}

/** The view of a recorded attempt that registered nothing (the connector path's scoped lookups use it too). */
export function attemptStatus(a: OrderAttempt): OrderStatus {
  return refused(a.outcome, a.channel, a.receivedAt);
}

/** By the customer's own reference: the registered order, else the latest refusal of that reference. */
export async function statusByRef(store: Store, customerId: string, ref: string): Promise<OrderStatus | undefined> {
  const order = await store.getOrderByRef(customerId, ref);
  if (order) return registered(order);
  const a: OrderAttempt | undefined = await store.latestAttempt(customerId, ref);
  return a ? refused(a.outcome, a.channel, a.receivedAt) : undefined;
}
