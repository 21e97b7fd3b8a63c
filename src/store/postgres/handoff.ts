/**
 * The hand-off tables on PostgreSQL (migration 008): see the HandoffStore port in handoff.ts.
 *
 * Deliveries are claimed with `FOR UPDATE SKIP LOCKED` (as submissions are, postgres/work.ts): instances sweeping at
 * once lock different rows, and a row another instance has just claimed is re-checked after its lock is released.
 * Every time is the database's `now()`. The bookkeeping is committed with synchronous_commit off: a result lost in
 * a database crash means the delivery is made again, which at-least-once allows, and a WAL flush per delivered
 * event would cost the intake path its throughput.
 */
import type pg from 'pg';
import type { PoolClient } from 'pg';
import { alreadyExists, invalid } from '../common/refusals.ts';
import { type HandoffStore } from '../../domain/store/handoff.ts';
import { DELIVERY_COLUMNS, SUBSCRIBER_COLUMNS, checkFinishBatch, errorText, toDelivery, toDeliverySummary, toSubscriber, type DeliveryRow, type SubscriberRow } from '../common/handoff-rows.ts';
import { openPostgresBell } from './bell.ts';
import { pgCode, withTransaction } from './tx.ts';
import { isoIn, limitOf, nowIso } from '../common/rows.ts';
import { checkLabel, checkLeaseMs, claimLimit, claimShares } from '../common/work.ts';

/** The one delivery of an order that may go now: no earlier delivery of it to the same subscriber is pending. */
const FIRST_OF_ORDER = `NOT EXISTS (SELECT 1 FROM handoff_deliveries e WHERE e.subscriber_id = d.subscriber_id
  AND e.order_key = d.order_key AND e.state = 'pending' AND e.seq < d.seq)`;
const LAZY = `SELECT set_config('synchronous_commit', 'off', true)`;
const D_COLUMNS = DELIVERY_COLUMNS.replace(/(\w+)/g, 'd.$1');
/**
 * Where a new subscriber starts: the last event readable now (postgres/events.ts), so it gets exactly the events
 * committed after it was added, including those of transactions still open now (an instance's registration that
 * took its time before the subscriber was added and commits after). Not at or before what retention deleted (such a
 * cursor would be expired); NULL then, or on an empty stream: the fan-out starts from the first event.
 */
const STREAM_END = `SELECT e.xid::text || '_' || e.seq::text FROM order_events e
  WHERE e.xid < pg_snapshot_xmin(pg_current_snapshot())
    AND NOT EXISTS (SELECT 1 FROM order_events_pruned p WHERE (e.xid, e.seq) <= (p.through_xid, p.through_seq))
  ORDER BY e.xid DESC, e.seq DESC LIMIT 1`;

export function postgresHandoff(pool: pg.Pool, newClient?: () => pg.Client, onError?: (err: Error) => void): HandoffStore {
  const tx = <T>(fn: (c: PoolClient) => Promise<T>): Promise<T> => withTransaction(pool, fn);

  const get = async (id: string) => {
    const { rows } = await pool.query(`SELECT ${SUBSCRIBER_COLUMNS} FROM handoff_subscribers WHERE id = $1`, [id]);
    return rows[0] ? toSubscriber(rows[0] as SubscriberRow) : undefined;
  };

  return {
    async addSubscriber(s) {
      const at = isoIn(s.createdAt ?? nowIso(), 'createdAt');
      try {
        await pool.query(`INSERT INTO handoff_subscribers (id, kind, url, secret_enc, allow_private, dir, format, events, created_at, updated_at,
            cursor, connector_id)
          VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, (${STREAM_END}), $10)`, [s.id, s.kind, s.url ?? null, s.secretEnc ?? null, s.allowPrivate === true,
          s.dir ?? null, s.format ?? null, JSON.stringify(s.events), at, s.connectorId ?? null]);
      } catch (e) {
        if (pgCode(e) === '23505') throw alreadyExists.subscriber(s.id);
        if (pgCode(e) === '23514') throw invalid.subscriberKindOrFormat();
        throw e;
      }
      return (await get(s.id))!;
    },

    async getSubscriber(id) {
      const { rows } = await pool.query(`SELECT ${SUBSCRIBER_COLUMNS} FROM handoff_subscribers WHERE id = $1`, [id]);
      return rows[0] && toSubscriber(rows[0] as SubscriberRow);
    },

    async listSubscribers({ kind }) {
      const { rows } = await pool.query(`SELECT ${SUBSCRIBER_COLUMNS} FROM handoff_subscribers
        WHERE $1::text IS NULL OR kind = $1 ORDER BY created_at, id COLLATE "C"`, [kind ?? null]);
      return (rows as SubscriberRow[]).map(toSubscriber);
    },

    async setSubscriberState(id, state, reason) {
      const res = await pool.query('UPDATE handoff_subscribers SET state = $2, disabled_reason = $3, updated_at = now() WHERE id = $1',
        [id, state, state === 'disabled' ? errorText(reason ?? 'disabled by an operator') : null]);
      return res.rowCount === 1;
    },

    async removeSubscriber(id) {
      return (await pool.query('DELETE FROM handoff_subscribers WHERE id = $1', [id])).rowCount === 1;
    },

    async appendDeliveries(subscriberId, from, to, list) {
      return tx(async (c) => {
        await c.query(LAZY);
        const moved = await c.query('UPDATE handoff_subscribers SET cursor = $3 WHERE id = $1 AND cursor IS NOT DISTINCT FROM $2',
          [subscriberId, from ?? null, to]);
        if (moved.rowCount !== 1) return false;
        if (list.length > 0) {
          // seq continues the subscriber's numbering in the list's order (the event order); the cursor update above
          // locked the subscriber row, so no other append of this subscriber draws the same numbers.
          await c.query(`INSERT INTO handoff_deliveries (id, seq, subscriber_id, event_id, event_type, order_key, body, next_attempt_at,
            created_at, retry_since)
            SELECT t.id, base.last + t.ord, $1, t.event_id, t.event_type, t.order_key, t.body, now(), now(), now()
            FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY
              AS t(id, event_id, event_type, order_key, body, ord),
              (SELECT coalesce(max(seq), 0) AS last FROM handoff_deliveries WHERE subscriber_id = $1) AS base
            ON CONFLICT (subscriber_id, event_id) DO NOTHING`,
          [subscriberId, list.map((d) => d.id), list.map((d) => d.eventId), list.map((d) => d.eventType), list.map((d) => d.orderKey),
            list.map((d) => d.body)]);
        }
        return true;
      });
    },

    async claimDeliveries(holder, leaseMs, limit, opts) {
      const n = claimLimit(limit);
      const { perSubscriber, skip } = claimShares(n, opts);
      // Each active subscriber's earliest due, at most $4 of them (one index range per subscriber:
      // handoff_deliveries_subscriber_due), then the earliest of those: one endpoint's backlog cannot take the claim.
      const { rows } = await pool.query<DeliveryRow>(
        `WITH lazy AS (${LAZY}), picked AS (
           SELECT d.id FROM handoff_subscribers s CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at, d.seq FROM handoff_deliveries d
             WHERE d.subscriber_id = s.id AND d.state = 'pending' AND d.next_attempt_at <= now()
               AND (d.lease_until IS NULL OR d.lease_until < now()) AND ${FIRST_OF_ORDER}
             ORDER BY d.next_attempt_at, d.seq
             LIMIT $4
             FOR UPDATE SKIP LOCKED
           ) AS d
           WHERE s.state = 'active' AND s.id <> ALL ($5::text[])
           ORDER BY d.next_attempt_at, d.seq
           LIMIT $2
         )
         UPDATE handoff_deliveries d SET claimed_by = $1, lease_until = now() + $3::bigint * interval '1 millisecond',
           attempts = d.attempts + 1
         FROM picked, lazy WHERE d.id = picked.id
         RETURNING ${D_COLUMNS}, d.body`,
        [checkLabel(holder, 'holder'), n, checkLeaseMs(leaseMs), perSubscriber, skip],
      );
      // RETURNING follows no order; earliest due first was promised.
      return rows.map(toDelivery).sort((a, b) => a.nextAttemptAt.localeCompare(b.nextAttemptAt) || a.seq - b.seq);
    },

    async finishDelivery(id, holder, result) {
      const status = result.status ?? null;
      const mine = `FROM (${LAZY}) AS lazy WHERE id = $1 AND claimed_by = $2 AND state = 'pending'`;
      let res: pg.QueryResult;
      if (result.outcome === 'done') {
        res = await pool.query(`UPDATE handoff_deliveries SET state = 'done', last_status = $3, last_error = NULL, finished_at = now(),
          claimed_by = NULL, lease_until = NULL ${mine}`, [id, holder, status]);
      } else if (result.outcome === 'failed') {
        res = await pool.query(`UPDATE handoff_deliveries SET state = 'failed', last_status = $3, last_error = $4, finished_at = now(),
          claimed_by = NULL, lease_until = NULL ${mine}`, [id, holder, status, errorText(result.error)]);
      } else {
        res = await pool.query(`UPDATE handoff_deliveries SET next_attempt_at = now() + $5::bigint * interval '1 millisecond',
          last_status = $3, last_error = $4, claimed_by = NULL, lease_until = NULL ${mine}`,
        [id, holder, status, errorText(result.error), Math.max(0, Math.round(result.retryInMs))]);
      }
      return res.rowCount === 1;
    },

    async finishDeliveries(holder, list) {
      checkFinishBatch(list);
      if (list.length === 0) return [];
      // One statement for the batch: a round trip per delivered event was the dispatcher's limit on PostgreSQL.
      const { rows } = await pool.query<{ id: string }>(
        `UPDATE handoff_deliveries d SET
           state = CASE t.outcome WHEN 'retry' THEN 'pending' ELSE t.outcome END,
           last_status = t.status, last_error = t.error,
           finished_at = CASE t.outcome WHEN 'retry' THEN d.finished_at ELSE now() END,
           next_attempt_at = CASE t.outcome WHEN 'retry' THEN now() + t.ms * interval '1 millisecond' ELSE d.next_attempt_at END,
           claimed_by = NULL, lease_until = NULL
         FROM unnest($2::text[], $3::text[], $4::int[], $5::text[], $6::bigint[]) AS t(id, outcome, status, error, ms), (${LAZY}) AS lazy
         WHERE d.id = t.id AND d.claimed_by = $1 AND d.state = 'pending'
         RETURNING d.id`,
        [checkLabel(holder, 'holder'), list.map((f) => f.id), list.map((f) => f.result.outcome), list.map((f) => f.result.status ?? null),
          list.map((f) => (f.result.outcome === 'done' ? null : errorText(f.result.error))),
          list.map((f) => (f.result.outcome === 'retry' ? Math.max(0, Math.round(f.result.retryInMs)) : 0))],
      );
      const recorded = new Set(rows.map((r) => r.id));
      return list.filter((f) => !recorded.has(f.id)).map((f) => f.id);
    },

    async getDelivery(id) {
      const { rows } = await pool.query(`SELECT ${DELIVERY_COLUMNS}, body FROM handoff_deliveries WHERE id = $1`, [id]);
      return rows[0] && toDelivery(rows[0] as DeliveryRow);
    },

    async listDeliveries({ subscriberId, state, limit }) {
      const { rows } = await pool.query(`SELECT ${DELIVERY_COLUMNS} FROM handoff_deliveries
        WHERE subscriber_id = $1 AND ($2::text IS NULL OR state = $2) ORDER BY seq DESC LIMIT $3`,
      [subscriberId, state ?? null, limitOf(limit)]);
      return (rows as DeliveryRow[]).map(toDeliverySummary);
    },

    async replayDeliveries({ subscriberId, deliveryId, state }) {
      // A pending delivery keeps its claim: its attempt may be under way, and dropping the claim would let a second
      // holder make it at the same time (one attempt at a time per delivery); the holder's result is still recorded.
      const res = await pool.query(`UPDATE handoff_deliveries SET state = 'pending', next_attempt_at = now(), retry_since = now(),
        finished_at = NULL, claimed_by = CASE WHEN state = 'pending' THEN claimed_by END,
        lease_until = CASE WHEN state = 'pending' THEN lease_until END
        WHERE subscriber_id = $1 AND ($2::text IS NULL OR id = $2) AND ($3::text IS NULL OR state = $3)`,
      [subscriberId, deliveryId ?? null, state ?? null]);
      return res.rowCount ?? 0;
    },

    ...(newClient ? { openHandoffBell: (onRing: () => void) => openPostgresBell(pool, newClient, onRing, onError) } : {}),

    async nextDeliveryDueInMs() {
      const { rows } = await pool.query<{ ms: string | null }>(`SELECT extract(epoch FROM (min(greatest(d.next_attempt_at,
          coalesce(d.lease_until, d.next_attempt_at))) - now())) * 1000 AS ms
        FROM handoff_deliveries d JOIN handoff_subscribers s ON s.id = d.subscriber_id WHERE d.state = 'pending' AND s.state = 'active'
          AND ${FIRST_OF_ORDER}`);
      const ms = rows[0]?.ms;
      return ms === null || ms === undefined ? undefined : Math.max(0, Math.ceil(Number(ms)));
    },
  };
}
