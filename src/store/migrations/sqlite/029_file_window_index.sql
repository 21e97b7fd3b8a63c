-- The FTP/SFTP tree lists a customer's 1,000 newest files (src/channels/files/tree.ts), asking only for those channels
-- before the limit, so a customer's REST or e-mail orders do not push its files out of the listing. Read through the
-- index of all of a customer's submissions, that listing would walk past every newer REST order at each LIST; this
-- index holds the files alone, and a REST order, written into neither channel, adds no entry to it.
CREATE INDEX submissions_customer_files ON submissions (customer_id, received_at, id) WHERE channel IN ('ftp', 'sftp');
