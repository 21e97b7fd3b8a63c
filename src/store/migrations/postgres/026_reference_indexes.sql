-- As sqlite/026: one B-tree keyed by an order's reference per table instead of three on orders and two on
-- order_attempts. References from many customers arrive in no order, so each such index dirties a leaf of its own
-- per order, and after each checkpoint writes that leaf's full-page image to the WAL.
--   orders: the identity constraint keeps its name (INSERT … ON CONFLICT ON CONSTRAINT orders_identity) with the
--     reference first, and serves the lookups by reference alone (its prefix) and by customer and reference (its
--     prefix, then that customer's rows: a reference names a handful of orders, one per customer code that used it);
--     orders_customer_ref and orders_ref go.
--   order_attempts: (customer_id, riferimento_ordine, received_at) and (riferimento_ordine) become
--     (riferimento_ordine, customer_id, received_at).
-- UNIQUE (year, seq) stays here, unlike SQLite: order_number_sequence() reads max(seq) of a year through it.
-- The constraint's index is built again while the table is locked: migrate a large database at a quiet hour.
ALTER TABLE orders DROP CONSTRAINT orders_identity;
ALTER TABLE orders ADD CONSTRAINT orders_identity UNIQUE (riferimento_ordine, codice_cliente);
DROP INDEX IF EXISTS orders_customer_ref;
DROP INDEX IF EXISTS orders_ref;
DROP INDEX IF EXISTS order_attempts_customer_ref;
DROP INDEX IF EXISTS order_attempts_ref;
CREATE INDEX order_attempts_ref ON order_attempts (riferimento_ordine, customer_id, received_at);
