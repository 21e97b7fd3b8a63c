-- Web console and customer portal (PostgreSQL): same tables and meaning as the SQLite migration 010.

CREATE TABLE operators (
  id            text PRIMARY KEY,
  email         text NOT NULL UNIQUE,  -- lower case, written so by the store
  role          text NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
  password_hash text NOT NULL,
  created_at    timestamptz NOT NULL,
  disabled_at   timestamptz
);

-- The cookie carries a random token; only its SHA-256 is kept, so a copy of the database opens no session.
CREATE TABLE web_sessions (
  token_hash  text PRIMARY KEY,
  kind        text NOT NULL CHECK (kind IN ('operator', 'customer')),
  subject_id  text NOT NULL,
  created_at  timestamptz NOT NULL,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX web_sessions_subject ON web_sessions (kind, subject_id);

CREATE TABLE audit_log (
  id          text PRIMARY KEY,  -- UUIDv7: id order is time order, the keyset of the audit list
  at          timestamptz NOT NULL,
  actor       text NOT NULL,     -- operator e-mail, "cli", or "cliente:<code>"
  action      text NOT NULL,
  object_type text NOT NULL,
  object_id   text NOT NULL,
  detail      json NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_object ON audit_log (object_type, object_id);

CREATE TABLE web_keys (
  name  text PRIMARY KEY,
  value text NOT NULL
);

-- Console lists: newest first, filtered by one of customer, channel or outcome, paged by (received_at, id).
CREATE INDEX submissions_customer_received ON submissions (customer_id, received_at, id);
CREATE INDEX submissions_channel_received ON submissions (channel, received_at, id);
CREATE INDEX submissions_esito_received ON submissions ((outcome->>'esito'), received_at, id);
CREATE INDEX order_attempts_ref ON order_attempts (riferimento_ordine);
CREATE INDEX submissions_received_id ON submissions (received_at, id);
CREATE INDEX orders_registered_id ON orders (registered_at, id);
CREATE INDEX orders_customer_registered_id ON orders (customer_id, registered_at, id);
CREATE INDEX orders_channel_registered ON orders (channel, registered_at, id);
CREATE INDEX orders_ref ON orders (riferimento_ordine);
