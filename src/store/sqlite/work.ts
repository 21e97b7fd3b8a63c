/**
 * Claims and named leases for the embedded store. SQLite serves one service process, so claims are kept in this
 * store object: a restarted process (after a crash too) starts with no claim and takes over everything at once,
 * which is what a single instance wants. Named leases are kept in the file (migration 002), so a second `serve`
 * started on the same file by mistake still cannot do the same singleton work twice; they are written on the write
 * thread with the intake path's writes (write-ops.ts).
 */
import type Database from 'better-sqlite3';
import { checkLabel, checkLeaseMs, claimIds, claimLimit, type WorkMethods } from '../common/work.ts';
import { statementCache } from './statements.ts';
import type { WriteRunner } from './offload.ts';
import { UNPROCESSED } from '../common/partial-terms.ts';

export interface SqliteWork extends WorkMethods {
  /** A submission's outcome was recorded or it was reset: its claim, if any, is over. */
  forget(id: string): void;
  /** Those of `ids` that `holder` may no longer register orders for: not received, or claimed by another holder now. */
  lost(holder: string, ids: Iterable<string>): string[];
}

/**
 * The oldest received submissions' ids: what the sweeper claims and recovery drains. `UNPROCESSED` lets SQLite take
 * the partial state index (migration 027). Exported for the plan test.
 */
export const RECEIVED_IDS_SQL = `SELECT id FROM submissions WHERE state = 'received' AND ${UNPROCESSED} ORDER BY received_at, id LIMIT ?`;

export function sqliteWork(db: Database.Database, runner: WriteRunner, now: () => number = Date.now): SqliteWork {
  const q = statementCache(db);
  const claims = new Map<string, { holder: string; until: number }>();

  /** Another holder's claim that still runs: the only thing that keeps a holder from an id. */
  function heldByOther(id: string, holder: string, at: number): boolean {
    const c = claims.get(id);
    return c !== undefined && c.holder !== holder && c.until > at;
  }

  function prune(at: number): void {
    for (const [id, c] of claims) if (c.until <= at) claims.delete(id);
  }

  return {
    forget(id) {
      claims.delete(id);
    },

    lost(holder, ids) {
      const at = now();
      const out: string[] = [];
      for (const id of ids) {
        const row = q('SELECT state FROM submissions WHERE id = ?').get(id) as { state: string } | undefined;
        if (row?.state !== 'received' || heldByOther(id, holder, at)) out.push(id);
      }
      return out;
    },

    async claimSubmissions(holder, limit, leaseMs) {
      checkLabel(holder, 'holder');
      const n = claimLimit(limit);
      const ttl = checkLeaseMs(leaseMs);
      const at = now();
      prune(at);
      // Claimed rows are skipped after the query, so ask for enough to fill the batch past them.
      const rows = q(RECEIVED_IDS_SQL)
        .all(n + claims.size) as { id: string }[];
      const picked = rows.map((r) => r.id).filter((id) => !claims.has(id)).slice(0, n);
      for (const id of picked) claims.set(id, { holder, until: at + ttl });
      return picked;
    },

    async claimSubmission(id, holder, leaseMs) {
      checkLabel(holder, 'holder');
      const ttl = checkLeaseMs(leaseMs);
      const at = now();
      const row = q('SELECT state FROM submissions WHERE id = ?').get(id) as { state: string } | undefined;
      if (!row || row.state === 'processed' || heldByOther(id, holder, at)) return false;
      claims.set(id, { holder, until: at + ttl });
      return true;
    },

    async renewClaims(holder, ids, leaseMs) {
      checkLabel(holder, 'holder');
      const list = claimIds(ids);
      const ttl = checkLeaseMs(leaseMs);
      const at = now();
      const kept: string[] = [];
      for (const id of list) {
        const c = claims.get(id);
        if (c?.holder !== holder) continue;
        const row = q('SELECT state FROM submissions WHERE id = ?').get(id) as { state: string } | undefined;
        if (!row || row.state === 'processed') {
          claims.delete(id);
          continue;
        }
        c.until = at + ttl;
        kept.push(id);
      }
      return kept;
    },

    async releaseClaims(holder) {
      checkLabel(holder, 'holder');
      let n = 0;
      const at = now();
      for (const [id, c] of claims) {
        if (c.holder !== holder) continue;
        claims.delete(id);
        const row = q('SELECT state FROM submissions WHERE id = ?').get(id) as { state: string } | undefined;
        if (c.until > at && row && row.state !== 'processed') n++;
      }
      return n;
    },

    async acquireLease(name, holder, ttlMs) {
      // Not fsynced: a lease matters only while its holder lives, and a holder outlives no crash of the machine.
      const at = Date.now();
      return runner.run('acquireLease', [checkLabel(name, 'lease name'), checkLabel(holder, 'holder'), at + checkLeaseMs(ttlMs, 'ttlMs'), at], false);
    },

    async renewLease(name, holder, ttlMs) {
      return runner.run('renewLease', [checkLabel(name, 'lease name'), checkLabel(holder, 'holder'), Date.now() + checkLeaseMs(ttlMs, 'ttlMs')], false);
    },

    async releaseLease(name, holder) {
      await runner.run('releaseLease', [checkLabel(name, 'lease name'), checkLabel(holder, 'holder')], false);
    },
  };
}
