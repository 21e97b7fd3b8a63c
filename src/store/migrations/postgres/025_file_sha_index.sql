-- As sqlite/025: the (customer_id, sha256) index answers only "was this same file received before?"
-- (findSubmissionBySha, for the FTP/SFTP tree's gia_ricevuto_il), and single-order submissions (REST, SOAP, the
-- portal's form) are not files. A hash key puts every insert on a random leaf: one more page dirtied, and after each
-- checkpoint one more full-page image in the WAL, per REST order. Partial, it holds the files only.
DROP INDEX IF EXISTS submissions_customer_sha;
CREATE INDEX submissions_customer_sha ON submissions (customer_id, sha256) WHERE NOT single_order;
