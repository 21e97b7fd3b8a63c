-- The order lifecycle: versions of an order and the requests production decides (src/domain/store/lifecycle.ts).
-- The current version stays in orders and order_lines, so every reader of orders sees it; a constant default adds the
-- column without rewriting a row: every existing order is at version 1, made when it was registered.
ALTER TABLE orders ADD COLUMN versione integer NOT NULL DEFAULT 1;
-- When and by which channel the current version was made; NULL while it is version 1 (registered_at, channel).
ALTER TABLE orders ADD COLUMN version_at timestamptz;
ALTER TABLE orders ADD COLUMN version_channel text;

-- Each superseded version, whole: its content as JSON (an Order), for the console's side-by-side view and the events.
CREATE TABLE order_versions (
  order_id      text NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  versione      integer NOT NULL,
  made_at       timestamptz NOT NULL,
  channel       text NOT NULL,
  action        text NOT NULL,
  submission_id text NOT NULL,
  content       jsonb NOT NULL,
  PRIMARY KEY (order_id, versione)
);

CREATE TABLE order_requests (
  id            text PRIMARY KEY,
  order_id      text NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
  customer_id   text NOT NULL,
  kind          text NOT NULL,
  state         text NOT NULL,
  reason        text,
  note          text,
  content       jsonb,
  content_hash  text,
  base_version  integer NOT NULL,
  submission_id text NOT NULL,
  channel       text NOT NULL,
  created_at    timestamptz NOT NULL,
  decided_at    timestamptz,
  -- Judging a submission again finds the request it made instead of making another.
  UNIQUE (submission_id, order_id)
);
CREATE INDEX order_requests_order ON order_requests (order_id, created_at);
-- At most one request of an order waits for production at a time, whichever instance records it.
CREATE UNIQUE INDEX order_requests_waiting ON order_requests (order_id) WHERE state = 'in_attesa';

-- Hot-folder exports write what production works from: a new version and a cancellation are files too. An export
-- that took only registrations (what every export took) takes them from now on.
UPDATE handoff_subscribers SET events = '["ordine.registrato","ordine.modificato","ordine.annullato"]'::jsonb
  WHERE kind = 'export' AND events = '["ordine.registrato"]'::jsonb;
