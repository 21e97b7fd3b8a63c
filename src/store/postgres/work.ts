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
      const { rows } = await pool.query<{ id: string }>(
        `UPDATE submissions SET lease_until = ${LEASE_END}
         WHERE id = ANY($1::text[]) AND claimed_by = $2 AND state <> 'processed'
         RETURNING id`,
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
