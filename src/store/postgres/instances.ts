/**
 * Live instances on PostgreSQL (migration 006): an instance is alive while its dedicated session holds its advisory
 * lock. PostgreSQL releases a session-level lock the moment the session ends, and a process killed with SIGKILL has
 * its sockets closed by the kernel, so the server ends that session at once: its claims are then free for the next
 * sweep of any instance, without waiting for a lease. A lock, not a heartbeat row: a heartbeat says "alive a moment
 * ago" and must be waited out, the lock says "alive now" with no clock involved.
 *
 * The session runs on its own connection, outside the pool: a pooled connection goes back to the pool between
 * queries and its locks would follow it to whatever query used it next. For the same reason INTAKE_DATABASE_URL must
 * reach PostgreSQL directly or through a session-mode pooler (see docs/operators/crash-recovery.md).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { GONE_ROW_KEEP_MS, NOTHING_FREED, type FreedWork, type InstanceStore } from '../../domain/store/instances.ts';
import { checkLabel } from '../common/work.ts';

/** After the session's connection is lost (the database restarted, a network cut), it is opened again this often. */
const RECONNECT_MS = 1_000;
/** Keys are random; a collision with a lock held in another schema of the same database just draws another. */
const KEY_ATTEMPTS = 5;

/** The instance rows whose lock is not held by the backend they recorded: their process (or session) is gone. */
const FIND_GONE = `WITH found AS (
    UPDATE instances i SET gone_at = now()
    WHERE gone_at IS NULL AND NOT EXISTS (
      SELECT 1 FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.pid = i.backend_pid AND l.objsubid = 1
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = ((i.lock_key >> 32) & 4294967295)::oid AND l.objid = (i.lock_key & 4294967295)::oid)
    RETURNING i.id
  ), old AS (
    DELETE FROM instances WHERE gone_at < now() - $1::bigint * interval '1 millisecond'
  )
  SELECT id, true AS fresh FROM found
  UNION ALL SELECT id, false FROM instances WHERE gone_at IS NOT NULL`;

/**
 * Frees what the gone instances hold. Kept rows (gone a while ago) are included: a claim committed by a statement
 * still running on the server when its process died lands after the first reap, and is freed by a later one.
 */
const FREE = `WITH subs AS (
    UPDATE submissions SET claimed_by = NULL, lease_until = NULL WHERE claimed_by = ANY($1::text[]) AND state = 'received' RETURNING 1
  ), msgs AS (
    UPDATE mail_messages SET claimed_by = NULL, claimed_until = NULL WHERE claimed_by = ANY($1::text[]) AND state = 'received' RETURNING 1
  ), reps AS (
    UPDATE mail_replies SET claimed_by = NULL, next_attempt_at = now() WHERE claimed_by = ANY($1::text[]) AND state = 'pending' RETURNING 1
  ), lss AS (
    DELETE FROM leases WHERE holder = ANY($1::text[]) RETURNING 1
  )
  SELECT (SELECT count(*) FROM subs)::int AS submissions, (SELECT count(*) FROM msgs)::int AS messages,
    (SELECT count(*) FROM reps)::int AS replies, (SELECT count(*) FROM lss)::int AS leases`;

interface Session {
  holder: string;
  client?: pg.Client;
  stopped: boolean;
  retry?: NodeJS.Timeout;
}

export interface PostgresInstances extends InstanceStore {
  /** End the session (store close): the instance is gone for the others from then on. */
  closeSession(): Promise<void>;
}

/** A random non-zero signed 64-bit key. */
function randomKey(): string {
  return randomBytes(8).readBigInt64BE().toString();
}

export function postgresInstances(pool: pg.Pool, connect: () => pg.Client, onError?: (err: Error) => void): PostgresInstances {
  let session: Session | undefined;

  async function open(s: Session): Promise<void> {
    const client = connect();
    client.on('error', (err) => {
      onError?.(err);
      lost(s, client);
    });
    client.on('end', () => lost(s, client));
    try {
      await client.connect();
      let key: string | undefined;
      for (let i = 0; i < KEY_ATTEMPTS && key === undefined; i++) {
        const k = randomKey();
        const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [k]);
        if (rows[0]?.ok) key = k;
      }
      if (key === undefined) throw new Error('could not take an instance lock: every key drawn was taken');
      // Run on the session itself, so backend_pid is the backend holding the lock. A row found gone meanwhile (the
      // connection was lost for a moment) is alive again; what it held was freed and is renewed by nobody.
      await client.query(
        `INSERT INTO instances (id, host, pid, lock_key, backend_pid) VALUES ($1, $2, $3, $4, pg_backend_pid())
         ON CONFLICT (id) DO UPDATE SET lock_key = excluded.lock_key, backend_pid = excluded.backend_pid, gone_at = NULL`,
        [s.holder, hostname(), process.pid, key],
      );
    } catch (e) {
      await client.end().catch(() => undefined);
      throw e;
    }
    if (s.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    s.client = client;
  }

  function lost(s: Session, client: pg.Client): void {
    if (s.client !== client || s.stopped) return;
    s.client = undefined;
    client.end().catch(() => undefined);
    reconnect(s);
  }

  function reconnect(s: Session): void {
    if (s.stopped || s.retry) return;
    s.retry = setTimeout(() => {
      s.retry = undefined;
      open(s).catch((err: unknown) => {
        onError?.(err as Error);
        reconnect(s);
      });
    }, RECONNECT_MS);
    // The servers keep the process alive; a session being reopened must not.
    s.retry.unref();
  }

  async function end(): Promise<void> {
    const s = session;
    if (!s) return;
    session = undefined;
    s.stopped = true;
    clearTimeout(s.retry);
    const client = s.client;
    s.client = undefined;
    await client?.end().catch(() => undefined);
  }

  async function reap(): Promise<FreedWork> {
    const { rows } = await pool.query<{ id: string; fresh: boolean }>(FIND_GONE, [GONE_ROW_KEEP_MS]);
    if (rows.length === 0) return NOTHING_FREED;
    const ids = rows.map((r) => r.id);
    const { rows: [n] } = await pool.query<Omit<FreedWork, 'instances'>>(FREE, [ids]);
    return { instances: rows.filter((r) => r.fresh).map((r) => r.id), ...n! };
  }

  return {
    async startInstance(holder) {
      checkLabel(holder, 'holder');
      if (session) throw new Error(`this store already runs instance ${session.holder}`);
      const s: Session = { holder, stopped: false };
      await open(s);
      session = s;
      await reap();
    },

    reapInstances: reap,

    async stopInstance(holder) {
      checkLabel(holder, 'holder');
      if (session?.holder !== holder) return;
      await end();
      // The lock went with the session; the row goes too, so no later reap mistakes this stop for a crash.
      await pool.query('DELETE FROM instances WHERE id = $1', [holder]);
    },

    closeSession: end,
  };
}
