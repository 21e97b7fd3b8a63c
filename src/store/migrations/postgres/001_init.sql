-- Initial schema (PostgreSQL). Same tables and meaning as the SQLite schema; JSON columns are `json`, not
-- `jsonb`, so that what was written is what is read back (jsonb reorders keys and refuses \u0000).

CREATE TABLE customers (
  id         text PRIMARY KEY,
  code       text NOT NULL UNIQUE,
  name       text NOT NULL,
  mailbox    text NOT NULL UNIQUE,  -- lower case, written so by the store
  created_at timestamptz NOT NULL
);

CREATE TABLE credentials (
  id          text PRIMARY KEY,
  customer_id text NOT NULL REFERENCES customers (id),
  kind        text NOT NULL CHECK (kind IN ('api_key', 'password', 'connector')),
  lookup      text NOT NULL,
  secret_hash text NOT NULL,
  created_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
-- Revoked credentials stay for the record; only active ones must be unambiguous.
CREATE UNIQUE INDEX credentials_active_lookup ON credentials (kind, lookup) WHERE revoked_at IS NULL;
CREATE INDEX credentials_customer ON credentials (customer_id, kind);

CREATE TABLE articles (
  codice_articolo text PRIMARY KEY,
  descrizione     text NOT NULL,
  unita_misura    text NOT NULL
);

CREATE TABLE units (
  code        text PRIMARY KEY,  -- upper case, written so by the store
  description text NOT NULL
);

CREATE TABLE submissions (
  id                text PRIMARY KEY,
  customer_id       text NOT NULL REFERENCES customers (id),
  customer_code     text NOT NULL,
  channel           text NOT NULL,
  file_name         text,
  media_type        text,
  charset           text,
  raw               bytea NOT NULL,
  meta              json NOT NULL DEFAULT '{}',
  single_order      boolean NOT NULL DEFAULT false,
  site              text,
  sites             json,
  connector_id      text,
  reserved_order_id text,
  sha256            text NOT NULL,
  received_at       timestamptz NOT NULL,
  state             text NOT NULL DEFAULT 'received' CHECK (state IN ('received', 'processed', 'failed')),
  outcome           json,
  processed_at      timestamptz,
  attempts          integer NOT NULL DEFAULT 0
);
CREATE INDEX submissions_state_received ON submissions (state, received_at);
CREATE INDEX submissions_customer_sha ON submissions (customer_id, sha256);
CREATE INDEX submissions_customer_reserved ON submissions (customer_id, reserved_order_id);
CREATE INDEX submissions_received ON submissions (received_at);

CREATE TABLE orders (
  id                 text PRIMARY KEY,
  customer_id        text NOT NULL REFERENCES customers (id),
  codice_cliente     text NOT NULL,
  riferimento_ordine text NOT NULL,
  numero_ordine      text NOT NULL UNIQUE,
  year               integer NOT NULL,
  seq                integer NOT NULL,
  data_ordine        date NOT NULL,
  data_consegna      date,
  content_hash       text NOT NULL,
  submission_id      text NOT NULL REFERENCES submissions (id),
  channel            text NOT NULL,
  site               text,
  registered_at      timestamptz NOT NULL,
  -- The order identity across every channel and every instance: INSERT … ON CONFLICT relies on it.
  CONSTRAINT orders_identity UNIQUE (codice_cliente, riferimento_ordine),
  UNIQUE (year, seq)
);
CREATE INDEX orders_customer_ref ON orders (customer_id, riferimento_ordine);
CREATE INDEX orders_customer_registered ON orders (customer_id, registered_at);
CREATE INDEX orders_registered ON orders (registered_at);
CREATE INDEX orders_submission ON orders (submission_id);

CREATE TABLE order_lines (
  order_id        text NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  idx             integer NOT NULL,
  codice_articolo text NOT NULL,
  quantita        double precision NOT NULL,
  unita_misura    text NOT NULL,
  PRIMARY KEY (order_id, idx)
);

CREATE TABLE order_sequences (
  year integer PRIMARY KEY,
  last integer NOT NULL
);

CREATE TABLE order_attempts (
  submission_id      text NOT NULL REFERENCES submissions (id),
  idx                integer NOT NULL,
  customer_id        text NOT NULL,
  riferimento_ordine text NOT NULL,
  esito              text NOT NULL,
  outcome            json NOT NULL,
  received_at        timestamptz NOT NULL,
  channel            text NOT NULL,
  PRIMARY KEY (submission_id, idx)
);
CREATE INDEX order_attempts_customer_ref ON order_attempts (customer_id, riferimento_ordine, received_at);
