/**
 * The web's part of the store port (src/domain/store/store.ts extends it): operator accounts, server-side sessions of the
 * console and the portal, the operators' audit log, and the filtered, keyset-paginated lists the console shows.
 *
 * What must stay true in every implementation:
 * - a session exists only as a row: deleting the row (logout, password reset, operator disabled) ends it, whatever
 *   cookie a browser (or a thief) still holds; getWebSession never returns a session whose expiry has passed.
 * - the lists are newest first and paged by the (time, id) of the last row shown (keyset), so a page costs the same
 *   at row 50 and at row 1,000,000; each filter has an index that serves it (test/store/query-plans.test.ts).
 * - every query that takes a customerId returns only that customer's rows.
 * - the text filters (`customer`, `riferimento`, an article search's `text`) match a part of the value, in any case
 *   (ASCII letters on SQLite, every letter on PostgreSQL), and take `%`, `_` and `\` literally. No b-tree serves a
 *   match in the middle of a value: those statements walk the index of the list's order (time, or the article code)
 *   and stop at the page's limit, so a page costs what it reads until it is full; the date filters bound a rare term.
 */
import type { Channel, ProductionState, RegisteredOrder } from '../types.ts';
import type { Article, SubmissionSummary } from './records.ts';

export const OPERATOR_ROLES = ['admin', 'operator', 'viewer'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export interface Operator {
  id: string;
  /** Lower case (the store writes it so). */
  email: string;
  role: OperatorRole;
  passwordHash: string;
  createdAt: string;
  disabledAt?: string;
}

export type WebSessionKind = 'operator' | 'customer';

export interface WebSession {
  /** SHA-256 (hex) of the cookie's token; the token itself is never stored. */
  tokenHash: string;
  kind: WebSessionKind;
  /** Operator id or customer id. */
  subjectId: string;
  createdAt: string;
  expiresAt: string;
}

export interface AuditEntry {
  id: string;
  at: string;
  /** Operator e-mail, `cli`, or `cliente:<code>`. */
  actor: string;
  action: string;
  objectType: string;
  objectId: string;
  detail: Record<string, unknown>;
}

/** Outcome filter of the submissions list: state received/failed, or processed with that esito. */
export const SUBMISSION_OUTCOMES = ['received', 'ok', 'errore', 'failed'] as const;
export type SubmissionOutcomeFilter = (typeof SUBMISSION_OUTCOMES)[number];

/** The last row of the page shown: the next page starts strictly after it. */
export interface Keyset {
  at: string;
  id: string;
}

export interface SubmissionSearch {
  customerId?: string;
  /** Part of the customer's code or name (the console's filter). */
  customer?: string;
  channel?: Channel;
  outcome?: SubmissionOutcomeFilter;
  /** Received at or after (ISO). */
  from?: string;
  /** Received before (ISO). */
  to?: string;
  /** Submissions that held an order whose riferimento_ordine contains this. */
  riferimento?: string;
  after?: Keyset;
  limit: number;
}

export interface OrderSearch {
  customerId?: string;
  /** Part of the customer's code or name (the console's filter). */
  customer?: string;
  channel?: Channel;
  from?: string;
  to?: string;
  /** Part of the riferimento_ordine. */
  riferimento?: string;
  after?: Keyset;
  limit: number;
}

export type OrderSummary = Omit<RegisteredOrder, 'righe'>;

/** One order line as the console's CSV export shows it. */
export interface OrderExportLine {
  orderId: string;
  /** 0-based position in the order. */
  index: number;
  codice_articolo: string;
  /** From the catalog; undefined when the article is no longer there. */
  descrizione?: string;
  quantita: number;
  unita_misura: string;
  /** What production last reported; undefined: nothing yet. */
  productionState?: ProductionState;
}

export interface ArticleSearch {
  /** Part of the code or of the description; '' lists the catalog from its first code. */
  text: string;
  limit: number;
  /**
   * The seeded demo articles too (Article.demo): for the DEMO customer and the operator's catalog page. Left out
   * otherwise, so a real customer is never offered an article of the demo.
   */
  demo?: boolean;
}

/** Counts for the dashboard: registered orders per channel and customer since a time. */
export interface OrderCount {
  channel: Channel;
  codice_cliente: string;
  count: number;
}

export interface WebStore {
  /** CONFLICT when an operator with that e-mail exists. */
  createOperator(o: Omit<Operator, 'createdAt' | 'disabledAt'> & { createdAt?: string }): Promise<Operator>;
  getOperator(id: string): Promise<Operator | undefined>;
  getOperatorByEmail(email: string): Promise<Operator | undefined>;
  listOperators(): Promise<Operator[]>;
  /** Replace the hash and end every session of the operator; false when no such operator. */
  setOperatorPassword(id: string, passwordHash: string): Promise<boolean>;
  /** Disable (or enable again) and, when disabling, end every session; false when no such operator. */
  setOperatorDisabled(id: string, disabled: boolean): Promise<boolean>;

  createWebSession(s: WebSession): Promise<void>;
  /** The session, unless unknown or expired. */
  getWebSession(tokenHash: string): Promise<WebSession | undefined>;
  extendWebSession(tokenHash: string, expiresAt: string): Promise<void>;
  deleteWebSession(tokenHash: string): Promise<void>;
  /** End every session of a subject (password changed, account disabled); resolves with how many. */
  deleteWebSessionsOf(kind: WebSessionKind, subjectId: string): Promise<number>;

  addAudit(e: AuditEntry): Promise<void>;
  /** Newest first; `before` is the id of the last entry shown. */
  listAudit(q: { before?: string; objectType?: string; objectId?: string; limit: number }): Promise<AuditEntry[]>;

  /** The value stored under `name`, storing `candidate` first when there is none (first instance wins). */
  webKey(name: string, candidate: string): Promise<string>;

  searchSubmissions(q: SubmissionSearch): Promise<SubmissionSummary[]>;
  searchOrders(q: OrderSearch): Promise<OrderSummary[]>;
  /**
   * The lines of these orders for the console's CSV export, in order then line order, each with its order's production
   * state and its article's description from the catalog (deactivated articles too; none for an article removed).
   */
  orderExportLines(orderIds: readonly string[]): Promise<OrderExportLine[]>;
  /** Articles whose code or description contains the text, by code. */
  searchArticles(q: ArticleSearch): Promise<Article[]>;
  orderCounts(since: string): Promise<OrderCount[]>;
  /** Submissions processed with esito errore since a time (the refused ones an operator should look at). */
  countRefused(since: string): Promise<number>;
  /** Of countRefused's submissions, those of which some order was accepted (a file partly registered). */
  countPartial(since: string): Promise<number>;
}
