-- Live instances, so that the claims of an instance that died are free at once instead of when their leases lapse.
-- Each `serve` holds a session-level advisory lock (key lock_key) on a dedicated connection for as long as it runs,
-- and names itself (id, the holder on its claims and leases) here. PostgreSQL drops the lock the moment that session
-- ends, and a SIGKILLed process's sockets are closed by the kernel at once; any instance's sweep then finds the row
-- whose lock is no longer held (pg_locks), marks it gone and frees what it held. The lease stays as the backstop for
-- a process that hangs with its session open.

CREATE TABLE instances (
  id          text PRIMARY KEY,
  host        text NOT NULL,
  pid         integer NOT NULL,
  -- The advisory lock (one bigint key, random per start) and the backend holding it: both must match in pg_locks,
  -- so a lock held with the same key in another schema of the same database never keeps a dead instance alive.
  lock_key    bigint NOT NULL,
  backend_pid integer NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now(),
  -- Set by the sweep that found the session gone; the row is kept a while so that a claim committed by a statement
  -- still in flight when the process died is freed by a later sweep too.
  gone_at     timestamptz
);

-- E-mail messages and replies name their holder like submissions do, so the claims of an instance that is gone
-- can be told apart and freed.
ALTER TABLE mail_messages ADD COLUMN claimed_by text;
ALTER TABLE mail_replies ADD COLUMN claimed_by text;
