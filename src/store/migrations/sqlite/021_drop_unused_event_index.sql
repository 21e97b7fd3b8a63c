-- Issue 17, the outbox's cost: every event paid one index insert more than it needs. order_events (order_id) has
-- served no query since migration 007 (the feed, the fan-out and retention read by position; deliveries are kept in
-- per-order sequence by their own order_key), and an index only written is a cost on every registration: on SQLite
-- a B-tree insert and one more page in each commit of the write thread, which bounds REST throughput there.
DROP INDEX IF EXISTS order_events_order;
