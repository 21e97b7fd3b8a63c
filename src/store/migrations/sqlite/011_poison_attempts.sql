-- Poison work (issue 19, item 7): how often a message or a submission was taken up without being finished, so that
-- after a bounded number of attempts it is given up with a reason instead of being retried at every sweep for ever.
-- mail_messages.attempts: derivations started (the first one included). submissions.retries: times the sweeper took
-- the submission up again after it was left unprocessed (the channel's own first attempt is not counted).
ALTER TABLE mail_messages ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE submissions ADD COLUMN retries INTEGER NOT NULL DEFAULT 0;
