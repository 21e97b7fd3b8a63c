-- Issue 16, target 1: two submissions indexes hold only the rows they are asked for. A REST or SOAP order's
-- submission is written already processed and, nearly always, with esito ok, yet it paid an entry in both:
--   submissions_state_received (state, received_at) serves the sweepers (state 'received') and the console's lists of
--     received and failed submissions, never 'processed': it now holds the rows not processed;
--   submissions_esito_received (esito, received_at, id) serves the console's list of refused submissions and the
--     count of refusals on its first page: it now holds the refused ones. The console's list of accepted submissions
--     walks submissions_received_id and keeps the accepted rows; they are nearly all of them, so a page still reads
--     about as many rows as it shows.
-- About 1,600 bytes of WAL less per REST order (bench/profile/outbox-writes.ts). A query takes a partial index only
-- when its WHERE clause spells the index's own term (https://sqlite.org/partialindex.html): the store's statements
-- add it (UNPROCESSED and refused() in src/store/common/partial-terms.ts), and query-plans tests check each.
DROP INDEX IF EXISTS submissions_state_received;
CREATE INDEX submissions_state_received ON submissions (state, received_at) WHERE state <> 'processed';
DROP INDEX IF EXISTS submissions_esito_received;
CREATE INDEX submissions_esito_received ON submissions (json_extract(outcome, '$.esito'), received_at, id)
  WHERE json_extract(outcome, '$.esito') = 'errore';
