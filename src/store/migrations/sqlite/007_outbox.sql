-- Issue 17: the transactional outbox, integration keys, and production status coming back from the ERP/MIS.

-- Every order event, written in the same transaction as the change it describes. One process writes (the group
-- commit of sqlite-writer.ts), so commit order is seq order and seq alone is the stream's position.
-- AUTOINCREMENT so that a seq is never handed out twice, even if the newest rows were ever deleted: a cursor
-- must never come to mean another event.
CREATE TABLE order_events (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  id          TEXT NOT NULL UNIQUE,
  type        TEXT NOT NULL,
  time        TEXT NOT NULL,
  order_id    TEXT,
  customer_id TEXT NOT NULL REFERENCES customers (id),
  data        TEXT NOT NULL
) STRICT;
CREATE INDEX order_events_order ON order_events (order_id);

-- Keys of the systems production runs on (ERP, MIS, prepress): they read every customer's events and report
-- production status back. Not customers, so not in credentials (whose rows each belong to a customer).
CREATE TABLE integrations (
  id          TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  key_id      TEXT NOT NULL UNIQUE,
  secret_hash TEXT NOT NULL,
  created_at  TEXT NOT NULL,
  rotated_at  TEXT,
  revoked_at  TEXT
) STRICT;
CREATE UNIQUE INDEX integrations_active_name ON integrations (name) WHERE revoked_at IS NULL;

-- Production state of a registered order (NULL: production has said nothing yet), and its history.
ALTER TABLE orders ADD COLUMN production_state TEXT;
CREATE TABLE order_production_history (
  order_id    TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  idx         INTEGER NOT NULL,
  stato       TEXT NOT NULL,
  nota        TEXT,
  at          TEXT NOT NULL,
  integration TEXT NOT NULL,
  PRIMARY KEY (order_id, idx)
) STRICT;
