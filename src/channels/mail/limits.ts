/**
 * Limits of the e-mail channel, each with the reason it exists. The message size limit is config.maxMailBytes
 * (announced as SMTP SIZE); the size of one order file, inside a ZIP too, is config.maxFileBytes.
 */
export const MAIL_LIMITS = {
  /**
   * SMTP connections at once. Each may hold a whole message (up to maxMailBytes) in memory while it is stored, so
   * this bounds memory; a customer's mail server opens one or two, and the MX of a sub-domain sees little else.
   */
  smtpClients: 50,
  /**
   * Recipients of one message. Each known one costs a stored copy (one per customer); a real order goes to one
   * mailbox, and hundreds of recipients is a spammer's message, refused with 452 after this many.
   */
  recipientsPerMessage: 20,
  /** An SMTP client silent this long is disconnected: it holds a slot and a half-received message. */
  smtpSocketTimeoutMs: 120_000,
  /**
   * SMTP connections that have not yet named a real order mailbox, from one address. A relay delivering a burst opens
   * up to 20 at once (Postfix's default smtp_destination_concurrency_limit), each named a mailbox within a second;
   * without this bound 50 idle sockets from one host filled every slot (421 for everyone).
   */
  smtpWaitingPerAddress: 20,
  /**
   * Of smtpClients, the slots kept for connections that named a real order mailbox: while strangers hold every
   * other slot, mail for customers is still taken.
   */
  smtpReservedForTrusted: 10,
  /**
   * A connection that has not named a real order mailbox by then is closed. A mail server does EHLO, MAIL and RCPT
   * within a second or two; half a minute leaves room for a slow TLS handshake and reverse lookups on its side.
   */
  smtpWaitingTimeoutMs: 30_000,
  /**
   * Unknown recipients (RCPT TO refused) answered without delay on one connection. A mistyped address costs one or
   * two; every one after this is answered after a growing delay (Postfix smtpd_soft_error_limit and
   * smtpd_error_sleep_time), and at badRecipientsPerConnection the connection is closed (smtpd_hard_error_limit).
   * The count per client address carries over to its next connections for badRecipientMemoryMs, so reconnecting
   * does not start the guesser afresh.
   */
  badRecipientsFree: 3,
  badRecipientsPerConnection: 10,
  /** The delay grows by this for each unknown recipient past badRecipientsFree, up to badRecipientDelayMaxMs. */
  badRecipientDelayMs: 1_000,
  badRecipientDelayMaxMs: 10_000,
  badRecipientMemoryMs: 60 * 60_000,
  /**
   * Header section of a message, in bytes and in lines (a folded header counts once per line). Real messages carry
   * 2-20 KiB of headers, long Received/DKIM chains included; the parser gives up at 1 MiB per MIME part, so a
   * message past these is refused at DATA time (552) instead of being acknowledged and then never read.
   */
  headerBytes: 256 * 1024,
  headerLines: 2_000,
  /**
   * MIME parts in one message (each Content-Type header counts) and multipart containers among them. The parser gives
   * up at 1,000 parts; an order message has a body and a handful of attachments, a forwarded one nests a few levels.
   */
  mimeParts: 500,
  multipartContainers: 50,
  /**
   * Attempts at reading a stored message before it is given up as unreadable (finished with a reply saying so):
   * a message that fails this often fails for what it is, not for a passing fault, and retrying it at every
   * sweep and start forever only burns time.
   */
  deriveAttempts: 3,
  /**
   * Order files taken from one message (attachments and ZIP entries together). Each becomes a stored submission
   * and one block of the reply; a customer sends a handful, and a reply listing hundreds helps no one.
   */
  partsPerMessage: 50,
  /** Entries read from one ZIP's directory (folders and ignored files included): bounds the time spent listing it. */
  zipEntries: 1000,
  /**
   * Largest uncompressed/compressed ratio of a ZIP entry. Order files compress 5-20 times, exports full of repeated
   * rows up to about 100 times; zip bombs reach thousands, so inflating stops at this ratio whatever the header says.
   */
  zipRatio: 200,
  /** Messages derived at once by this instance: each holds its message and order files in memory. */
  deriveConcurrency: 4,
  /** Messages picked up per recovery round: bounds memory when a long outage left many behind. */
  recoveryBatch: 100,
  // Messages left unfinished (an internal error, an instance that died) are looked for every INTAKE_SWEEP_INTERVAL_MS.
  /**
   * Reply retries: the first after 30 s, doubling up to one hour between attempts, and given up after five days
   * (Postfix's maximal_queue_lifetime); a given-up reply stays in the store and can be sent again from the CLI.
   */
  replyRetryFirstMs: 30_000,
  replyRetryMaxMs: 60 * 60_000,
  replyGiveUpMs: 5 * 24 * 60 * 60_000,
  /**
   * While a reply is being handed to the relay no other sender takes it; a send lasts seconds, not minutes. A sender
   * that dies has its replies freed at the next sweep (they name it); this lease is the backstop for one that hangs.
   */
  replySendLeaseMs: 5 * 60_000,
  /** Replies handed to the relay per round; the rest wait for the next round a moment later. */
  replyBatch: 20,
  /** The relay must answer within this, or the attempt counts as failed and is retried later. */
  relayTimeoutMs: 30_000,
  /** Longest pause of the reply sender: replies queued by other instances (or the CLI) are noticed within it. */
  replyIdleMs: 30_000,
  /** Subject shown back in the reply: a subject longer than this is cut (some clients send kilobytes). */
  subjectChars: 200,
} as const;
