/**
 * The e-mail channel's part of the store port (src/domain/store/store.ts extends it): received messages, the order
 * attachments derived from them, the reply outbox, and the IMAP mailboxes watched for customers.
 *
 * What must stay true in every implementation:
 * - saveMailMessages / saveImapMessage resolve only once the raw message is durable: the SMTP `250` and the IMAP
 *   move (or flag) come after them.
 * - an IMAP message (account, UIDVALIDITY, UID) is stored at most once, and a Message-ID already stored for that
 *   account is not stored again: a crash between storing and moving, or a mailbox rebuilt by its provider, never
 *   makes one message two.
 * - a message part is recorded once (the first submission recorded for it wins), and a message is finished once:
 *   its reply is queued in the same transaction that marks it done.
 * - claims (messages being derived, replies being sent) are taken with one conditional write, so two instances
 *   never both hold the same row.
 * - every query that takes a customerId returns only that customer's rows.
 */
import type { MailAuth } from './mail-trust.ts';

export type MailSource = 'smtp' | 'imap';
export type MailState = 'received' | 'done';

/** Where an IMAP message was found: UIDs are only meaningful under their UIDVALIDITY. */
export interface ImapOrigin {
  accountId: string;
  /** UIDVALIDITY as decimal text (a 32-bit unsigned value; kept as text so no engine rounds it). */
  uidValidity: string;
  uid: number;
}

export interface NewMailMessage {
  id: string;
  customerId: string;
  source: MailSource;
  /** SMTP MAIL FROM: '' for the null sender of bounces; undefined when not known (IMAP). */
  envelopeFrom?: string;
  /** SMTP RCPT TO addresses that belong to this customer (lower case). */
  recipients: readonly string[];
  messageId?: string;
  /** The message exactly as received (RFC 5322 bytes). */
  raw: Buffer;
  sha256: string;
  /** SMTP client address, or the IMAP host. */
  remote?: string;
  /** The name the SMTP client gave in HELO/EHLO (SPF checks it too). */
  helo?: string;
  imap?: ImapOrigin;
  receivedAt: string;
  /** The receiving instance derives the message itself: recovery elsewhere leaves it alone for this long. */
  claimMs?: number;
  /** Who holds that claim (the instance's holder name), so it is freed if that instance dies (instances.ts). */
  claimBy?: string;
}

/** What finishing a message decided: the reply queued, or why there is none. */
export interface MailResult {
  esito: 'ok' | 'errore' | 'nessun_ordine';
  submissions: readonly string[];
  replyId?: string;
  /** Why no reply was sent (bounce, auto-submitted, list mail, …). */
  noReply?: string;
  /** The message was held (mail-trust.ts): the reason. Nothing was registered and nobody was answered. */
  held?: string;
  /** Set when the message itself could not be read and was given up: why, for the operator. */
  unreadable?: string;
}

export interface MailMessage extends Omit<NewMailMessage, 'claimMs' | 'claimBy'> {
  state: MailState;
  /** Derivations started (issue 19, item 7): past MAIL_LIMITS.deriveAttempts the message is given up as unreadable. */
  attempts?: number;
  doneAt?: string;
  result?: MailResult;
  /** SPF, DKIM, DMARC as judged on receipt (setMailAuth); undefined until then. */
  auth?: MailAuth;
}

export type MailMessageSummary = Omit<MailMessage, 'raw'> & { size: number };

export interface MailPart {
  idx: number;
  submissionId: string;
}

export type ReplyState = 'pending' | 'sent' | 'failed';

export interface NewMailReply {
  id: string;
  mailId: string;
  customerId: string;
  /** Envelope recipient of the reply (the customer's sender, Reply-To honoured). */
  recipient: string;
  subject: string;
  /** The reply composed once (RFC 5322 bytes), so every attempt sends the same Message-ID and content. */
  raw: Buffer;
}

/** A reply answers one received message; a notification tells of an order's production status (notifications.ts). */
export type OutgoingKind = 'reply' | 'notification';

export interface MailReply extends Omit<NewMailReply, 'mailId'> {
  /** The message answered; absent for a notification. */
  mailId?: string;
  kind: OutgoingKind;
  /** The order a notification is about. */
  orderId?: string;
  createdAt: string;
  state: ReplyState;
  attempts: number;
  nextAttemptAt: string;
  lastError?: string;
  sentAt?: string;
}

export type MailReplySummary = Omit<MailReply, 'raw'>;

export interface NewImapAccount {
  id: string;
  customerId: string;
  host: string;
  port: number;
  /** true: TLS from the start (993); false: plain connection upgraded by STARTTLS when offered. */
  tls: boolean;
  username: string;
  /** The password sealed with INTAKE_SECRET_KEY (see src/auth/secret-box.ts); never the clear text. */
  passwordEnc: string;
  /** The folder watched for orders. */
  folder: string;
  /** Stored messages are moved here; undefined: they are flagged and left where they are. */
  processedFolder?: string;
  /**
   * The authserv-id of the provider's own Authentication-Results header, the only one trusted for this mailbox
   * (RFC 8601 5: anyone can write such a header; only the receiving boundary's is worth reading).
   */
  authservId?: string;
}

export interface ImapAccount extends NewImapAccount {
  uidValidity?: string;
  /** Highest UID stored under uidValidity: only later UIDs are fetched. */
  lastUid: number;
  lastError?: string;
  lastCheckedAt?: string;
  createdAt: string;
  updatedAt: string;
}

export interface MailStore {
  /** Store received messages (one per customer of the recipients) in one transaction; durable when it resolves. */
  saveMailMessages(list: readonly NewMailMessage[]): Promise<void>;
  /** Store an IMAP message unless its UID or its Message-ID is already stored for that account. Durable. */
  saveImapMessage(m: NewMailMessage & { imap: ImapOrigin }): Promise<'stored' | 'known'>;
  getMailMessage(id: string): Promise<MailMessage | undefined>;
  listMailMessages(q: { customerId?: string; state?: MailState; limit?: number }): Promise<MailMessageSummary[]>;
  /** Messages received and not finished whose claim (if any) has run out, oldest first. */
  pendingMailIds(limit: number): Promise<string[]>;
  /** Take a received message for `leaseMs`; false when it is finished or another claim on it still runs. */
  claimMail(id: string, leaseMs: number, holder?: string): Promise<boolean>;
  /** Extend `holder`'s claims among `ids` by `leaseMs`; resolves with the ids it still holds (finished or lost: not). */
  renewMailClaims(holder: string, ids: readonly string[], leaseMs: number): Promise<string[]>;
  /** Give back `holder`'s claims on the messages `ids` not yet finished (graceful stop); resolves with how many. */
  releaseMailClaims(holder: string, ids: readonly string[]): Promise<number>;
  /** Count one more derivation of a message (issue 19, item 7); resolves with the count, the first included. */
  countMailAttempt(id: string): Promise<number>;
  mailParts(mailId: string): Promise<MailPart[]>;
  /** Record the submission holding part `idx`; returns the one recorded (an earlier record wins). */
  addMailPart(mailId: string, idx: number, submissionId: string): Promise<string>;
  /**
   * Submissions of the customer received since `since` whose meta names this message (`mail_id`, `mail_part`):
   * finds a part stored just before a crash that kept it from being recorded.
   */
  findMailSubmissions(customerId: string, mailId: string, since: string): Promise<MailPart[]>;
  /** Mark the message done and queue its reply in one transaction; false (and nothing changed) if already done. */
  finishMail(id: string, result: MailResult, reply?: NewMailReply): Promise<boolean>;

  getReply(id: string): Promise<MailReply | undefined>;
  listReplies(q: { state?: ReplyState; customerId?: string; limit?: number }): Promise<MailReplySummary[]>;
  /**
   * Pending replies that are due, taken for `leaseMs` (their next attempt moves past the lease, so no other
   * instance takes them meanwhile; a sender that dies leaves them due again), attempts counted, oldest due first.
   */
  claimDueReplies(leaseMs: number, limit: number, holder?: string): Promise<MailReply[]>;
  markReplySent(id: string): Promise<void>;
  /** Record a failed attempt: tried again in `retryInMs`, or given up (state failed) when it is undefined. */
  markReplyFailed(id: string, error: string, retryInMs?: number): Promise<void>;
  /** Operator: send a failed or pending reply again now. False when there is no such reply or it was sent. */
  retryReply(id: string): Promise<boolean>;
  /** Milliseconds until the earliest pending reply is due (0 when overdue); undefined when none is pending. */
  nextReplyDueInMs(): Promise<number | undefined>;

  /** Create or replace the customer's IMAP mailbox (its UID state starts over when host, user or folder change). */
  setImapAccount(a: NewImapAccount): Promise<ImapAccount>;
  getImapAccount(customerId: string): Promise<ImapAccount | undefined>;
  listImapAccounts(): Promise<ImapAccount[]>;
  removeImapAccount(customerId: string): Promise<boolean>;
  /** What the watcher has seen: the UIDVALIDITY, the highest stored UID, the last error (undefined: none). */
  saveImapState(accountId: string, s: { uidValidity?: string; lastUid: number; lastError?: string }): Promise<void>;
}
