-- Issue 17: the transactional outbox, integration keys, and production status coming back from the ERP/MIS.

-- Every order event, written in the same transaction as the change it describes. Several instances commit out of
-- seq order, so seq alone cannot be the stream's position: each row also keeps the id of the transaction that
-- wrote it (xid8, never wraps), the stream is ordered by (xid, seq), and readers only see rows whose xid is below
-- the oldest transaction still running (pg_snapshot_xmin): nothing can ever appear behind a cursor handed out.
-- See docs/development/outbox.md.
CREATE TABLE order_events (
  xid         xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq         bigint GENERATED ALWAYS AS IDENTITY,
  id          text NOT NULL UNIQUE,
  type        text NOT NULL,
  time        timestamptz NOT NULL,
  order_id    text,
  customer_id text NOT NULL REFERENCES customers (id),
  data        jsonb NOT NULL,
  PRIMARY KEY (xid, seq)
);
CREATE INDEX order_events_order ON order_events (order_id);

-- Keys of the systems production runs on (ERP, MIS, prepress): they read every customer's events and report
-- production status back. Not customers, so not in credentials (whose rows each belong to a customer).
CREATE TABLE integrations (
  id          text PRIMARY KEY,
  name        text NOT NULL,
  key_id      text NOT NULL UNIQUE,
  secret_hash text NOT NULL,
  created_at  timestamptz NOT NULL,
  rotated_at  timestamptz,
  revoked_at  timestamptz
);
CREATE UNIQUE INDEX integrations_active_name ON integrations (name) WHERE revoked_at IS NULL;

-- Production state of a registered order (NULL: production has said nothing yet), and its history.
ALTER TABLE orders ADD COLUMN production_state text;
CREATE TABLE order_production_history (
  order_id    text NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  idx         integer NOT NULL,
  stato       text NOT NULL,
  nota        text,
  at          timestamptz NOT NULL,
  integration text NOT NULL,
  PRIMARY KEY (order_id, idx)
);
