-- Delivery claims are shared out per subscriber (ClaimOptions, src/domain/store/handoff.ts): each active subscriber's
-- earliest due deliveries, a few each, then the earliest of those. Earliest due over all subscribers let one
-- endpoint's backlog take every delivery a dispatcher held, and a receiver that never answered held back the hot
-- folder and every other webhook. The claim reads one range of this index per subscriber and stops at its share;
-- the index on (next_attempt_at, seq) alone, which it replaces, would walk past another subscriber's backlog.
DROP INDEX IF EXISTS handoff_deliveries_due;
CREATE INDEX handoff_deliveries_subscriber_due ON handoff_deliveries (subscriber_id, next_attempt_at, seq) WHERE state = 'pending';
