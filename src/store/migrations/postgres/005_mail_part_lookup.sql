-- Finding the submissions derived from one e-mail message (a part stored just before a crash, adopted when the
-- message is derived again) looked through every submission of the customer since the message arrived, reading
-- each one's meta. A message waits in a backlog while the customer's other channels keep submitting, so the cost
-- grew with the backlog. Index the message id itself.
CREATE INDEX submissions_mail_id ON submissions ((meta->>'mail_id')) WHERE meta->>'mail_id' IS NOT NULL;
