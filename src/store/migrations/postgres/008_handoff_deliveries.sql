-- Hand-off subscribers and their deliveries (PostgreSQL). A subscriber is a webhook endpoint or a hot-folder export;
-- each reads the order event stream with a cursor of its own. The fan-out (one instance at a time, under a named
-- lease) turns every event after the cursor that matches the subscriber's filter into one delivery row and advances
-- the cursor in the same transaction. Deliveries are claimed with FOR UPDATE SKIP LOCKED and a lease, so exactly one
-- instance delivers a given delivery at a time; times come from the database clock.

CREATE TABLE handoff_subscribers (
  id             text PRIMARY KEY,
  kind           text NOT NULL CHECK (kind IN ('webhook', 'export')),
  url            text,                      -- webhook
  secret_enc     text,                      -- webhook: signing secret sealed with INTAKE_SECRET_KEY, never the clear text
  allow_private  boolean NOT NULL DEFAULT false,
  dir            text,                      -- export: absolute folder
  format         text CHECK (format IN ('json', 'xml', 'xjdf')),
  events         jsonb NOT NULL,            -- array of event types this subscriber receives
  cursor         text,                      -- last event fanned out (NULL: none yet)
  state          text NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
  disabled_reason text,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL
);

CREATE TABLE handoff_deliveries (
  id              text PRIMARY KEY,
  seq             bigint NOT NULL,          -- fan-out order within the subscriber (1, 2, …): its event order
  subscriber_id   text NOT NULL REFERENCES handoff_subscribers (id) ON DELETE CASCADE,
  event_id        text NOT NULL,
  event_type      text NOT NULL,
  order_key       text NOT NULL,            -- id_ordine (or the reference of a refused order): per-order ordering
  body            text NOT NULL,            -- the event JSON exactly as delivered on every attempt
  state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  claimed_by      text,
  lease_until     timestamptz,
  last_status     integer,
  last_error      text,
  created_at      timestamptz NOT NULL,
  retry_since     timestamptz NOT NULL,     -- start of the current retry period (creation, or the last replay)
  finished_at     timestamptz,
  UNIQUE (subscriber_id, event_id),
  UNIQUE (subscriber_id, seq)
);
CREATE INDEX handoff_deliveries_due ON handoff_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX handoff_deliveries_order ON handoff_deliveries (subscriber_id, order_key, seq) WHERE state = 'pending';
