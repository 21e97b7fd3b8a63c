/**
 * The hand-off tables in the embedded store (migration 008): see the HandoffStore port in handoff.ts.
 *
 * Claims are kept in the rows (claimed_by, lease_until), not in this process's memory as submission claims are:
 * a delivery claimed by a process killed mid-delivery must wait for its lease before another takes it, or a
 * receiver that is merely slow could get the same delivery twice at once from a second `serve` on the same file.
 *
 * The bookkeeping writes go through the group-commit writer as not durable (sqlite/writer.ts): a crash forgets at
 * most the last results, which only means a delivery is made again, and one fsync per delivered event would
 * compete with the intake path for the disk.
 */
import type Database from 'better-sqlite3';
import { alreadyExists, invalid } from '../common/refusals.ts';
import { type DeliveryResult, type HandoffStore } from '../../domain/store/handoff.ts';
import { DELIVERY_COLUMNS, SUBSCRIBER_COLUMNS, checkFinishBatch, errorText, toDelivery, toDeliverySummary, toSubscriber, type DeliveryRow, type SubscriberRow } from '../common/handoff-rows.ts';
import { isoIn, limitOf, nowIso } from '../common/rows.ts';
import { statementCache } from './statements.ts';
import type { SqliteWriter } from './writer.ts';
import { checkLabel, checkLeaseMs, claimLimit, claimShares } from '../common/work.ts';

/** The one delivery of an order that may go now: no earlier delivery of it to the same subscriber is pending. */
const FIRST_OF_ORDER = `NOT EXISTS (SELECT 1 FROM handoff_deliveries e WHERE e.subscriber_id = d.subscriber_id
  AND e.order_key = d.order_key AND e.state = 'pending' AND e.seq < d.seq)`;

export function sqliteHandoff(db: Database.Database, writer: SqliteWriter, now: () => number = Date.now): HandoffStore {
  const q = statementCache(db);
  const lazy = <T>(work: () => T): Promise<T> => writer.write(work, false);

  const get = (id: string) => {
    const r = q(`SELECT ${SUBSCRIBER_COLUMNS} FROM handoff_subscribers WHERE id = ?`).get(id) as SubscriberRow | undefined;
    return r && toSubscriber(r);
  };

  /** Record one result (inside a write); false when `holder` does not hold that pending delivery. */
  function finishOne(id: string, holder: string, result: DeliveryResult): boolean {
    const at = now();
    const status = result.status ?? null;
    const mine = `WHERE id = @id AND claimed_by = @holder AND state = 'pending'`;
    let changes: number;
    if (result.outcome === 'done') {
      changes = q(`UPDATE handoff_deliveries SET state = 'done', last_status = @status, last_error = NULL, finished_at = @fin,
        claimed_by = NULL, lease_until = NULL ${mine}`).run({ id, holder, status, fin: new Date(at).toISOString() }).changes;
    } else if (result.outcome === 'failed') {
      changes = q(`UPDATE handoff_deliveries SET state = 'failed', last_status = @status, last_error = @error, finished_at = @fin,
        claimed_by = NULL, lease_until = NULL ${mine}`).run({ id, holder, status, error: errorText(result.error), fin: new Date(at).toISOString() }).changes;
    } else {
      changes = q(`UPDATE handoff_deliveries SET next_attempt_at = @next, last_status = @status, last_error = @error,
        claimed_by = NULL, lease_until = NULL ${mine}`).run({ id, holder, status, error: errorText(result.error), next: at + Math.max(0, result.retryInMs) }).changes;
    }
    return changes === 1;
  }

  return {
    async addSubscriber(s) {
      const at = isoIn(s.createdAt ?? nowIso(), 'createdAt');
      try {
        // It starts at the last event committed now (not at or before what retention deleted, which would be an
        // expired cursor; NULL then, or on an empty stream): it gets exactly the events committed after it was added.
        q(`INSERT INTO handoff_subscribers (id, kind, url, secret_enc, allow_private, dir, format, connector_id, events, created_at, updated_at, cursor)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (SELECT CAST(max(seq) AS TEXT) FROM order_events
            WHERE seq > coalesce((SELECT through FROM order_events_pruned WHERE one = 1), 0)))`).run(s.id, s.kind, s.url ?? null, s.secretEnc ?? null, s.allowPrivate ? 1 : 0,
          s.dir ?? null, s.format ?? null, s.connectorId ?? null, JSON.stringify(s.events), at, at);
      } catch (e) {
        const code = (e as { code?: string }).code;
        if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw alreadyExists.subscriber(s.id);
        if (code === 'SQLITE_CONSTRAINT_CHECK') throw invalid.subscriberKindOrFormat();
        throw e;
      }
      return (await get(s.id))!;
    },

    async getSubscriber(id) {
      const r = q(`SELECT ${SUBSCRIBER_COLUMNS} FROM handoff_subscribers WHERE id = ?`).get(id) as SubscriberRow | undefined;
      return r && toSubscriber(r);
    },

    async listSubscribers({ kind }) {
      const rows = kind === undefined
        ? q(`SELECT ${SUBSCRIBER_COLUMNS} FROM handoff_subscribers ORDER BY created_at, id`).all()
        : q(`SELECT ${SUBSCRIBER_COLUMNS} FROM handoff_subscribers WHERE kind = ? ORDER BY created_at, id`).all(kind);
      return (rows as SubscriberRow[]).map(toSubscriber);
    },

    async setSubscriberState(id, state, reason) {
      return q('UPDATE handoff_subscribers SET state = ?, disabled_reason = ?, updated_at = ? WHERE id = ?')
        .run(state, state === 'disabled' ? errorText(reason ?? 'disabled by an operator') : null, nowIso(), id).changes === 1;
    },

    async removeSubscriber(id) {
      return q('DELETE FROM handoff_subscribers WHERE id = ?').run(id).changes === 1;
    },

    async appendDeliveries(subscriberId, from, to, list) {
      return lazy(() => {
        const moved = q('UPDATE handoff_subscribers SET cursor = ? WHERE id = ? AND cursor IS ?').run(to, subscriberId, from ?? null).changes;
        if (moved === 0) return false;
        const at = now();
        const { last } = q('SELECT coalesce(max(seq), 0) AS last FROM handoff_deliveries WHERE subscriber_id = ?').get(subscriberId) as { last: number };
        const ins = q(`INSERT INTO handoff_deliveries (id, seq, subscriber_id, event_id, event_type, order_key, body, next_attempt_at,
          created_at, retry_since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (subscriber_id, event_id) DO NOTHING`);
        list.forEach((d, i) => ins.run(d.id, last + i + 1, subscriberId, d.eventId, d.eventType, d.orderKey, d.body, at,
          new Date(at).toISOString(), at));
        return true;
      });
    },

    async claimDeliveries(holder, leaseMs, limit, opts) {
      checkLabel(holder, 'holder');
      const ttl = checkLeaseMs(leaseMs);
      const n = claimLimit(limit);
      const { perSubscriber, skip } = claimShares(n, opts);
      const skipped = new Set(skip);
      return lazy(() => {
        const at = now();
        // Each active subscriber's earliest due, at most perSubscriber of them (one index range each:
        // handoff_deliveries_subscriber_due), then the earliest of those: one endpoint's backlog cannot take the claim.
        const subs = (q(`SELECT id FROM handoff_subscribers WHERE state = 'active'`).all() as { id: string }[]).filter((s) => !skipped.has(s.id));
        const due = q(`SELECT ${DELIVERY_COLUMNS.replace(/(\w+)/g, 'd.$1')}, d.body FROM handoff_deliveries d
          WHERE d.subscriber_id = @sub AND d.state = 'pending' AND d.next_attempt_at <= @at
            AND (d.lease_until IS NULL OR d.lease_until < @at) AND ${FIRST_OF_ORDER}
          ORDER BY d.next_attempt_at, d.seq LIMIT @k`);
        const rows = subs.flatMap((s) => due.all({ sub: s.id, at, k: perSubscriber }) as DeliveryRow[])
          .sort((a, b) => Number(a.next_attempt_at) - Number(b.next_attempt_at) || Number(a.seq) - Number(b.seq))
          .slice(0, n);
        const upd = q('UPDATE handoff_deliveries SET claimed_by = ?, lease_until = ?, attempts = attempts + 1 WHERE id = ?');
        for (const r of rows) {
          upd.run(holder, at + ttl, r.id);
          r.attempts = Number(r.attempts) + 1;
        }
        return rows.map(toDelivery);
      });
    },

    async finishDelivery(id, holder, result) {
      return lazy(() => finishOne(id, holder, result));
    },

    async finishDeliveries(holder, list) {
      checkFinishBatch(list);
      if (list.length === 0) return [];
      // One entry in the group commit for the whole batch, not one per delivery.
      return lazy(() => list.filter((f) => !finishOne(f.id, holder, f.result)).map((f) => f.id));
    },

    async getDelivery(id) {
      const r = q(`SELECT ${DELIVERY_COLUMNS}, body FROM handoff_deliveries WHERE id = ?`).get(id) as DeliveryRow | undefined;
      return r && toDelivery(r);
    },

    async listDeliveries({ subscriberId, state, limit }) {
      const rows = state === undefined
        ? q(`SELECT ${DELIVERY_COLUMNS} FROM handoff_deliveries WHERE subscriber_id = ? ORDER BY seq DESC LIMIT ?`).all(subscriberId, limitOf(limit))
        : q(`SELECT ${DELIVERY_COLUMNS} FROM handoff_deliveries WHERE subscriber_id = ? AND state = ? ORDER BY seq DESC LIMIT ?`)
          .all(subscriberId, state, limitOf(limit));
      return (rows as DeliveryRow[]).map(toDeliverySummary);
    },

    async replayDeliveries({ subscriberId, deliveryId, state }) {
      const at = now();
      // A pending delivery keeps its claim: its attempt may be under way, and dropping the claim would let a second
      // holder make it at the same time (one attempt at a time per delivery); the holder's result is still recorded.
      return lazy(() => q(`UPDATE handoff_deliveries SET state = 'pending', next_attempt_at = @at, retry_since = @at, finished_at = NULL,
        claimed_by = CASE WHEN state = 'pending' THEN claimed_by END, lease_until = CASE WHEN state = 'pending' THEN lease_until END
        WHERE subscriber_id = @subscriberId AND (@deliveryId IS NULL OR id = @deliveryId) AND (@state IS NULL OR state = @state)`)
        .run({ at, subscriberId, deliveryId: deliveryId ?? null, state: state ?? null }).changes);
    },

    async nextDeliveryDueInMs() {
      const r = q(`SELECT min(max(d.next_attempt_at, coalesce(d.lease_until, 0))) AS due FROM handoff_deliveries d
        JOIN handoff_subscribers s ON s.id = d.subscriber_id WHERE d.state = 'pending' AND s.state = 'active' AND ${FIRST_OF_ORDER}`).get() as { due: number | null };
      return r.due === null ? undefined : Math.max(0, Number(r.due) - now());
    },
  };
}
