-- Who may order by e-mail, and what was held back. The authentication results of a received message (SPF, DKIM,
-- DMARC, ARC: JSON MailAuth with its Authentication-Results header) and the HELO name it was sent with are kept
-- with it; a message held by a customer's sender policy or by a DNS failure is finished without a reply and listed
-- in mail_holds until an operator releases it (it is derived again, judged as passed) or discards it.
-- Nullable columns without a default: existing rows are not rewritten.
ALTER TABLE mail_messages ADD COLUMN helo TEXT;
ALTER TABLE mail_messages ADD COLUMN auth TEXT;           -- JSON MailAuth
-- The authserv-id of the provider whose Authentication-Results are trusted for that mailbox; NULL: none is.
ALTER TABLE imap_accounts ADD COLUMN authserv_id TEXT;

CREATE TABLE mail_holds (
  mail_id     TEXT PRIMARY KEY REFERENCES mail_messages (id),
  customer_id TEXT NOT NULL REFERENCES customers (id),
  reason      TEXT NOT NULL,
  sender      TEXT,
  detail      TEXT,
  held_at     TEXT NOT NULL,
  state       TEXT NOT NULL DEFAULT 'held' CHECK (state IN ('held', 'released', 'discarded', 'retried')),
  decided_by  TEXT,
  decided_at  TEXT
) STRICT;
CREATE INDEX mail_holds_state ON mail_holds (state, held_at);

CREATE TABLE customer_mail_policies (
  customer_id TEXT PRIMARY KEY REFERENCES customers (id),
  mode        TEXT NOT NULL CHECK (mode IN ('qualsiasi', 'elenco', 'autenticato')),
  allow       TEXT NOT NULL DEFAULT '[]',              -- JSON array of addresses and @domains (lower case)
  notify_held INTEGER NOT NULL DEFAULT 0 CHECK (notify_held IN (0, 1)),
  updated_at  TEXT NOT NULL
) STRICT;
