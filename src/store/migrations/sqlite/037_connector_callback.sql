-- A connector's callback: a webhook subscriber bound to the connector, which receives production's decisions on
-- that connector's cancellation requests as PrintTalk documents (src/handoff/printtalk-callback.ts). NULL: an
-- ordinary webhook. A nullable column without a default: existing rows are not rewritten.
ALTER TABLE handoff_subscribers ADD COLUMN connector_id TEXT REFERENCES connectors (id);
CREATE INDEX handoff_subscribers_connector ON handoff_subscribers (connector_id) WHERE connector_id IS NOT NULL;
