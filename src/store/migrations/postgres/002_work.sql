-- Work shared by several instances (PostgreSQL). A received submission is claimed by one instance for a lease;
-- the claim is cleared when its outcome is recorded, and an instance that died simply stops renewing, so its
-- work becomes claimable again when lease_until passes. Times come from the database clock, never an
-- instance's, so instances with skewed clocks still agree on who holds what.

ALTER TABLE submissions
  ADD COLUMN claimed_by  text,
  ADD COLUMN lease_until timestamptz;

-- The sweep reads only received rows, oldest first; processed ones (nearly all) stay out of this index.
CREATE INDEX submissions_claimable ON submissions (received_at) WHERE state = 'received';

-- Named leases: "one instance at a time does X" (e.g. watches one IMAP mailbox), with takeover on expiry.
CREATE TABLE leases (
  name        text PRIMARY KEY,
  holder      text NOT NULL,
  lease_until timestamptz NOT NULL,
  acquired_at timestamptz NOT NULL DEFAULT now()
);
