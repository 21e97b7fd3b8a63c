-- Initial schema (SQLite). Timestamps are ISO-8601 UTC text written by the service in one spelling, so text
-- order is time order. STRICT tables make SQLite refuse values of the wrong type, as PostgreSQL would.

CREATE TABLE customers (
  id         TEXT PRIMARY KEY,
  code       TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  mailbox    TEXT NOT NULL UNIQUE,  -- lower case, written so by the store
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE credentials (
  id          TEXT PRIMARY KEY,
  customer_id TEXT NOT NULL REFERENCES customers (id),
  kind        TEXT NOT NULL CHECK (kind IN ('api_key', 'password', 'connector')),
  lookup      TEXT NOT NULL,
  secret_hash TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  revoked_at  TEXT
) STRICT;
-- Revoked credentials stay for the record; only active ones must be unambiguous.
CREATE UNIQUE INDEX credentials_active_lookup ON credentials (kind, lookup) WHERE revoked_at IS NULL;
CREATE INDEX credentials_customer ON credentials (customer_id, kind);

CREATE TABLE articles (
  codice_articolo TEXT PRIMARY KEY,
  descrizione     TEXT NOT NULL,
  unita_misura    TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE units (
  code        TEXT PRIMARY KEY,  -- upper case, written so by the store
  description TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE submissions (
  id                TEXT PRIMARY KEY,
  customer_id       TEXT NOT NULL REFERENCES customers (id),
  customer_code     TEXT NOT NULL,
  channel           TEXT NOT NULL,
  file_name         TEXT,
  media_type        TEXT,
  charset           TEXT,
  raw               BLOB NOT NULL,
  meta              TEXT NOT NULL DEFAULT '{}',  -- JSON object
  single_order      INTEGER NOT NULL DEFAULT 0 CHECK (single_order IN (0, 1)),
  site              TEXT,
  sites             TEXT,                        -- JSON array
  connector_id      TEXT,
  reserved_order_id TEXT,
  sha256            TEXT NOT NULL,
  received_at       TEXT NOT NULL,
  state             TEXT NOT NULL DEFAULT 'received' CHECK (state IN ('received', 'processed', 'failed')),
  outcome           TEXT,                        -- JSON Outcome
  processed_at      TEXT,
  attempts          INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX submissions_state_received ON submissions (state, received_at);
CREATE INDEX submissions_customer_sha ON submissions (customer_id, sha256);
CREATE INDEX submissions_customer_reserved ON submissions (customer_id, reserved_order_id);
CREATE INDEX submissions_received ON submissions (received_at);

CREATE TABLE orders (
  id                 TEXT PRIMARY KEY,
  customer_id        TEXT NOT NULL REFERENCES customers (id),
  codice_cliente     TEXT NOT NULL,
  riferimento_ordine TEXT NOT NULL,
  numero_ordine      TEXT NOT NULL UNIQUE,
  year               INTEGER NOT NULL,
  seq                INTEGER NOT NULL,
  data_ordine        TEXT NOT NULL,  -- YYYY-MM-DD
  data_consegna      TEXT,
  content_hash       TEXT NOT NULL,
  submission_id      TEXT NOT NULL REFERENCES submissions (id),
  channel            TEXT NOT NULL,
  site               TEXT,
  registered_at      TEXT NOT NULL,
  -- The order identity across every channel: never two rows for it.
  UNIQUE (codice_cliente, riferimento_ordine),
  UNIQUE (year, seq)
) STRICT;
CREATE INDEX orders_customer_ref ON orders (customer_id, riferimento_ordine);
CREATE INDEX orders_customer_registered ON orders (customer_id, registered_at);
CREATE INDEX orders_registered ON orders (registered_at);
CREATE INDEX orders_submission ON orders (submission_id);

CREATE TABLE order_lines (
  order_id        TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  idx             INTEGER NOT NULL,
  codice_articolo TEXT NOT NULL,
  quantita        REAL NOT NULL,
  unita_misura    TEXT NOT NULL,
  PRIMARY KEY (order_id, idx)
) STRICT, WITHOUT ROWID;

CREATE TABLE order_sequences (
  year INTEGER PRIMARY KEY,
  last INTEGER NOT NULL
) STRICT;

CREATE TABLE order_attempts (
  submission_id      TEXT NOT NULL REFERENCES submissions (id),
  idx                INTEGER NOT NULL,
  customer_id        TEXT NOT NULL,
  riferimento_ordine TEXT NOT NULL,
  esito              TEXT NOT NULL,
  outcome            TEXT NOT NULL,  -- JSON OrderOutcome
  received_at        TEXT NOT NULL,
  channel            TEXT NOT NULL,
  PRIMARY KEY (submission_id, idx)
) STRICT, WITHOUT ROWID;
CREATE INDEX order_attempts_customer_ref ON order_attempts (customer_id, riferimento_ordine, received_at);
