-- As sqlite/027: the state index holds the submissions not processed (what recovery and the console's lists of
-- received and failed submissions ask for; the sweeper reads submissions_claimable, migration 002), the esito index
-- the refused ones (the console's list of refusals and its count). A REST or SOAP order's submission, written processed and accepted, enters neither: two index entries
-- fewer per order. PostgreSQL proves `state = 'received'` implies the state index's term; a statement comparing
-- with a parameter spells the term itself (src/store/common/partial-terms.ts). The indexes are built again while
-- writes to submissions wait: migrate a large database at a quiet hour.
DROP INDEX IF EXISTS submissions_state_received;
CREATE INDEX submissions_state_received ON submissions (state, received_at) WHERE state <> 'processed';
DROP INDEX IF EXISTS submissions_esito_received;
CREATE INDEX submissions_esito_received ON submissions ((outcome->>'esito'), received_at, id) WHERE (outcome->>'esito') = 'errore';
