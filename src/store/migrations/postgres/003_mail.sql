-- The e-mail channel (PostgreSQL): same tables and meaning as the SQLite migration 003. UIDs are bigint because
-- IMAP UIDs go up to 2^32-1, past integer.

CREATE TABLE mail_messages (
  id               text PRIMARY KEY,
  customer_id      text NOT NULL REFERENCES customers (id),
  source           text NOT NULL CHECK (source IN ('smtp', 'imap')),
  envelope_from    text,                        -- SMTP MAIL FROM; '' is the null sender of bounces
  recipients       json NOT NULL DEFAULT '[]',
  message_id       text,
  raw              bytea NOT NULL,
  sha256           text NOT NULL,
  remote           text,
  imap_account_id  text,
  imap_uidvalidity text,
  imap_uid         bigint,
  received_at      timestamptz NOT NULL,
  state            text NOT NULL DEFAULT 'received' CHECK (state IN ('received', 'done')),
  claimed_until    timestamptz,
  done_at          timestamptz,
  result           json
);
CREATE INDEX mail_messages_pending ON mail_messages (state, received_at);
CREATE INDEX mail_messages_customer ON mail_messages (customer_id, received_at);
CREATE INDEX mail_messages_received ON mail_messages (received_at);
-- One IMAP message is stored once, whatever crash, restart or second instance happens between storing and moving it.
CREATE UNIQUE INDEX mail_messages_imap_uid ON mail_messages (imap_account_id, imap_uidvalidity, imap_uid)
  WHERE imap_account_id IS NOT NULL;
CREATE INDEX mail_messages_imap_message_id ON mail_messages (imap_account_id, message_id) WHERE imap_account_id IS NOT NULL;

CREATE TABLE mail_parts (
  mail_id       text NOT NULL REFERENCES mail_messages (id),
  idx           integer NOT NULL,
  submission_id text NOT NULL REFERENCES submissions (id),
  PRIMARY KEY (mail_id, idx)
);

CREATE TABLE mail_replies (
  id              text PRIMARY KEY,
  mail_id         text NOT NULL UNIQUE REFERENCES mail_messages (id),
  customer_id     text NOT NULL REFERENCES customers (id),
  recipient       text NOT NULL,
  subject         text NOT NULL,
  raw             bytea NOT NULL,
  state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error      text,
  created_at      timestamptz NOT NULL,
  sent_at         timestamptz
);
CREATE INDEX mail_replies_due ON mail_replies (state, next_attempt_at);
CREATE INDEX mail_replies_created ON mail_replies (created_at);

CREATE TABLE imap_accounts (
  id               text PRIMARY KEY,
  customer_id      text NOT NULL UNIQUE REFERENCES customers (id),
  host             text NOT NULL,
  port             integer NOT NULL,
  tls              boolean NOT NULL,
  username         text NOT NULL,
  password_enc     text NOT NULL,              -- sealed with INTAKE_SECRET_KEY, never the clear text
  folder           text NOT NULL,
  processed_folder text,                       -- NULL: stored messages are flagged, not moved
  uidvalidity      text,
  last_uid         bigint NOT NULL DEFAULT 0,
  last_error       text,
  last_checked_at  timestamptz,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL
);
