/**
 * The store port: everything the service keeps, behind one narrow async interface so that SQLite (embedded
 * default) and PostgreSQL (several instances) are interchangeable. The contract test suite
 * (test/store/contract.ts) runs unchanged against every implementation; a behaviour not pinned there is not
 * part of the contract.
 *
 * What must stay true in every implementation:
 * - saveSubmission resolves only once the raw bytes are durable (committed, fsynced); channels acknowledge after it.
 *   With `{ durable: false }` (and registerOrders likewise) the write is committed but may become durable only
 *   with the next durable write of the same store; see WriteOptions.
 * - registerOrders is one transaction: either every item is decided and stored or none is. Two orders with the
 *   same (codice_cliente, riferimento_ordine) are never both stored, whichever instance registers them. Under a
 *   claim (`heldBy`) it stores nothing once the submission is finished or another holder has claimed it.
 * - numero_ordine sequences are per year, start at 1, never repeat, and are allocated inside that transaction.
 * - every query that takes a customerId returns only that customer's rows.
 */
import type {
  Channel, Order, OrderOutcome, Outcome, RegisteredOrder, StoredSubmission, SubmissionState,
} from '../types.ts';
import type { ConnectorStore } from './connectors.ts';
import type { CustomerStateStore } from './customer-state.ts';
import type { EventStore } from './events.ts';
import type { MailStore } from './mail.ts';
import type { MailTrustStore } from './mail-trust.ts';
import type { NotificationStore } from './notifications.ts';
import type { InstanceStore } from './instances.ts';
import type { LifecycleStore } from './lifecycle.ts';
import type { HandoffStore } from './handoff.ts';
import type { QueueName, WriterConnections } from './stats.ts';
import type { WebStore } from './web.ts';
import type { Article, ArticleGtin, ArticleXref, CustomerOrderPage, InactiveArticle, OrderAttempt, PeppolId, SubmissionSummary } from './records.ts';

export type { Article, ArticleGtin, ArticleXref, CustomerOrderPage, InactiveArticle, OrderAttempt, PeppolId, SubmissionSummary } from './records.ts';

export interface Customer {
  id: string;
  code: string;
  name: string;
  /** The dedicated order mailbox address (lower case). */
  mailbox: string;
  createdAt: string;
  /** Set while the customer is deactivated: every channel refuses it (src/customers/active.ts), nothing is deleted. */
  deactivatedAt?: string;
}

export type CredentialKind = 'api_key' | 'password' | 'connector';

export interface Credential {
  id: string;
  customerId: string;
  kind: CredentialKind;
  /** Public, indexed part used to find the credential: key id of an API key, FTP/SFTP user name. */
  lookup: string;
  /** Hash of the secret (see src/auth/secrets.ts); never the secret itself. */
  secretHash: string;
  createdAt: string;
  revokedAt?: string;
}

export interface Unit {
  code: string;
  description: string;
}

export type NewSubmission = Omit<StoredSubmission, 'state' | 'outcome' | 'processedAt' | 'attempts'>;

export interface RegisterItem {
  /** The id the order gets if it is new (UUIDv7 chosen by the core). */
  id: string;
  customerId: string;
  submissionId: string;
  channel: Channel;
  site?: string;
  /** Year of registration in the service's time zone: the numbering series. */
  year: number;
  /** Hash of the order's canonical content: equal hash means "the same order sent again". */
  contentHash: string;
  order: Order;
  registeredAt: string;
}

export type RegisterResult =
  /** Stored now, or earlier by this same submission (a reprocessing gives the same answer). */
  | { status: 'created'; id_ordine: string; numero_ordine: string }
  /** Already registered by another submission with identical content. */
  | { status: 'duplicate'; id_ordine: string; numero_ordine: string }
  /** Already registered with different content: refused. */
  | { status: 'conflict'; id_ordine: string; numero_ordine: string };

/**
 * How durable a write must be when its promise resolves. `durable: false` is for a caller that acknowledges
 * nothing before a later durable write of the same store: the synchronous path (REST, SOAP) saves the
 * submission and registers its orders without waiting for the disk, and answers after completeSubmission, whose
 * commit makes them durable too — the log of both engines is written and flushed in commit order, so the flush
 * of a later commit covers every earlier one. Everything stays committed and visible at once; only the wait for
 * the disk is shared. Default: durable.
 */
export interface WriteOptions {
  durable?: boolean;
}

/** How registerOrders writes: how durable, and under whose claim (a judgement of a claimed submission). */
export interface RegisterOptions extends WriteOptions {
  /**
   * The claim holder judging the items' submissions. Set, the registration is fenced: it writes nothing and rejects
   * with ClaimLostError unless every submission named is still received and claimed by no other holder, checked in
   * the registering transaction itself. An instance that stalled past its lease cannot register orders after the one
   * that took its work over has judged (and perhaps refused) them (docs/development/claims.md).
   */
  heldBy?: string;
}

/** A fenced registration (RegisterOptions.heldBy) found its submission taken over by another holder, or finished. */
export class ClaimLostError extends Error {
  constructor(readonly submissionIds: readonly string[]) {
    super(`claim lost: submission ${submissionIds.join(', ')} is no longer this holder's to register`);
    this.name = 'ClaimLostError';
  }
}

/** What Store.saveSingleOrder records: the one order to register, or the outcome of one refused before registration. */
export type SingleJudged = { item: RegisterItem } | { outcome: Outcome };

/** What Store.saveSingleOrder did: the registration's result (none without an item) and the outcome recorded. */
export interface SavedSingleOrder {
  results: RegisterResult[];
  outcome: Outcome;
}

/** See Store.completeSubmission. */
export interface CompleteOptions {
  attemptsRecorded?: boolean;
  /**
   * The claim holder that judged it. Set, the outcome is fenced as a registration is (RegisterOptions.heldBy): it
   * writes nothing and rejects with ClaimLostError while the submission is received and claimed by another holder.
   * An instance that stalled past its lease must not record its judgement over the work of the one that took over,
   * which may be registering orders this judgement refused (docs/development/claims.md).
   */
  heldBy?: string;
}

/** The e-mail channel's methods (messages, parts, reply outbox, IMAP mailboxes) are declared in mail.ts; webhook and
 * export subscribers and their deliveries in handoff.ts; versions and production's requests in lifecycle.ts; instances and their liveness in instances.ts; operators, sessions and the audit log in web.ts. */
export interface Store extends MailStore, MailTrustStore, ConnectorStore, EventStore, HandoffStore, InstanceStore, WebStore, CustomerStateStore,
  NotificationStore, LifecycleStore {
  /** Which engine, for logs and /healthz. */
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Apply pending migrations (idempotent; safe when several instances start together). Resolves with the file
   * names this call applied, in order (empty when the database was up to date).
   */
  migrate(): Promise<string[]>;
  /** Cheap round trip proving the database answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;

  // Customers and credentials.
  createCustomer(c: Omit<Customer, 'createdAt'> & { createdAt?: string }): Promise<Customer>;
  getCustomer(id: string): Promise<Customer | undefined>;
  getCustomerByCode(code: string): Promise<Customer | undefined>;
  getCustomerByMailbox(address: string): Promise<Customer | undefined>;
  listCustomers(): Promise<Customer[]>;
  addCredential(c: Omit<Credential, 'createdAt' | 'revokedAt'> & { createdAt?: string }): Promise<void>;
  /** Active (not revoked) credential by kind and lookup. */
  findCredential(kind: CredentialKind, lookup: string): Promise<Credential | undefined>;
  /** Revoke every active credential of that kind for the customer; returns how many. */
  revokeCredentials(customerId: string, kind: CredentialKind): Promise<number>;

  // Catalog.
  upsertArticles(rows: readonly Article[]): Promise<void>;
  upsertUnits(rows: readonly Unit[]): Promise<void>;
  /** The subset of `codes` that are known articles. */
  knownArticles(codes: readonly string[]): Promise<Set<string>>;
  /** The subset of `codes` that are known units. */
  knownUnits(codes: readonly string[]): Promise<Set<string>>;
  /** The catalog's description of each of `codes` that is a known article (codes not in the catalog are absent). */
  articleDescriptions(codes: readonly string[]): Promise<Map<string, string>>;
  countArticles(): Promise<number>;
  listUnits(): Promise<Unit[]>;
  /**
   * Take articles out of service: they leave the catalog that stage B and the suggestions read, and are kept apart
   * with their description (an import updates it there but does not bring them back). Resolves with the codes moved;
   * codes not in the catalog are left out.
   */
  deactivateArticles(codes: readonly string[]): Promise<string[]>;
  /** Bring deactivated articles back into the catalog; resolves with the codes moved back. */
  activateArticles(codes: readonly string[]): Promise<string[]>;
  /**
   * Delete articles, active or deactivated, from the catalog; resolves with the codes deleted. Registered orders keep
   * their lines (a line holds its code, quantity and unit; nothing references a catalog row).
   */
  removeArticles(codes: readonly string[]): Promise<string[]>;
  /** The subset of `codes` that are deactivated articles (stage B's "no longer available"). */
  inactiveArticles(codes: readonly string[]): Promise<Set<string>>;
  /** Deactivated articles by code, at most `limit`. */
  listInactiveArticles(limit: number): Promise<InactiveArticle[]>;

  // Peppol identifiers, GTINs and article cross-references (UBL ordering documents, migration 035).
  /**
   * Replace the customer's Peppol participant identifiers with `ids` (schemes and values upper-case). Throws
   * IntakeError CONFLICT naming an identifier another customer holds (one identifier names one customer).
   */
  setPeppolIds(customerId: string, ids: readonly PeppolId[]): Promise<void>;
  /** The customer's Peppol identifiers, by scheme and value. */
  listPeppolIds(customerId: string): Promise<PeppolId[]>;
  /** The customer each of `ids` names, keyed `SCHEME:VALUE` (upper-case); identifiers nobody holds are absent. */
  customersByPeppolId(ids: readonly PeppolId[]): Promise<Map<string, string>>;
  /** Set the GTIN of articles (a GTIN moves to the article named last). */
  upsertArticleGtins(rows: readonly ArticleGtin[]): Promise<void>;
  /** The article code of each of `gtins` that is known (unknown GTINs absent). */
  articlesByGtin(gtins: readonly string[]): Promise<Map<string, string>>;
  /** Add or change a customer's article cross-references (its own code → ours). */
  upsertArticleXrefs(customerId: string, rows: readonly ArticleXref[]): Promise<void>;
  /** Our article code for each of the customer's own `codes` that has a cross-reference. */
  articleXrefs(customerId: string, codes: readonly string[]): Promise<Map<string, string>>;
  /** How many cross-references the customer has. */
  countArticleXrefs(customerId: string): Promise<number>;
  /** The highest UBL Order Change SequenceNumberID the order took (undefined: none yet). */
  ublChangeSequence(orderId: string): Promise<number | undefined>;
  /** Record that the order took change `sequence` (kept if higher than the one recorded). */
  recordUblChangeSequence(orderId: string, sequence: number): Promise<void>;

  // Submissions.
  /** Durable before it resolves. */
  saveSubmission(s: NewSubmission, opts?: WriteOptions): Promise<StoredSubmission>;
  getSubmission(id: string): Promise<StoredSubmission | undefined>;
  /**
   * Streamed uploads (FTP/SFTP, issue 16 target 5): write bytes [offset, offset + length) of the local `file` as
   * pieces of the upload `uploadId`, durable before it resolves, so that the upload's acknowledgement only has to
   * commit the rest (a submission saved with `rawFile.staged` adopts them, its id the upload's). `offset` and
   * `length` are multiples of UPLOAD_PIECE_BYTES (a last short piece is written by the adopting save). Pieces no
   * submission adopted are deleted by discardStagedUpload, or by sweepStagedUploads once their upload is stale.
   */
  stageUploadPieces(uploadId: string, piece: { file: string; offset: number; length: number }): Promise<void>;
  /** Delete the pieces of an upload that will not be adopted (cut, refused); nothing if a submission adopted them. */
  discardStagedUpload(uploadId: string): Promise<void>;
  /** Delete the pieces of every unadopted upload whose last piece was written before `touchedBefore`; how many uploads. */
  sweepStagedUploads(touchedBefore: string): Promise<number>;
  /**
   * Newest first. `channels` keeps only submissions of those channels, before the limit: the file tree lists the
   * newest FTP/SFTP files, which a customer's REST or e-mail traffic must not push out of its window.
   */
  listSubmissions(q: { state?: SubmissionState; customerId?: string; channels?: readonly Channel[]; limit?: number }): Promise<SubmissionSummary[]>;
  /**
   * A customer's earlier file with the same bytes, if any (the same file uploaded twice): single-order submissions
   * (REST, SOAP, the portal's form) are bodies of calls, not files, and are never returned.
   */
  findSubmissionBySha(customerId: string, sha256: string, channel?: Channel): Promise<SubmissionSummary | undefined>;
  /**
   * Outcomes of the customer's submissions among `ids`, by id, without their raw bytes (file listings render the
   * outcome files to show their sizes). Ids of other customers and unprocessed submissions are left out.
   */
  getSubmissionOutcomes(customerId: string, ids: readonly string[]): Promise<Map<string, Outcome>>;
  /** A single-order submission whose reserved order id is `orderId` (async REST callers poll that id). */
  findSubmissionByReservedOrderId(customerId: string, orderId: string): Promise<StoredSubmission | undefined>;
  /** Ids of submissions received and not yet processed, oldest first. */
  pendingSubmissionIds(limit: number): Promise<string[]>;
  /**
   * The synchronous path's one write (REST, SOAP, the portal's form: one order, answered with its outcome): save the
   * submission already processed, either with `judged.item` registered and the outcome its registration makes
   * (singleOrderOutcome in src/domain/registered-outcome.ts: accepted, a duplicate, or refused as a conflict), or with
   * `judged.outcome` as it stands (refused before any registration); the order's attempt and outbox events with it.
   * Durable when it resolves; resolves with the registration's result (none without an item) and the outcome
   * recorded, which is the answer. Both engines write the submission row once, never received, so never claimed:
   * SQLite in one operation of the group commit, PostgreSQL in one statement grouped with the requests in flight.
   */
  saveSingleOrder(s: NewSubmission, judged: SingleJudged, processedAt: string): Promise<SavedSingleOrder>;
  /**
   * Record the outcome and clear the claim; state becomes processed (or failed for internal errors). The order
   * attempts of an earlier judgement are replaced by this one's, in the same transaction. With
   * `{ attemptsRecorded: true }` (a large file, see recordAttempts) this judgement's attempts are already written:
   * `outcome.orders` has one slot per order of the file and holds at least every order without a reference and
   * every refused one (their events are written now), holes elsewhere; the attempts of an earlier judgement that
   * this one did not overwrite are deleted.
   *
   * Only over a received submission: an outcome, once recorded, stands until resetSubmission. A second judgement of
   * the same submission (an instance that stalled past its lease while another took the work over, and finished
   * last) writes nothing, neither outcome nor attempts nor refusal events, and resolves false; its caller reads the
   * outcome that stands. Resolves true when this call recorded the outcome; NOT_FOUND when there is no such submission;
   * ClaimLostError under `heldBy` when another holder has the submission now.
   */
  completeSubmission(id: string, state: SubmissionState, outcome: Outcome, processedAt: string, opts?: CompleteOptions): Promise<boolean>;
  /**
   * The order attempts of a large file's orders, written batch by batch as they are judged (`orders` at their
   * `index` in the file; those without a reference get no row, as in completeSubmission) instead of all at once
   * with the outcome: judging then holds no outcome of every order for the whole file. Rows of an earlier
   * judgement at the same positions are overwritten. Nothing reads them as an outcome before completeSubmission
   * (`{ attemptsRecorded: true }`) records the verdict: until then the submission has none. A submission no longer
   * received gets none (its recorded outcome stands, see completeSubmission). Fenced by a claim with `heldBy` as
   * registerOrders is: a holder that lost the submission to another writes none over the other's and gets
   * ClaimLostError, since the outcome is read back from these rows.
   */
  recordAttempts(submissionId: string, orders: readonly OrderOutcome[], opts?: RegisterOptions): Promise<void>;
  /** Put a submission back to received so it is processed again (operator reprocess). Clears any claim. */
  resetSubmission(id: string): Promise<void>;
  /**
   * Count one more retry of a submission left unprocessed (the sweeper is taking it up again); resolves with the
   * count. resetSubmission sets it back to 0. (Issue 19, item 7: poison submissions.)
   */
  countRetry(id: string): Promise<number>;

  // Claims: which instance processes which received submission. A claim lasts `leaseMs` unless renewed, so the
  // work of an instance that hangs is taken over once its lease passes (one that died: see instances.ts);
  // completeSubmission clears it. PostgreSQL
  // keeps claims in the database (shared by every instance); SQLite, which serves one process, in that process.
  /**
   * Claim up to `limit` received submissions that no one holds (or whose lease has passed), oldest first, for
   * `leaseMs`. While a lease runs, no other holder gets the same id, whichever instance asks.
   */
  claimSubmissions(holder: string, limit: number, leaseMs: number): Promise<string[]>;
  /** Claim one submission not yet processed, unless another holder's lease on it runs; true when `holder` holds it. */
  claimSubmission(id: string, holder: string, leaseMs: number): Promise<boolean>;
  /** Extend `holder`'s claims among `ids` by `leaseMs`; resolves with the ids it still holds (the others were lost). */
  renewClaims(holder: string, ids: readonly string[], leaseMs: number): Promise<string[]>;
  /** Give back every claim `holder` has on unprocessed submissions (graceful stop); resolves with how many. */
  releaseClaims(holder: string): Promise<number>;

  // Named leases: "at most one instance at a time does this" (e.g. watches one IMAP mailbox).
  /** Take the lease if it is free, expired, or already `holder`'s; true when `holder` now holds it for `ttlMs`. */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Extend `holder`'s lease by `ttlMs`; false when it is not (or no longer) `holder`'s: stop the work it guards. */
  renewLease(name: string, holder: string, ttlMs: number): Promise<boolean>;
  /** Give up the lease if `holder` holds it, so another instance can take it at once. */
  releaseLease(name: string, holder: string): Promise<void>;

  // Orders.
  /** One transaction for all items; results in the same order as items. Fenced by a claim with `heldBy`. */
  registerOrders(items: readonly RegisterItem[], opts?: RegisterOptions): Promise<RegisterResult[]>;
  /**
   * Which of `references` the submission itself registered (as codice_cliente and riferimento_ordine): judging it
   * again (after a crash, a takeover, an operator's reprocess) answers "registered" for those, whatever it would
   * decide now (a connector's customer deactivated meanwhile, say): a registered order stays registered.
   */
  registeredBySubmission(submissionId: string, references: readonly string[]): Promise<{ codice_cliente: string; riferimento_ordine: string }[]>;
  getOrder(customerId: string, id: string): Promise<RegisteredOrder | undefined>;
  /** The customer's orders among `ids`, with their lines, in no particular order (ids of others' orders: absent). */
  getOrders(customerId: string, ids: readonly string[]): Promise<RegisteredOrder[]>;
  getOrderByRef(customerId: string, riferimento: string): Promise<RegisteredOrder | undefined>;
  listOrders(q: { customerId?: string; limit?: number }): Promise<RegisteredOrder[]>;
  /**
   * One customer's registered orders (every customer's without customerId), oldest first by (registeredAt, id), a
   * page after `after` (keyset: an order registered while a client pages never moves one already listed, nor is
   * listed twice). With a customer it walks that customer's part of orders_customer_registered_id from `from`, never
   * another customer's orders; without, orders_registered_id.
   */
  listCustomerOrders(q: CustomerOrderPage): Promise<RegisteredOrder[]>;
  /** The latest outcome recorded for that reference of that customer (accepted or refused). */
  latestAttempt(customerId: string, riferimento: string): Promise<OrderAttempt | undefined>;

  // Monitoring (stats.ts).
  /** How many items wait in that queue now (GET /metrics). */
  countQueue(queue: QueueName): Promise<number>;
  /** The connections registrations use (GET /metrics); undefined without a pool (SQLite). */
  writerConnections(): WriterConnections | undefined;
}
