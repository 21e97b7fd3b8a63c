/**
 * The outbox's part of the store port (src/domain/store/store.ts extends it): order events, integration keys, and the
 * production state integrations report back.
 *
 * What must stay true in every implementation:
 * - an event is written in the same transaction as the change it describes: registerOrders writes
 *   `ordine.registrato` for each order it creates (never for a duplicate or a conflict), completeSubmission writes
 *   `ordine.rifiutato` for each refused order of the outcome (one for a file that could not be read), and
 *   setProductionState writes the event it is given. Nothing is published that was not committed, nothing
 *   committed is never published.
 * - readEvents returns events in one total order, and reading from the last cursor seen never skips nor repeats an
 *   event, whatever the interleaving of commits (several PostgreSQL instances commit out of allocation order).
 * - a cursor that does not parse, or names no event of this store, is an IntakeError INVALID_CURSOR.
 * - findIntegration finds only an active (not revoked) integration; a rotation replaces the key at once.
 */
import { v7 as uuidv7 } from 'uuid';
import { IntakeError } from '../errors.ts';
import type { OrderEvent, OrderEventType } from '../order-events.ts';
import { inViewOrder, refusedView, registeredView } from '../order-view.ts';
import type { Channel, Outcome, ProductionState, RegisteredOrder } from '../types.ts';
import type { RegisterItem } from './store.ts';

/** An event about to be written, in the transaction of its change. */
export interface NewEvent {
  id: string;
  type: OrderEventType;
  /** ISO 8601. */
  time: string;
  /** The order it is about; undefined for a file refused as a whole (no order could be read). */
  orderId?: string;
  customerId: string;
  data: Record<string, unknown>;
}

export interface Integration {
  id: string;
  /** The operator's name for it (`--name MIS`); unique among active integrations. */
  name: string;
  /** Public id of the current key (the `<keyId>` of `oii_<keyId>_…`). */
  keyId: string;
  secretHash: string;
  createdAt: string;
  rotatedAt?: string;
  revokedAt?: string;
}

/** A production report, applied only if the order's state is still `from` (compare and set). */
export interface ProductionChange {
  orderId: string;
  /** The state the caller saw and checked the move from (null: production had said nothing yet). */
  from: ProductionState | null;
  to: ProductionState;
  nota?: string;
  /** ISO 8601. */
  at: string;
  /** Name of the integration reporting it. */
  integration: string;
  /** `ordine.stato_aggiornato`, its data the order as it is after the change. */
  event: NewEvent;
}

export interface EventStore {
  /** Up to `limit` committed events strictly after `cursor` (null: from the start), in stream order. */
  readEvents(cursor: string | null, limit: number): Promise<OrderEvent[]>;

  addIntegration(i: Omit<Integration, 'rotatedAt' | 'revokedAt'>): Promise<void>;
  /** The active integration whose current key has this key id. */
  findIntegration(keyId: string): Promise<Integration | undefined>;
  /** Every integration, revoked ones too, oldest first. */
  listIntegrations(): Promise<Integration[]>;
  /** Give the active integration `name` a new key (the old one stops working); false when there is none. */
  rotateIntegration(name: string, key: { keyId: string; secretHash: string }, at: string): Promise<boolean>;
  /** Revoke the active integration `name`; false when there is none. */
  revokeIntegration(name: string, at: string): Promise<boolean>;

  /** Any customer's registered order, with its production history: for integrations, which see every customer. */
  getOrderAnyCustomer(id: string): Promise<RegisteredOrder | undefined>;
  /**
   * Record a production report with its history entry and its event, in one transaction. False (nothing written)
   * when the order's state is no longer `change.from`: someone else reported meanwhile; read again and re-check.
   */
  setProductionState(change: ProductionChange): Promise<boolean>;
}

/** Events read at most per call: bounds the memory and the response of one feed request. */
export const MAX_EVENTS_PER_READ = 1000;

export function invalidCursor(cursor: string): IntakeError {
  return new IntakeError('INVALID_CURSOR', `Il cursore "${cursor.slice(0, 64)}" non è valido: usa il valore "cursor" di un evento ricevuto, oppure ometti "dopo" per leggere dall'inizio`);
}

/** The stored order as `registerOrders` just created it, as an `ordine.registrato` event. */
export function registeredEvent(item: RegisterItem, numero: string, at: string): NewEvent {
  const order: RegisteredOrder = {
    ...item.order, id_ordine: item.id, numero_ordine: numero, customerId: item.customerId, submissionId: item.submissionId,
    channel: item.channel, sito_produzione: item.site, registeredAt: at,
  };
  return { id: uuidv7(), type: 'ordine.registrato', time: at, orderId: item.id, customerId: item.customerId, data: { ...registeredView(order) } };
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
 * One `ordine.rifiutato` per refused order of `outcome`, or one for a file that could not be read at all. The data
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
    : outcome.orders.filter((o) => o?.esito === 'errore').map((o) => refusedView(o, '', ''));
  return views.map(({ canale: _c, ricevuto_il: _r, ...rest }) => rest);
}

/** A stored event as the feed returns it. */
export function toOrderEvent(e: { id: string; type: string; time: string; data: Record<string, unknown> }, cursor: string): OrderEvent {
  return { id: e.id, type: e.type as OrderEventType, time: e.time, cursor, data: inViewOrder(e.data) };
}

/** The limit of one read: at least 1, at most MAX_EVENTS_PER_READ. */
export function eventLimit(limit: number): number {
  return Math.max(1, Math.min(MAX_EVENTS_PER_READ, Math.floor(Number.isFinite(limit) ? limit : MAX_EVENTS_PER_READ)));
}
