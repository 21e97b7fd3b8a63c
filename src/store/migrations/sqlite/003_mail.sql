-- The e-mail channel (SQLite): received messages, the order attachments derived from them, the reply outbox and
-- the IMAP mailboxes watched for customers. Timestamps are ISO-8601 UTC text in one spelling, as in 001. Claims
-- (which message or reply someone is working on) are not here: SQLite serves one process, which keeps them in memory.

CREATE TABLE mail_messages (
  id               TEXT PRIMARY KEY,
  customer_id      TEXT NOT NULL REFERENCES customers (id),
  source           TEXT NOT NULL CHECK (source IN ('smtp', 'imap')),
  envelope_from    TEXT,                        -- SMTP MAIL FROM; '' is the null sender of bounces
  recipients       TEXT NOT NULL DEFAULT '[]',  -- JSON array
  message_id       TEXT,
  raw              BLOB NOT NULL,
  sha256           TEXT NOT NULL,
  remote           TEXT,
  imap_account_id  TEXT,
  imap_uidvalidity TEXT,
  imap_uid         INTEGER,
  received_at      TEXT NOT NULL,
  state            TEXT NOT NULL DEFAULT 'received' CHECK (state IN ('received', 'done')),
  done_at          TEXT,
  result           TEXT                         -- JSON MailResult
) STRICT;
CREATE INDEX mail_messages_pending ON mail_messages (state, received_at);
CREATE INDEX mail_messages_customer ON mail_messages (customer_id, received_at);
CREATE INDEX mail_messages_received ON mail_messages (received_at);
-- One IMAP message is stored once, whatever crash or restart happens between storing and moving it.
CREATE UNIQUE INDEX mail_messages_imap_uid ON mail_messages (imap_account_id, imap_uidvalidity, imap_uid)
  WHERE imap_account_id IS NOT NULL;
CREATE INDEX mail_messages_imap_message_id ON mail_messages (imap_account_id, message_id) WHERE imap_account_id IS NOT NULL;

CREATE TABLE mail_parts (
  mail_id       TEXT NOT NULL REFERENCES mail_messages (id),
  idx           INTEGER NOT NULL,
  submission_id TEXT NOT NULL REFERENCES submissions (id),
  PRIMARY KEY (mail_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE mail_replies (
  id              TEXT PRIMARY KEY,
  mail_id         TEXT NOT NULL UNIQUE REFERENCES mail_messages (id),
  customer_id     TEXT NOT NULL REFERENCES customers (id),
  recipient       TEXT NOT NULL,
  subject         TEXT NOT NULL,
  raw             BLOB NOT NULL,
  state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  last_error      TEXT,
  created_at      TEXT NOT NULL,
  sent_at         TEXT
) STRICT;
CREATE INDEX mail_replies_due ON mail_replies (state, next_attempt_at);
CREATE INDEX mail_replies_created ON mail_replies (created_at);

CREATE TABLE imap_accounts (
  id               TEXT PRIMARY KEY,
  customer_id      TEXT NOT NULL UNIQUE REFERENCES customers (id),
  host             TEXT NOT NULL,
  port             INTEGER NOT NULL,
  tls              INTEGER NOT NULL CHECK (tls IN (0, 1)),
  username         TEXT NOT NULL,
  password_enc     TEXT NOT NULL,              -- sealed with INTAKE_SECRET_KEY, never the clear text
  folder           TEXT NOT NULL,
  processed_folder TEXT,                       -- NULL: stored messages are flagged, not moved
  uidvalidity      TEXT,
  last_uid         INTEGER NOT NULL DEFAULT 0,
  last_error       TEXT,
  last_checked_at  TEXT,
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL
) STRICT;
