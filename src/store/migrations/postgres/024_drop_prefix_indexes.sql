-- Issue 16 on PostgreSQL, as sqlite/016 did for SQLite: every order and every submission pays one B-tree insert per
-- index, and a submission pays its indexes twice (recording the outcome changes indexed columns, state and
-- outcome->>'esito', so that UPDATE is never HOT and writes a new entry in every index). Three indexes of migration
-- 001 are the first columns of wider ones that migration 010 added for the console's keyset pages, so every query
-- they served is served as well by the wider one (same leading columns, same order): orders (registered_at) by
-- orders_registered_id (registered_at, id), orders (customer_id, registered_at) by orders_customer_registered_id
-- (customer_id, registered_at, id), submissions (received_at) by submissions_received_id (received_at, id).
-- Four index entries fewer per REST order. test/store/query-plans*.test.ts check that the lists still use an index.
DROP INDEX IF EXISTS orders_registered;
DROP INDEX IF EXISTS orders_customer_registered;
DROP INDEX IF EXISTS submissions_received;
