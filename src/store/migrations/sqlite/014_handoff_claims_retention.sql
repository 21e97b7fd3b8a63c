-- Issue 17, finishing: faster delivery claims, and event retention.

-- The claim reads pending deliveries "earliest due first, then in fan-out order". With the index on next_attempt_at
-- alone, every delivery queued by one fan-out page shares one next_attempt_at, so each claim read and sorted the
-- whole backlog before taking its batch; with seq in the index it reads the batch in index order and stops.
DROP INDEX handoff_deliveries_due;
CREATE INDEX handoff_deliveries_due ON handoff_deliveries (next_attempt_at, seq) WHERE state = 'pending';
-- Retention keeps every event a delivery is still pending for: "is there a pending delivery of this event?".
CREATE INDEX handoff_deliveries_pending_event ON handoff_deliveries (event_id) WHERE state = 'pending';

-- How far retention has deleted the event stream (the seq of the newest event deleted; one row at most): a feed
-- cursor at or below it names an event that existed and was deleted (the reader must resync), not a made-up one.
CREATE TABLE order_events_pruned (
  one     INTEGER PRIMARY KEY CHECK (one = 1),
  through INTEGER NOT NULL
) STRICT;
