-- A connector's callback: same column and meaning as the SQLite migration 037.
ALTER TABLE handoff_subscribers ADD COLUMN connector_id text REFERENCES connectors (id);
CREATE INDEX handoff_subscribers_connector ON handoff_subscribers (connector_id) WHERE connector_id IS NOT NULL;
