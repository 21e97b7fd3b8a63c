/**
 * What a customer may learn about one of its orders, whatever channel brought it: the view behind
 * `GET /api/v1/ordini/{id}`, `GET /api/v1/ordini?riferimento_ordine=` and SOAP `StatoOrdine`.
 *
 * States (the spec names none; these are ours): `ricevuto` (received, not judged yet), `registrato` (accepted, has
 * its numero_ordine), `rifiutato` (judged and refused; the errors say why).
 */
import type { FieldError, OrderLine, OrderOutcome, RegisteredOrder, StoredSubmission } from './types.ts';
import type { OrderAttempt, Store } from '../store/store.ts';

export type OrderState = 'ricevuto' | 'registrato' | 'rifiutato';

export interface OrderStatus {
  stato: OrderState;
  id_ordine?: string;
  numero_ordine?: string;
  codice_cliente?: string;
  riferimento_ordine?: string;
  data_ordine?: string;
  data_consegna?: string;
  righe?: OrderLine[];
  sito_produzione?: string;
  canale: string;
  ricevuto_il?: string;
  registrato_il?: string;
  /** Stage A messages of a refused order. */
  message?: string[];
  /** Stage B errors of a refused order. */
  errori?: FieldError[];
}

function registered(o: RegisteredOrder): OrderStatus {
  const v: OrderStatus = {
    stato: 'registrato', id_ordine: o.id_ordine, numero_ordine: o.numero_ordine,
    codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine,
    data_ordine: o.data_ordine, data_consegna: o.data_consegna, righe: o.righe,
    sito_produzione: o.sito_produzione, canale: o.channel, registrato_il: o.registeredAt,
  };
  return prune(v);
}

function refused(o: OrderOutcome | undefined, channel: string, receivedAt: string, fileMessage?: string[]): OrderStatus {
  return prune({
    stato: 'rifiutato', codice_cliente: o?.codice_cliente, riferimento_ordine: o?.riferimento_ordine,
    canale: channel, ricevuto_il: receivedAt,
    message: o?.message ?? fileMessage, errori: o?.errori,
  });
}

function prune(v: OrderStatus): OrderStatus {
  for (const k of Object.keys(v) as (keyof OrderStatus)[]) if (v[k] === undefined) delete v[k];
  return v;
}

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
