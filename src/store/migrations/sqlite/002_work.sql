-- Named leases (SQLite). SQLite serves one service process, so submission claims live in that process's
-- memory (a restarted process owns everything); named leases are kept in the file so that a second `serve`
-- started on the same file by mistake still does not do the same singleton work (e.g. watch a mailbox) twice.
-- Times are milliseconds since the epoch from the process clock: one machine, one clock.

CREATE TABLE leases (
  name        TEXT PRIMARY KEY,
  holder      TEXT NOT NULL,
  lease_until INTEGER NOT NULL,
  acquired_at INTEGER NOT NULL
) STRICT;
