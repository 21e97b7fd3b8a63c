/**
 * The lifecycle's part of the store port (src/domain/store/store.ts extends it): versions of an order and the requests
 * production decides. The rules (what is allowed in which state) are in src/intake/lifecycle.ts; the store only writes
 * what it is told, each write a compare-and-set on the order's row so that two writers never both win.
 *
 * What must stay true in every implementation:
 * - the current version of an order is what `orders` and `order_lines` hold, so every reader of orders (lists,
 *   exports, the hand-off) sees it; each superseded version is kept whole in `order_versions`.
 * - writeVersion and cancelOrder write only if the order is still at `from` (its version) and in `fromState` (its
 *   production state); otherwise they write nothing and resolve false. Versions are 2, 3, … with no gap and no repeat,
 *   whichever instance writes them, without a lock wider than the order's row.
 * - at most one request per order is `in_attesa`; a request is keyed by the submission that made it, so judging that
 *   submission again finds it instead of making another.
 * - every write carries its events and writes them in the same transaction.
 */
import type { Channel, Order, ProductionState, RequestKind, RequestState } from '../types.ts';
import type { NewEvent } from './events.ts';

/** One version of an order as `GET` lists it (`versioni`). */
export interface VersionInfo {
  versione: number;
  /** When this version was made (registration for version 1). */
  ricevuto_il: string;
  canale: Channel;
  azione: 'nuovo' | 'modifica';
}

/** A superseded version, whole (the console shows versions side by side). */
export interface StoredVersion extends VersionInfo {
  order: Order;
  submissionId: string;
}

/** A change or cancellation production decides. */
export interface ChangeRequest {
  id_richiesta: string;
  orderId: string;
  customerId: string;
  tipo: RequestKind;
  stato_richiesta: RequestState;
  /** The customer's reason. */
  motivo?: string;
  /** Production's note on its decision. */
  nota?: string;
  /** For a change: the whole new content. */
  order?: Order;
  contentHash?: string;
  /** The version the request was made against. */
  baseVersion: number;
  submissionId: string;
  channel: Channel;
  createdAt: string;
  decidedAt?: string;
}

/** A new version, written only if the order is still at version `from` and production state `fromState`. */
export interface VersionWrite {
  orderId: string;
  from: number;
  fromState: ProductionState | null;
  /** The content of version `from + 1`. */
  order: Order;
  contentHash: string;
  at: string;
  channel: Channel;
  submissionId: string;
  /** The version being superseded, whole, as it is now (kept in order_versions). */
  previous: StoredVersion;
  /** A request this version carries out (set accepted in the same transaction). */
  request?: { id: string; nota?: string };
  events: NewEvent[];
}

/** A cancellation: production state `annullato` with a history step, if the order is still at `from`/`fromState`. */
export interface CancelWrite {
  orderId: string;
  from: number;
  fromState: ProductionState | null;
  at: string;
  /** The reason, kept as the history step's note. */
  motivo?: string;
  /** Who cancelled, kept in the history (`cliente`, `operatore:<name>`, or the integration deciding a request). */
  by: string;
  request?: { id: string; nota?: string };
  events: NewEvent[];
}

/** A request to record; `existing` is returned instead when this submission made one for this order already. */
export type RequestWrite = Omit<ChangeRequest, 'stato_richiesta' | 'nota' | 'decidedAt'> & { event: NewEvent };

export type RequestResult =
  | { status: 'created' | 'existing'; request: ChangeRequest }
  /** Another request of the order is waiting: nothing written. */
  | { status: 'pending'; request: ChangeRequest };

export interface LifecycleStore {
  /** The order's superseded versions, oldest first (the current one is the order itself). */
  orderVersions(orderId: string): Promise<StoredVersion[]>;
  /** The order's requests, oldest first. */
  orderRequests(orderId: string): Promise<ChangeRequest[]>;
  writeVersion(w: VersionWrite): Promise<boolean>;
  cancelOrder(w: CancelWrite): Promise<boolean>;
  addRequest(r: RequestWrite): Promise<RequestResult>;
  /** Production refuses a waiting request: false when it is no longer waiting. */
  refuseRequest(r: { orderId: string; id: string; nota?: string; at: string; event: NewEvent }): Promise<boolean>;
}

