-- Deactivating a customer (issue 18): while deactivated_at is set, every channel refuses the customer (the
-- authenticator and the few places that resolve a customer without a secret check it), but nothing of the
-- customer is deleted: credentials, submissions and orders stay, and clearing the column restores access.
ALTER TABLE customers ADD COLUMN deactivated_at TEXT;
