-- Issue 16: every order and every submission pays one B-tree insert per index. Three indexes of migration 001 are
-- the first columns of wider ones that migration 010 added for the console's keyset pages, so every query they served
-- is served as well by the wider one (same leading columns, same order): orders (registered_at) by
-- orders_registered_id (registered_at, id), orders (customer_id, registered_at) by orders_customer_registered_id
-- (customer_id, registered_at, id), submissions (received_at) by submissions_received_id (received_at, id).
-- test/store/query-plans*.test.ts check that the lists still use an index.
DROP INDEX IF EXISTS orders_registered;
DROP INDEX IF EXISTS orders_customer_registered;
DROP INDEX IF EXISTS submissions_received;
