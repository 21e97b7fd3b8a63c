-- Hand-off subscribers and their deliveries (SQLite). A subscriber is a webhook endpoint or a hot-folder export; each
-- reads the order event stream with a cursor of its own. The fan-out (one instance at a time, under a named lease)
-- turns every event after the cursor that matches the subscriber's filter into one delivery row and advances the
-- cursor in the same transaction, so an event is neither skipped nor queued twice for the same subscriber.
-- Times that are compared (next attempt, claim lease) are milliseconds since the epoch from the process clock, as
-- in leases (002); the rest are ISO-8601 text.

CREATE TABLE handoff_subscribers (
  id             TEXT PRIMARY KEY,
  kind           TEXT NOT NULL CHECK (kind IN ('webhook', 'export')),
  url            TEXT,                      -- webhook
  secret_enc     TEXT,                      -- webhook: signing secret sealed with INTAKE_SECRET_KEY, never the clear text
  allow_private  INTEGER NOT NULL DEFAULT 0 CHECK (allow_private IN (0, 1)),
  dir            TEXT,                      -- export: absolute folder
  format         TEXT CHECK (format IN ('json', 'xml', 'xjdf')),
  events         TEXT NOT NULL,             -- JSON array of event types this subscriber receives
  cursor         TEXT,                      -- last event fanned out (NULL: none yet)
  state          TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
  disabled_reason TEXT,
  created_at     TEXT NOT NULL,
  updated_at     TEXT NOT NULL
) STRICT;

CREATE TABLE handoff_deliveries (
  id              TEXT PRIMARY KEY,
  seq             INTEGER NOT NULL,         -- fan-out order within the subscriber (1, 2, …): its event order
  subscriber_id   TEXT NOT NULL REFERENCES handoff_subscribers (id) ON DELETE CASCADE,
  event_id        TEXT NOT NULL,
  event_type      TEXT NOT NULL,
  order_key       TEXT NOT NULL,            -- id_ordine (or the reference of a refused order): per-order ordering
  body            TEXT NOT NULL,            -- the event JSON exactly as delivered on every attempt
  state           TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  claimed_by      TEXT,
  lease_until     INTEGER,
  last_status     INTEGER,
  last_error      TEXT,
  created_at      TEXT NOT NULL,
  retry_since     INTEGER NOT NULL,         -- start of the current retry period (creation, or the last replay)
  finished_at     TEXT,
  UNIQUE (subscriber_id, event_id),
  UNIQUE (subscriber_id, seq)
) STRICT;
-- The dispatcher reads pending rows that are due; done and failed ones (nearly all) stay out of the way.
CREATE INDEX handoff_deliveries_due ON handoff_deliveries (next_attempt_at) WHERE state = 'pending';
-- "Is an earlier delivery of this order to this subscriber still pending?"
CREATE INDEX handoff_deliveries_order ON handoff_deliveries (subscriber_id, order_key, seq) WHERE state = 'pending';
