-- The processes that served this file (SQLite). Claims on submissions and messages live in the process's memory,
-- so a restart frees them by itself; named leases (reply sender, IMAP mailboxes) are kept in the file and would
-- wait out their lease after a crash. A starting process finds its predecessors here: a row of this host whose
-- process is gone (or whose pid is its own: a container restarted under the same pid) is dead, and its leases
-- are freed at once.

CREATE TABLE instances (
  id         TEXT PRIMARY KEY,
  host       TEXT NOT NULL,
  pid        INTEGER NOT NULL,
  started_at TEXT NOT NULL
) STRICT;
