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

/** mail: the one subscriber that turns status changes into e-mail notifications (src/handoff/notify.ts). */
export type SubscriberKind = 'webhook' | 'export' | 'mail';
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
  /**
   * Webhook: a connector's callback (`connector set --callback-url`): it receives only that connector's orders'
   * events, as PrintTalk documents rather than JSON (src/handoff/printtalk-callback.ts).
   */
  connectorId?: string;
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

export interface FinishedDelivery {
  id: string;
  result: DeliveryResult;
}

/** Results recorded per finishDeliveries call: one statement's parameters stay small, and so does one transaction. */
export const MAX_FINISH_BATCH = 1000;

/**
 * How a claim shares itself out (HandoffStore.claimDeliveries). Earliest due first alone let one endpoint's backlog
 * take every delivery a dispatcher holds: a receiver that accepts connections and never answers then kept the hot
 * folder and every other webhook waiting (test/handoff/isolation.test.ts).
 */
export interface ClaimOptions {
  /** At most this many deliveries of one subscriber in this claim (default: `limit`). */
  perSubscriber?: number;
  /** Subscribers whose deliveries this claim hands out none of: those the holder holds enough of already. */
  skip?: readonly string[];
}

export interface HandoffStore {
  /**
   * Its cursor starts at the last event readable now (none on an empty stream, or when that event is at or before
   * what retention deleted): it is given exactly the events committed after it was added.
   */
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
   * attempts counted. Earliest due first, at most `opts.perSubscriber` of one subscriber, none of `opts.skip`'s.
   */
  claimDeliveries(holder: string, leaseMs: number, limit: number, opts?: ClaimOptions): Promise<Delivery[]>;
  /** Record an attempt's result and drop the claim; false when `holder` no longer holds that pending delivery. */
  finishDelivery(id: string, holder: string, result: DeliveryResult): Promise<boolean>;
  /**
   * finishDelivery for several deliveries of one holder in one write (at most MAX_FINISH_BATCH): the dispatcher
   * records results in batches, one round trip or one group-commit entry for many deliveries. Resolves with the ids
   * whose result was NOT recorded (the holder no longer held them).
   */
  finishDeliveries(holder: string, list: readonly FinishedDelivery[]): Promise<string[]>;
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
  /**
   * Where several instances share the store (PostgreSQL): a bell between their dispatchers. `ring` tells every other
   * instance on this database and schema that events or deliveries were just committed; `onRing` runs when another
   * rings. Absent where one process serves the store (SQLite): its own commits wake it directly.
   */
  openHandoffBell?(onRing: () => void): Promise<HandoffBell>;
}

export interface HandoffBell {
  /** Tell the other instances (best effort: a lost ring costs one poll interval, never an event). */
  ring(): void;
  close(): Promise<void>;
}
