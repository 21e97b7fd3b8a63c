-- Web console and customer portal (SQLite): operator accounts, server-side sessions (so that logging out really
-- revokes a cookie), the operators' audit log, the key that signs session cookies (shared by every process on
-- the file), and the indexes the console's filtered, keyset-paginated lists need to stay fast with millions of rows.

CREATE TABLE operators (
  id            TEXT PRIMARY KEY,
  email         TEXT NOT NULL UNIQUE,  -- lower case, written so by the store
  role          TEXT NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  password_hash TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  disabled_at   TEXT
) STRICT;

-- The cookie carries a random token; only its SHA-256 is kept, so a copy of the database opens no session.
CREATE TABLE web_sessions (
  token_hash  TEXT PRIMARY KEY,
  kind        TEXT NOT NULL CHECK (kind IN ('operator', 'customer')),
  subject_id  TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  expires_at  TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX web_sessions_subject ON web_sessions (kind, subject_id);

CREATE TABLE audit_log (
  id          TEXT PRIMARY KEY,  -- UUIDv7: id order is time order, the keyset of the audit list
  at          TEXT NOT NULL,
  actor       TEXT NOT NULL,     -- operator e-mail, "cli", or "cliente:<code>"
  action      TEXT NOT NULL,
  object_type TEXT NOT NULL,
  object_id   TEXT NOT NULL,
  detail      TEXT NOT NULL DEFAULT '{}'  -- JSON object
) STRICT;
CREATE INDEX audit_log_object ON audit_log (object_type, object_id);

CREATE TABLE web_keys (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

-- Console lists: newest first, filtered by one of customer, channel or outcome, paged by (received_at, id).
CREATE INDEX submissions_customer_received ON submissions (customer_id, received_at, id);
CREATE INDEX submissions_channel_received ON submissions (channel, received_at, id);
CREATE INDEX submissions_esito_received ON submissions (json_extract(outcome, '$.esito'), received_at, id);
CREATE INDEX order_attempts_ref ON order_attempts (riferimento_ordine);
CREATE INDEX submissions_received_id ON submissions (received_at, id);
CREATE INDEX orders_registered_id ON orders (registered_at, id);
CREATE INDEX orders_customer_registered_id ON orders (customer_id, registered_at, id);
CREATE INDEX orders_channel_registered ON orders (channel, registered_at, id);
CREATE INDEX orders_ref ON orders (riferimento_ordine);
