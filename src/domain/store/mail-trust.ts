/**
 * Who may order by e-mail, and what was held back (the store's part of src/channels/mail/trust.ts).
 *
 * What must stay true in every implementation:
 * - a message is held in the same transaction that finishes it without a reply, so a held message is never also
 *   derived, and nothing held is deleted (its raw bytes stay in mail_messages); the notice to the customer, when
 *   asked for, is queued in that transaction too (as the message's outgoing mail, never to its sender);
 * - a hold is decided once: release (or a retry after a DNS failure) puts the message back to `received` for the
 *   pipeline, discard leaves it finished; a second decision on the same hold changes nothing and says so.
 */
import type { MailResult, NewMailReply } from './mail.ts';

export type MailPolicyMode = 'qualsiasi' | 'elenco' | 'autenticato';

export interface MailPolicy {
  mode: MailPolicyMode;
  /** Addresses (`ordini@cliente.it`) and domains (`@cliente.it`), lower case. */
  allow: string[];
  /** Tell the customer, at its registered addresses, that a message sent in its name was held. */
  notifyHeld: boolean;
  updatedAt?: string;
}

/** An address (local@domain) or a whole domain (@domain), as compared: lower case, no blanks. */
export const ALLOW_ENTRY = /^(?:[^\s@<>",;]{1,64})?@[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)+$/;

export const DEFAULT_MAIL_POLICY: MailPolicy = { mode: 'qualsiasi', allow: [], notifyHeld: false };

/** One method's verdict as the service read it: `pass`, `fail`, `none`, `temperror`, … (RFC 8601 result names). */
export interface AuthMethodResult {
  result: string;
  /** The domain the result is about (SPF: MAIL FROM or HELO domain; DKIM: d=; DMARC: the From domain). */
  domain?: string;
}

/** The authentication of a received message, computed by this service (or read from a trusted provider's header). */
export interface MailAuth {
  /** The Authentication-Results header, under this service's authserv-id (RFC 8601). */
  header: string;
  /** The From header's address (lower case), if exactly one. */
  from?: string;
  spf: AuthMethodResult;
  dkim: AuthMethodResult[];
  dmarc: AuthMethodResult & { policy?: string };
  arc?: AuthMethodResult;
  /** A DNS lookup failed temporarily: nothing may be decided on these results. */
  temporary?: boolean;
  /** Where the SPF result came from: this service, or the named provider's Authentication-Results. */
  spfFrom?: string;
  at: string;
}

export type HoldState = 'held' | 'released' | 'discarded' | 'retried';

export interface MailHold {
  mailId: string;
  customerId: string;
  /** Machine reason: dmarc-fail, not-allowed, not-authenticated, dns. */
  reason: string;
  sender?: string;
  /** For the operator: what exactly failed. */
  detail?: string;
  heldAt: string;
  state: HoldState;
  decidedBy?: string;
  decidedAt?: string;
  /** The message's authentication results. */
  auth?: MailAuth;
}

export interface MailTrustStore {
  /** Record the HELO name and the authentication results of a stored message. */
  setMailAuth(mailId: string, auth: MailAuth): Promise<void>;
  /**
   * Finish a received message without a reply and hold it, in one transaction; false (nothing changed) when it
   * is no longer received.
   */
  holdMail(hold: Omit<MailHold, 'state' | 'decidedBy' | 'decidedAt' | 'auth' | 'heldAt'>, result: MailResult, notice?: NewMailReply): Promise<boolean>;
  getMailHold(mailId: string): Promise<MailHold | undefined>;
  listMailHolds(q: { state?: HoldState; customerId?: string; limit?: number }): Promise<MailHold[]>;
  /** Held messages with this reason held before `before` (ISO): those to try again. */
  heldForRetry(reason: string, before: string, limit: number): Promise<string[]>;
  /**
   * Decide a hold: `released` and `retried` put the message back to `received` (derived again; released: as if it
   * had passed), `discarded` leaves it finished. False when it is not held (unknown, or decided already).
   */
  decideMailHold(mailId: string, decision: Exclude<HoldState, 'held'>, by: string): Promise<boolean>;
  getMailPolicy(customerId: string): Promise<MailPolicy>;
  setMailPolicy(customerId: string, policy: Omit<MailPolicy, 'updatedAt'>): Promise<MailPolicy>;
}
