/** Rows of the hand-off's tables and their conversions, shared by the SQLite and PostgreSQL implementations of HandoffStore (src/domain/store/handoff.ts). */
import type { OrderEventType } from '../../domain/order-events.ts';
import {
  MAX_FINISH_BATCH, type Delivery, type DeliveryState, type DeliverySummary, type ExportFormat, type Subscriber, type SubscriberKind,
  type SubscriberState,
} from '../../domain/store/handoff.ts';
import { invalid } from './refusals.ts';

/** finishDeliveries' batch, refused whole before either engine writes any of it. */
export function checkFinishBatch(list: readonly unknown[]): void {
  if (list.length > MAX_FINISH_BATCH) throw invalid.finishBatch();
}

export const SUBSCRIBER_COLUMNS = `id, kind, url, secret_enc, allow_private, dir, format, connector_id, events, cursor, state, disabled_reason,
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
  connector_id: string | null;
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
  if (r.connector_id !== null && r.connector_id !== undefined) s.connectorId = r.connector_id;
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
