/**
 * The hand-off's part of the store port (src/domain/store/store.ts extends it): subscribers (webhook endpoints and
 * hot-folder exports), each with its own cursor over the order event stream, and the deliveries the fan-out queues
 * for them (src/handoff/fanout.ts, dispatcher.ts).
 *
 * What must stay true in every implementation:
 * - appendDeliveries queues the deliveries and moves the subscriber's cursor in one transaction, and only if the
 *   cursor is still where the caller read from: an event is queued at most once per subscriber, and never skipped.
 * - a delivery is claimed by one holder at a time (a lease; SKIP LOCKED on PostgreSQL), and only when no earlier
 *   delivery of the same order to the same subscriber is still pending: events of one order go out in order.
 * - finishDelivery changes a delivery only while `holder` still holds it: a holder whose lease ran out and was
 *   taken over cannot overwrite the newer attempt's result.
 * - the bookkeeping may be committed without waiting for the disk: a crash forgets at most the last results, and a
 *   forgotten result means the delivery is made again (at-least-once), never that one is lost.
 */
import type { OrderEventType } from '../order-events.ts';

export type SubscriberKind = 'webhook' | 'export';
export type ExportFormat = 'json' | 'xml' | 'xjdf';
export type SubscriberState = 'active' | 'disabled';
export type DeliveryState = 'pending' | 'done' | 'failed';

export interface NewSubscriber {
  id: string;
  kind: SubscriberKind;
  /** Webhook: the receiver's URL. */
  url?: string;
  /** Webhook: the signing secret sealed with INTAKE_SECRET_KEY (src/handoff/secret.ts); never the clear text. */
  secretEnc?: string;
  /** Webhook: the operator allowed private, loopback and link-local addresses for this URL. */
  allowPrivate?: boolean;
  /** Export: absolute folder the files are written to. */
  dir?: string;
  format?: ExportFormat;
  events: readonly OrderEventType[];
  createdAt?: string;
}

export interface Subscriber extends Omit<NewSubscriber, 'createdAt' | 'events'> {
  events: OrderEventType[];
  allowPrivate: boolean;
  /** The last event fanned out; undefined before the first. */
  cursor?: string;
  state: SubscriberState;
  disabledReason?: string;
  createdAt: string;
  updatedAt: string;
}

export interface NewDelivery {
  id: string;
  eventId: string;
  eventType: OrderEventType;
  /** What orders deliveries: id_ordine, or for a refused order its customer and reference. */
  orderKey: string;
  /** The event JSON, sent byte for byte the same on every attempt. */
  body: string;
}

export interface Delivery extends NewDelivery {
  subscriberId: string;
  /** Fan-out order (event order within one subscriber). */
  seq: number;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: string;
  /** HTTP status of the last attempt (webhooks), when there was an answer. */
  lastStatus?: number;
  lastError?: string;
  createdAt: string;
  /** Start of the current retry period: creation, or the last replay. Retries stop after the give-up period. */
  retrySince: string;
  finishedAt?: string;
}

export type DeliverySummary = Omit<Delivery, 'body'>;

/** What an attempt came to. */
export type DeliveryResult =
  | { outcome: 'done'; status?: number }
  | { outcome: 'retry'; retryInMs: number; status?: number; error: string }
  | { outcome: 'failed'; status?: number; error: string };

export interface HandoffStore {
  addSubscriber(s: NewSubscriber): Promise<Subscriber>;
  getSubscriber(id: string): Promise<Subscriber | undefined>;
  listSubscribers(q: { kind?: SubscriberKind }): Promise<Subscriber[]>;
  /** Enable or disable (with the reason); false when there is no such subscriber. */
  setSubscriberState(id: string, state: SubscriberState, reason?: string): Promise<boolean>;
  /** Remove the subscriber and its deliveries; false when there was none. */
  removeSubscriber(id: string): Promise<boolean>;

  /**
   * Fan-out: queue `list` (duplicates of an already queued event are ignored) and move the cursor from `from`
   * (undefined: no event read yet) to `to`, in one transaction. False, and nothing written, when the cursor is no
   * longer `from` (another fan-out moved it) or the subscriber is gone.
   */
  appendDeliveries(subscriberId: string, from: string | undefined, to: string, list: readonly NewDelivery[]): Promise<boolean>;
  /**
   * Up to `limit` pending deliveries of active subscribers that are due, whose claim (if any) has run out, and with
   * no earlier pending delivery of the same order to the same subscriber; claimed by `holder` for `leaseMs`,
   * attempts counted. Earliest due first.
   */
  claimDeliveries(holder: string, leaseMs: number, limit: number): Promise<Delivery[]>;
  /** Record an attempt's result and drop the claim; false when `holder` no longer holds that pending delivery. */
  finishDelivery(id: string, holder: string, result: DeliveryResult): Promise<boolean>;
  getDelivery(id: string): Promise<Delivery | undefined>;
  /** A subscriber's deliveries, newest first. */
  listDeliveries(q: { subscriberId: string; state?: DeliveryState; limit?: number }): Promise<DeliverySummary[]>;
  /**
   * Deliver again now, with a fresh retry period: one delivery (`deliveryId`), or every delivery of the subscriber in
   * `state`. Resolves with how many were put back to pending.
   */
  replayDeliveries(q: { subscriberId: string; deliveryId?: string; state?: DeliveryState }): Promise<number>;
  /** Milliseconds until the earliest pending delivery of an active subscriber is due (0: now); undefined: none. */
  nextDeliveryDueInMs(): Promise<number | undefined>;
}

// ---- Shared by the SQLite and PostgreSQL implementations ---------------------------------------------------

export const SUBSCRIBER_COLUMNS = `id, kind, url, secret_enc, allow_private, dir, format, events, cursor, state, disabled_reason,
  created_at, updated_at`;

export const DELIVERY_COLUMNS = `seq, id, subscriber_id, event_id, event_type, order_key, state, attempts, next_attempt_at,
  last_status, last_error, created_at, retry_since, finished_at`;

export interface SubscriberRow {
  id: string;
  kind: string;
  url: string | null;
  secret_enc: string | null;
  allow_private: unknown;
  dir: string | null;
  format: string | null;
  events: unknown;
  cursor: string | null;
  state: string;
  disabled_reason: string | null;
  created_at: unknown;
  updated_at: unknown;
}

export interface DeliveryRow {
  seq: unknown;
  id: string;
  subscriber_id: string;
  event_id: string;
  event_type: string;
  order_key: string;
  body?: string;
  state: string;
  attempts: unknown;
  next_attempt_at: unknown;
  last_status: unknown;
  last_error: string | null;
  created_at: unknown;
  retry_since: unknown;
  finished_at: unknown;
}

/** ISO-8601 from what either engine returns: a Date (pg), epoch milliseconds or ISO text (SQLite). */
export function isoOf(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number' || typeof v === 'bigint') return new Date(Number(v)).toISOString();
  return new Date(String(v)).toISOString();
}

export function toSubscriber(r: SubscriberRow): Subscriber {
  const events = typeof r.events === 'string' ? JSON.parse(r.events) as unknown : r.events;
  const s: Subscriber = {
    id: r.id, kind: r.kind as SubscriberKind, events: Array.isArray(events) ? events as OrderEventType[] : [],
    allowPrivate: r.allow_private === true || r.allow_private === 1 || r.allow_private === 1n,
    state: r.state as SubscriberState, createdAt: isoOf(r.created_at), updatedAt: isoOf(r.updated_at),
  };
  if (r.url !== null) s.url = r.url;
  if (r.secret_enc !== null) s.secretEnc = r.secret_enc;
  if (r.dir !== null) s.dir = r.dir;
  if (r.format !== null) s.format = r.format as ExportFormat;
  if (r.cursor !== null) s.cursor = r.cursor;
  if (r.disabled_reason !== null) s.disabledReason = r.disabled_reason;
  return s;
}

export function toDeliverySummary(r: DeliveryRow): DeliverySummary {
  const d: DeliverySummary = {
    id: r.id, seq: Number(r.seq), subscriberId: r.subscriber_id, eventId: r.event_id, eventType: r.event_type as OrderEventType,
    orderKey: r.order_key, state: r.state as DeliveryState, attempts: Number(r.attempts), nextAttemptAt: isoOf(r.next_attempt_at),
    createdAt: isoOf(r.created_at), retrySince: isoOf(r.retry_since),
  };
  if (r.last_status !== null && r.last_status !== undefined) d.lastStatus = Number(r.last_status);
  if (r.last_error !== null) d.lastError = r.last_error;
  if (r.finished_at !== null && r.finished_at !== undefined) d.finishedAt = isoOf(r.finished_at);
  return d;
}

export function toDelivery(r: DeliveryRow): Delivery {
  return { ...toDeliverySummary(r), body: r.body ?? '' };
}

/** Longest error text kept per delivery: enough for a status line and a reason, not a receiver's whole page. */
export const MAX_DELIVERY_ERROR = 500;

export function errorText(e: string): string {
  return e.replace(/\0/g, '\uFFFD').slice(0, MAX_DELIVERY_ERROR);
}
