-- sqlite:foreign_keys=off
-- Issue 16, target 1: fewer B-trees keyed by an order's reference. Every index is one more B-tree each commit of the
-- write thread changes; a key that arrives in no order (references from many customers) lands on a leaf of its own,
-- a page per order per index (docs/development/sqlite-write-thread.md, "Pages per commit"). Orders carried three
-- such indexes and attempts two, where one each answers every question asked:
--   orders: the identity UNIQUE (codice_cliente, riferimento_ordine), orders_customer_ref (customer_id, riferimento_ordine)
--     and orders_ref (riferimento_ordine) become one, the identity with the reference first. It still forbids two rows
--     for one order; a lookup by reference alone (the console, a connector's status) takes its prefix; a customer's
--     lookup by reference takes the prefix and keeps that customer's rows: a reference names a handful of orders,
--     one per customer code that used it.
--   order_attempts: (customer_id, riferimento_ordine, received_at) and (riferimento_ordine) become
--     (riferimento_ordine, customer_id, received_at), which serves both.
-- And UNIQUE (year, seq) goes: numero_ordine is `<year>-<seq>`, made by one function from the two, so its own UNIQUE
-- already forbids a number given twice, and nothing looks an order up by (year, seq) on SQLite (the counter is
-- order_sequences). test/store/query-plans*.test.ts check that each lookup still takes an index.
--
-- SQLite changes a table's UNIQUE constraints only by rebuilding it, the procedure of
-- https://sqlite.org/lang_altertable.html#otheralter: foreign keys are off for this file (order_lines,
-- order_tickets and order_production_history reference orders) and checked by the runner before it commits. On a
-- large database this rewrites the orders table once: run `order-intake db migrate` at a quiet hour.
CREATE TABLE orders_new (
  id                 TEXT PRIMARY KEY,
  customer_id        TEXT NOT NULL REFERENCES customers (id),
  codice_cliente     TEXT NOT NULL,
  riferimento_ordine TEXT NOT NULL,
  numero_ordine      TEXT NOT NULL UNIQUE,
  year               INTEGER NOT NULL,
  seq                INTEGER NOT NULL,
  data_ordine        TEXT NOT NULL,  -- YYYY-MM-DD
  data_consegna      TEXT,
  content_hash       TEXT NOT NULL,
  submission_id      TEXT NOT NULL REFERENCES submissions (id),
  channel            TEXT NOT NULL,
  site               TEXT,
  registered_at      TEXT NOT NULL,
  production_state   TEXT,
  -- The order identity across every channel: never two rows for it.
  UNIQUE (riferimento_ordine, codice_cliente)
) STRICT;
INSERT INTO orders_new (id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine, data_consegna,
  content_hash, submission_id, channel, site, registered_at, production_state)
  SELECT id, customer_id, codice_cliente, riferimento_ordine, numero_ordine, year, seq, data_ordine, data_consegna,
  content_hash, submission_id, channel, site, registered_at, production_state
  FROM orders ORDER BY rowid;
DROP TABLE orders;
ALTER TABLE orders_new RENAME TO orders;
CREATE INDEX orders_submission ON orders (submission_id);
CREATE INDEX orders_registered_id ON orders (registered_at, id);
CREATE INDEX orders_customer_registered_id ON orders (customer_id, registered_at, id);
CREATE INDEX orders_channel_registered ON orders (channel, registered_at, id);

DROP INDEX IF EXISTS order_attempts_customer_ref;
DROP INDEX IF EXISTS order_attempts_ref;
CREATE INDEX order_attempts_ref ON order_attempts (riferimento_ordine, customer_id, received_at);
