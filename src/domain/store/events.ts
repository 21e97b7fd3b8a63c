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
import type { OrderEvent, OrderEventType } from '../order-events.ts';
import type { ProductionState, RegisteredOrder } from '../types.ts';

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
  /**
   * Up to `limit` committed events strictly after `cursor` (null: from the start), in stream order. A cursor at or
   * before the newest event retention deleted is CURSOR_EXPIRED (events after it may be gone; the reader resyncs).
   */
  readEvents(cursor: string | null, limit: number): Promise<OrderEvent[]>;
  /** Whether committed events wait behind an older transaction still open (EventReader.hasUnreadable); PostgreSQL. */
  hasUnreadableEvents?(): Promise<boolean>;
  /**
   * Retention: delete up to `limit` of the oldest events whose time is before `before` (ISO 8601), looking at no
   * more than RETENTION_SCAN of the oldest events. Never an event a delivery is still pending for (a webhook that
   * has neither delivered it nor given up), nor one at or after a subscriber's cursor (not yet fanned out to it, or
   * the cursor itself, which the fan-out reads from). Records how far it deleted, for CURSOR_EXPIRED. Resolves with
   * how many were deleted.
   */
  pruneEvents(before: string, limit: number): Promise<number>;

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

/**
 * The oldest events one pruneEvents call looks at: bounds its work (and, on SQLite, the time the group commit holds
 * the event loop) when old events are kept back by pending deliveries.
 */
export const RETENTION_SCAN = 5000;


/** Events read at most per call: bounds the memory and the response of one feed request. */
export const MAX_EVENTS_PER_READ = 1000;

/** The limit of one read: at least 1, at most MAX_EVENTS_PER_READ. */
export function eventLimit(limit: number): number {
  return Math.max(1, Math.min(MAX_EVENTS_PER_READ, Math.floor(Number.isFinite(limit) ? limit : MAX_EVENTS_PER_READ)));
}
