/**
 * Order events: what the transactional outbox records and every way out (feed, webhooks, hot-folder export) reads.
 *
 * Glossary:
 * - event (evento): one committed change of an order, written in the same transaction as the change itself, so
 *   nothing is published that was not committed and nothing committed is never published.
 * - cursor: an opaque, totally ordered position in the event stream. Reading "after" the last cursor seen never
 *   skips and never repeats an event, also when several instances commit out of allocation order.
 * - subscriber: something that consumes the stream with a cursor of its own (a webhook endpoint, an export folder,
 *   an ERP polling the feed).
 */

export const ORDER_EVENT_TYPES = [
  'ordine.registrato', 'ordine.rifiutato', 'ordine.stato_aggiornato',
  // The lifecycle (src/intake/lifecycle.ts): a new version, a cancellation, a request for production and its outcome.
  'ordine.modificato', 'ordine.annullato', 'ordine.richiesta', 'ordine.richiesta_esito',
] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];

/** One event as the feed returns it and a webhook delivers it (the JSON body, field for field). */
export interface OrderEvent {
  /** Stable event id (UUIDv7): the webhook-id of its deliveries, the same on every redelivery. */
  id: string;
  type: OrderEventType;
  /** When the change was committed (ISO 8601, UTC). */
  time: string;
  /** Position in the stream; pass it back as `dopo` to read what follows. */
  cursor: string;
  /** The order as `GET /api/v1/ordini/{id_ordine}` shows it; for `ordine.rifiutato`, the refused order and its errors. */
  data: Record<string, unknown>;
}

/** Reads the committed stream in order. Implemented over the store; consumed by the feed route and by subscribers. */
export interface EventReader {
  /** Up to `limit` events strictly after `cursor` (null: from the start), in stream order. */
  readAfter(cursor: string | null, limit: number): Promise<OrderEvent[]>;
  /**
   * Whether events are committed that no read returns yet (PostgreSQL: written by a transaction that got its xid
   * after one still open, see src/store/postgres/events.ts). Absent where every committed event is readable (SQLite).
   */
  hasUnreadable?(): Promise<boolean>;
}
