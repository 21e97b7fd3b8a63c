-- Issue 43: the FTP/SFTP tree's window (src/channels/files/tree.ts) also lists the order desk's corrections of the
-- customer's files (channel console), each as an outcome file telling the customer its order was registered. The
-- window's files-only index takes them in, so that listing still never walks past the customer's REST orders.
DROP INDEX submissions_customer_files;
CREATE INDEX submissions_customer_files ON submissions (customer_id, received_at, id) WHERE channel IN ('console', 'ftp', 'sftp');
