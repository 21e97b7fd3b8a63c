/**
 * Work shared by several instances on one PostgreSQL database: claims on received submissions and named leases.
 *
 * Claims are taken with `FOR UPDATE SKIP LOCKED` (the queue pattern of pg-boss and graphile-worker): instances
 * sweeping at the same moment each lock different rows instead of waiting for one another, and a row another
 * instance has just claimed is re-checked after its lock is released, so it is never handed out twice. Every
 * time is the database's `now()`, so instances whose clocks disagree still agree on when a lease has passed.
 */
import type pg from 'pg';
import { checkLabel, checkLeaseMs, claimIds, claimLimit, type WorkMethods } from '../common/work.ts';

const LEASE_END = `now() + $3::bigint * interval '1 millisecond'`;

/** Claims the oldest received submissions no live instance holds, through a partial index of received rows (submissions_claimable, 002). Exported for the plan test. */
export const CLAIM_SQL = `WITH picked AS (
  SELECT id FROM submissions
  WHERE state = 'received' AND (lease_until IS NULL OR lease_until < now())
  ORDER BY received_at, id COLLATE "C"
  LIMIT $2
  FOR UPDATE SKIP LOCKED
  )
  UPDATE submissions s SET claimed_by = $1, lease_until = ${LEASE_END}
  FROM picked WHERE s.id = picked.id
  RETURNING s.id, s.received_at`;

export function postgresWork(pool: pg.Pool): WorkMethods {
  return {
    async claimSubmissions(holder, limit, leaseMs) {
      const { rows } = await pool.query<{ id: string }>(
        CLAIM_SQL,
        [checkLabel(holder, 'holder'), claimLimit(limit), checkLeaseMs(leaseMs)],
      );
      // RETURNING follows no order; the caller is promised oldest first.
      return (rows as { id: string; received_at: Date }[])
        .sort((a, b) => a.received_at.getTime() - b.received_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
        .map((r) => r.id);
    },

    async claimSubmission(id, holder, leaseMs) {
      // A concurrent claimer waits for this row's lock, then re-reads it and finds the other holder's lease.
      // Committed without waiting for the WAL flush (one per REST order otherwise): a claim only matters while
      // its holder lives, and a claim lost in a server crash is a claim that lapses early, which the lease allows.
      const res = await pool.query(
        `UPDATE submissions SET claimed_by = $2, lease_until = ${LEASE_END}
         FROM (SELECT set_config('synchronous_commit', 'off', true)) AS lazy_commit
         WHERE id = $1 AND state <> 'processed'
           AND (lease_until IS NULL OR lease_until < now() OR claimed_by = $2)`,
        [id, checkLabel(holder, 'holder'), checkLeaseMs(leaseMs)],
      );
      return (res.rowCount ?? 0) > 0;
    },

    async renewClaims(holder, ids, leaseMs) {
      const list = claimIds(ids);
      if (list.length === 0) return [];
      // A row another transaction has locked is not waited for: it is this holder's own registration, which locks
      // its submission FOR SHARE (register-batch.ts) and may itself wait long on a lock on orders, or a takeover
      // under way. Waiting held a pool connection per renewal for as long, the ones kept for storing new work
      // (order-writers.ts). Such a row is answered as still held if the statement's snapshot says so, and renewed
      // at the next round; while the lock lasts no other instance can claim it either (their claims wait or skip).
      const { rows } = await pool.query<{ id: string }>(
        `WITH mine AS (
           SELECT id FROM submissions WHERE id = ANY($1::text[]) AND claimed_by = $2 AND state <> 'processed'
         ), free AS (
           SELECT id FROM submissions WHERE id IN (SELECT id FROM mine) FOR NO KEY UPDATE SKIP LOCKED
         ), renewed AS (
           UPDATE submissions s SET lease_until = ${LEASE_END}
           FROM free WHERE s.id = free.id AND s.claimed_by = $2 AND s.state <> 'processed'
           RETURNING s.id
         )
         SELECT id FROM renewed
         UNION ALL SELECT id FROM mine WHERE id NOT IN (SELECT id FROM free)`,
        [list, checkLabel(holder, 'holder'), checkLeaseMs(leaseMs)],
      );
      const held = new Set(rows.map((r) => r.id));
      return list.filter((id) => held.has(id));
    },

    async releaseClaims(holder) {
      const res = await pool.query(
        `UPDATE submissions SET claimed_by = NULL, lease_until = NULL WHERE claimed_by = $1 AND state <> 'processed'`,
        [checkLabel(holder, 'holder')],
      );
      return res.rowCount ?? 0;
    },

    async acquireLease(name, holder, ttlMs) {
      // The upsert's WHERE runs on the locked existing row: of two instances racing, the second sees the first's lease.
      const res = await pool.query(
        `INSERT INTO leases (name, holder, lease_until) VALUES ($1, $2, ${LEASE_END})
         ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, lease_until = excluded.lease_until,
           acquired_at = CASE WHEN leases.holder = excluded.holder THEN leases.acquired_at ELSE now() END
         WHERE leases.holder = excluded.holder OR leases.lease_until < now()`,
        [checkLabel(name, 'lease name'), checkLabel(holder, 'holder'), checkLeaseMs(ttlMs, 'ttlMs')],
      );
      return (res.rowCount ?? 0) > 0;
    },

    async renewLease(name, holder, ttlMs) {
      // Still ours even if it ran out, as long as no one took it: nobody else acted on it meanwhile.
      const res = await pool.query(
        `UPDATE leases SET lease_until = ${LEASE_END} WHERE name = $1 AND holder = $2`,
        [checkLabel(name, 'lease name'), checkLabel(holder, 'holder'), checkLeaseMs(ttlMs, 'ttlMs')],
      );
      return (res.rowCount ?? 0) > 0;
    },

    async releaseLease(name, holder) {
      await pool.query('DELETE FROM leases WHERE name = $1 AND holder = $2', [checkLabel(name, 'lease name'), checkLabel(holder, 'holder')]);
    },
  };
}
