-- Issue 16, target 1: the (customer_id, sha256) index serves one question, "was this same file received before?"
-- (findSubmissionBySha, asked by the FTP/SFTP tree for an outcome file's gia_ricevuto_il), and a body of a REST or
-- SOAP call or of the portal's form is not a file. Its key is a hash: every insert lands on a random leaf, so each
-- REST order wrote one page more to every commit of the write thread (1.26 of its 7.05 WAL pages per order, 16
-- orders a commit: docs/development/performance.md, twelfth round). Partial, it holds the files only.
DROP INDEX IF EXISTS submissions_customer_sha;
CREATE INDEX submissions_customer_sha ON submissions (customer_id, sha256) WHERE single_order = 0;
