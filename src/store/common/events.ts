/**
 * What both engines do the same way for the outbox (EventStore, src/domain/store/events.ts): the events registerOrders
 * and completeSubmission write, their data built by the one order view (src/domain/order-view.ts), and the read limits.
 */
import { IntakeError } from '../../domain/errors.ts';
import type { OrderEvent, OrderEventType } from '../../domain/order-events.ts';
import { inViewOrder, refusedView, registeredView } from '../../domain/order-view.ts';
import type { Channel, Outcome } from '../../domain/types.ts';
import type { NewEvent } from '../../domain/store/events.ts';
import { uuidv7 } from '../../domain/uuid7.ts';
import type { RegisterItem } from '../../domain/store/store.ts';

export function invalidCursor(cursor: string): IntakeError {
  return new IntakeError('INVALID_CURSOR', `Il cursore "${cursor.slice(0, 64)}" non è valido: usa il valore "cursor" di un evento ricevuto, oppure ometti "dopo" per leggere dall'inizio`);
}

/**
 * The stored order as `registerOrders` just created it, as an `ordine.registrato` event. Runs once per registration
 * inside the write transaction (on SQLite, on the write thread that bounds REST throughput): one object for the view,
 * no copies of it (issue 17: the outbox's cost).
 */
export function registeredEvent(item: RegisterItem, numero: string, at: string): NewEvent {
  const o = item.order;
  const view = registeredView({
    codice_cliente: o.codice_cliente, riferimento_ordine: o.riferimento_ordine, data_ordine: o.data_ordine, data_consegna: o.data_consegna,
    note: o.note,
    righe: o.righe, id_ordine: item.id, numero_ordine: numero, customerId: item.customerId, submissionId: item.submissionId,
    channel: item.channel, sito_produzione: item.site, registeredAt: at, versione: 1,
  });
  return { id: uuidv7(), type: 'ordine.registrato', time: at, orderId: item.id, customerId: item.customerId, data: view as unknown as Record<string, unknown> };
}

/** What the refusal events need to know of the submission judged. */
export interface JudgedSubmission {
  customerId: string;
  customerCode: string;
  channel: Channel;
  receivedAt: string;
  reservedOrderId?: string;
}

/**
 * One `ordine.rifiutato` per refused order of `outcome` (not for a refused change or cancellation), or one for a file
 * that could not be read at all. The data
 * is what `GET /api/v1/ordini` shows of a refused order; the customer's code is the sender's when the order itself
 * did not say (it could not be read). A single-order submission's refusal carries the id reserved for it.
 */
export function refusalEvents(outcome: Outcome, s: JudgedSubmission, at: string): NewEvent[] {
  return refusals(outcome).map((v) => ({
    id: uuidv7(), type: 'ordine.rifiutato' as const, time: at, orderId: s.reservedOrderId, customerId: s.customerId,
    data: inViewOrder({
      codice_cliente: s.customerCode, ...v, canale: s.channel, ricevuto_il: s.receivedAt,
      ...(s.reservedOrderId ? { id_ordine: s.reservedOrderId } : {}),
    }),
  }));
}

/**
 * The refused orders of `outcome` as views without what only the submission knows (channel, time received, the
 * sender's code, the reserved id): the store that cannot read the submission first (PostgreSQL, one statement) adds
 * those in SQL, exactly as refusalEvents does.
 */
export function refusals(outcome: Outcome): Record<string, unknown>[] {
  const views = outcome.fileError
    ? [refusedView(undefined, '', '', outcome.fileError.message)]
    // A refused change or cancellation leaves the registered order as it was: no subscriber must read it as refused.
    : outcome.orders.filter((o) => o?.esito === 'errore' && o.azione === undefined).map((o) => refusedView(o, '', ''));
  return views.map(({ canale: _c, ricevuto_il: _r, ...rest }) => rest);
}

/** A stored event as the feed returns it. */
export function toOrderEvent(e: { id: string; type: string; time: string; data: Record<string, unknown> }, cursor: string): OrderEvent {
  return { id: e.id, type: e.type as OrderEventType, time: e.time, cursor, data: inViewOrder(e.data) };
}

export function expiredCursor(cursor: string): IntakeError {
  return new IntakeError('CURSOR_EXPIRED', `Il cursore "${cursor.slice(0, 64)}" è più vecchio degli eventi conservati: gli eventi successivi sono stati eliminati. Risincronizza gli ordini (GET /api/v1/ordini?dal=AAAA-MM-GG con questa stessa chiave, pagina dopo pagina) e riprendi a leggere il flusso dall'inizio, omettendo "dopo"`);
}
