-- sqlite:foreign_keys=off
-- Issue 17, finishing: e-mail notifications of production status changes (docs/development/handoff.md,
-- "E-mail notifications"). Two tables are rebuilt (SQLite cannot drop a NOT NULL or change a CHECK in place), the
-- procedure of https://sqlite.org/lang_altertable.html#otheralter: the runner turns foreign keys off for this file
-- (dropping handoff_subscribers would otherwise delete every delivery through ON DELETE CASCADE) and runs
-- foreign_key_check before committing.

-- Per customer, set by the operator (`order-intake customer notify`): whether its orders' status changes are mailed,
-- and where an order that did not come by e-mail is notified (it has no sender address). No row: off.
CREATE TABLE customer_notifications (
  customer_id TEXT PRIMARY KEY REFERENCES customers (id),
  enabled     INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  address     TEXT,                         -- lower case; NULL: only orders that came by e-mail are notified
  updated_at  TEXT NOT NULL
) STRICT;

-- Notifications leave through the reply outbox (one queue, one sender, one relay): a notification is a row with no
-- mail message of its own (an order may get several, and one from the REST channel has none). kind says which.
CREATE TABLE mail_replies_new (
  id              TEXT PRIMARY KEY,
  mail_id         TEXT UNIQUE REFERENCES mail_messages (id),
  customer_id     TEXT NOT NULL REFERENCES customers (id),
  recipient       TEXT NOT NULL,
  subject         TEXT NOT NULL,
  raw             BLOB NOT NULL,
  state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL,
  last_error      TEXT,
  created_at      TEXT NOT NULL,
  sent_at         TEXT,
  kind            TEXT NOT NULL DEFAULT 'reply' CHECK (kind IN ('reply', 'notification')),
  order_id        TEXT,
  CHECK ((kind = 'reply') = (mail_id IS NOT NULL))
) STRICT;
INSERT INTO mail_replies_new (id, mail_id, customer_id, recipient, subject, raw, state, attempts, next_attempt_at, last_error,
  created_at, sent_at)
  SELECT id, mail_id, customer_id, recipient, subject, raw, state, attempts, next_attempt_at, last_error, created_at, sent_at
  FROM mail_replies;
DROP TABLE mail_replies;
ALTER TABLE mail_replies_new RENAME TO mail_replies;
CREATE INDEX mail_replies_due ON mail_replies (state, next_attempt_at);
CREATE INDEX mail_replies_created ON mail_replies (created_at);

-- The hand-off subscriber that turns ordine.stato_aggiornato events into notifications (one row, added when an
-- operator first turns notifications on).
CREATE TABLE handoff_subscribers_new (
  id             TEXT PRIMARY KEY,
  kind           TEXT NOT NULL CHECK (kind IN ('webhook', 'export', 'mail')),
  url            TEXT,
  secret_enc     TEXT,
  allow_private  INTEGER NOT NULL DEFAULT 0 CHECK (allow_private IN (0, 1)),
  dir            TEXT,
  format         TEXT CHECK (format IN ('json', 'xml', 'xjdf')),
  events         TEXT NOT NULL,
  cursor         TEXT,
  state          TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
  disabled_reason TEXT,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
) STRICT;
INSERT INTO handoff_subscribers_new SELECT id, kind, url, secret_enc, allow_private, dir, format, events, cursor, state,
  disabled_reason, created_at, updated_at FROM handoff_subscribers;
DROP TABLE handoff_subscribers;
ALTER TABLE handoff_subscribers_new RENAME TO handoff_subscribers;
