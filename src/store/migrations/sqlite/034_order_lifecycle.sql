-- The order lifecycle: versions of an order and the requests production decides (src/domain/store/lifecycle.ts).
-- The current version stays in orders and order_lines, so every reader of orders sees it; a constant default adds the
-- column without rewriting a row: every existing order is at version 1, made when it was registered.
ALTER TABLE orders ADD COLUMN versione INTEGER NOT NULL DEFAULT 1;
-- When and by which channel the current version was made; NULL while it is version 1 (registered_at, channel).
ALTER TABLE orders ADD COLUMN version_at TEXT;
ALTER TABLE orders ADD COLUMN version_channel TEXT;

-- Each superseded version, whole: its content as JSON (an Order), for the console's side-by-side view and the events.
CREATE TABLE order_versions (
  order_id      TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  versione      INTEGER NOT NULL,
  made_at       TEXT NOT NULL,
  channel       TEXT NOT NULL,
  action        TEXT NOT NULL,
  submission_id TEXT NOT NULL,
  content       TEXT NOT NULL,
  PRIMARY KEY (order_id, versione)
) STRICT, WITHOUT ROWID;

CREATE TABLE order_requests (
  id            TEXT PRIMARY KEY,
  order_id      TEXT NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  customer_id   TEXT NOT NULL,
  kind          TEXT NOT NULL,
  state         TEXT NOT NULL,
  reason        TEXT,
  note          TEXT,
  content       TEXT,
  content_hash  TEXT,
  base_version  INTEGER NOT NULL,
  submission_id TEXT NOT NULL,
  channel       TEXT NOT NULL,
  created_at    TEXT NOT NULL,
  decided_at    TEXT,
  -- Judging a submission again finds the request it made instead of making another.
  UNIQUE (submission_id, order_id)
) STRICT;
CREATE INDEX order_requests_order ON order_requests (order_id, created_at);
-- At most one request of an order waits for production at a time, whichever instance records it.
CREATE UNIQUE INDEX order_requests_waiting ON order_requests (order_id) WHERE state = 'in_attesa';

-- Hot-folder exports write what production works from: a new version and a cancellation are files too. An export
-- that took only registrations (what every export took) takes them from now on.
UPDATE handoff_subscribers SET events = '["ordine.registrato","ordine.modificato","ordine.annullato"]'
  WHERE kind = 'export' AND events = '["ordine.registrato"]';
