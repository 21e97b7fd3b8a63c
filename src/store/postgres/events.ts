/**
 * The outbox's tables in the shared store (migration 007): see the EventStore port in events.ts.
 *
 * Several instances commit out of seq order: seq 11 may be committed and visible while seq 10's transaction is
 * still open, so a reader that took `seq > last` would step over 10 for ever. Each event therefore keeps the id of
 * the transaction that wrote it (xid8, assigned in xid order and never reused), the stream is ordered by (xid, seq),
 * and a read returns only events whose xid is below the xmin of its own snapshot: every transaction below xmin has
 * finished, so no event can later appear before anything returned. The cursor is "<xid>_<seq>". What it costs:
 * an event becomes readable only once every transaction that started writing before it has ended (any writing
 * transaction on the server, not only ours); see docs/development/outbox.md.
 */
import type pg from 'pg';
import type { OrderWriters } from './order-writers.ts';
import { alreadyExists } from '../common/refusals.ts';
import type { OrderEvent } from '../../domain/order-events.ts';
import type { ProductionStep, RegisteredOrder } from '../../domain/types.ts';
import { RETENTION_SCAN, eventLimit, type EventStore, type Integration, type NewEvent, type ProductionChange } from '../../domain/store/events.ts';
import { expiredCursor, invalidCursor, toOrderEvent } from '../common/events.ts';
import { isoIn, isoOut, optIsoOut } from '../common/rows.ts';
import { pgCode } from './tx.ts';

/** xid and seq as decimal text; the bounds keep both inside what xid8 and bigint hold. */
const CURSOR = /^(\d{1,19})_(\d{1,18})$/;

interface EventRow { xid: string; seq: string; id: string; type: string; time: unknown; data: Record<string, unknown> }
interface IntegrationRow {
  id: string; name: string; key_id: string; secret_hash: string; created_at: unknown; rotated_at: unknown; revoked_at: unknown;
}

function toIntegration(r: IntegrationRow): Integration {
  const i: Integration = { id: r.id, name: r.name, keyId: r.key_id, secretHash: r.secret_hash, createdAt: isoOut(r.created_at) };
  const rotated = optIsoOut(r.rotated_at);
  const revoked = optIsoOut(r.revoked_at);
  if (rotated !== undefined) i.rotatedAt = rotated;
  if (revoked !== undefined) i.revokedAt = revoked;
  return i;
}

const EVENT_FIELDS = `xid::text AS xid, seq::text AS seq, id, type, time, data`;
/**
 * The stream's order, by the table's columns. Not `ORDER BY xid, seq`: next to EVENT_FIELDS those names are the
 * output columns, the text casts, and PostgreSQL then sorts as text: seq 10 before 9 in one transaction, xid 10000
 * before 9999, and a page cut by LIMIT in that order makes its last cursor skip or repeat events.
 */
const STREAM_ORDER = 'ORDER BY order_events.xid, order_events.seq';
/** Below the oldest transaction still running: all finished, nothing can appear among them any more. */
const VISIBLE = 'xid < pg_snapshot_xmin(pg_current_snapshot())';

/** The INSERT that writes `events` in the caller's transaction (statement, parameters); ORDINALITY keeps their order. */
export function insertEventsQuery(events: readonly NewEvent[]): [string, unknown[]] {
  return [
    `INSERT INTO order_events (id, type, time, order_id, customer_id, data)
     SELECT t.id, t.type, t.time, t.order_id, t.customer_id, t.data
     FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::jsonb[]) WITH ORDINALITY
       AS t(id, type, time, order_id, customer_id, data, i) ORDER BY t.i`,
    [events.map((e) => e.id), events.map((e) => e.type), events.map((e) => isoIn(e.time, 'time')),
      events.map((e) => e.orderId ?? null), events.map((e) => e.customerId), events.map((e) => JSON.stringify(e.data))],
  ];
}

/** Production history of these orders, oldest first (only orders with a production state have any). */
export async function pgProductionHistory(pool: pg.Pool, orderIds: readonly string[]): Promise<Map<string, ProductionStep[]>> {
  const map = new Map<string, ProductionStep[]>();
  if (orderIds.length === 0) return map;
  const { rows } = await pool.query<{ order_id: string; stato: ProductionStep['stato']; nota: string | null; at: unknown }>(
    'SELECT order_id, stato, nota, at FROM order_production_history WHERE order_id = ANY($1::text[]) ORDER BY order_id, idx',
    [orderIds],
  );
  for (const r of rows) {
    const step: ProductionStep = { stato: r.stato, aggiornato_il: isoOut(r.at) };
    if (r.nota !== null) step.nota = r.nota;
    const list = map.get(r.order_id);
    if (list) list.push(step);
    else map.set(r.order_id, [step]);
  }
  return map;
}

export function postgresEvents(pool: pg.Pool, writers: OrderWriters, orderById: (id: string) => Promise<RegisteredOrder | undefined>): EventStore {
  return {
    async readEvents(cursor: string | null, limit: number): Promise<OrderEvent[]> {
      let rows: (EventRow & { ok?: boolean })[];
      if (cursor === null) {
        rows = (await pool.query<EventRow>(
          `SELECT ${EVENT_FIELDS} FROM order_events WHERE ${VISIBLE} ${STREAM_ORDER} LIMIT $1`, [eventLimit(limit)])).rows;
      } else {
        const m = CURSOR.exec(cursor);
        if (!m) throw invalidCursor(cursor);
        // One round trip for the three questions: is the cursor at or before what retention deleted, does it name
        // an event, and what follows it. Always one row.
        rows = (await pool.query<EventRow & { ok: boolean; expired: boolean }>(
          `WITH c AS (SELECT EXISTS (SELECT 1 FROM order_events WHERE xid = $1::xid8 AND seq = $2::bigint) AS ok,
                  EXISTS (SELECT 1 FROM order_events_pruned WHERE ($1::xid8, $2::bigint) <= (through_xid, through_seq)) AS expired)
           SELECT c.ok, c.expired, e.* FROM c LEFT JOIN LATERAL (
             SELECT ${EVENT_FIELDS} FROM order_events
             WHERE c.ok AND NOT c.expired AND (xid, seq) > ($1::xid8, $2::bigint) AND ${VISIBLE} ${STREAM_ORDER} LIMIT $3
           ) AS e ON true`,
          [m[1], m[2], eventLimit(limit)])).rows;
        if ((rows[0] as { expired?: boolean } | undefined)?.expired) throw expiredCursor(cursor);
        if (!rows[0]?.ok) throw invalidCursor(cursor);
        rows = rows.filter((r) => r.id !== null);
      }
      return rows.map((r) => toOrderEvent({ id: r.id, type: r.type, time: isoOut(r.time), data: r.data }, `${r.xid}_${r.seq}`));
    },

    async hasUnreadableEvents() {
      // Committed (visible to this statement's snapshot) but at or above its xmin: readable once the older
      // transactions end. A backward scan of the primary key from its end, so cheap even on a long stream.
      const { rows } = await pool.query<{ waiting: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM order_events WHERE xid >= pg_snapshot_xmin(pg_current_snapshot())) AS waiting');
      return rows[0]?.waiting === true;
    },

    async pruneEvents(before, limit) {
      // Subscribers' cursors are "<xid>_<seq>": nothing at or after the lowest is deleted (compared in SQL as rows).
      const { rows: subs } = await pool.query<{ cursor: string }>('SELECT cursor FROM handoff_subscribers WHERE cursor IS NOT NULL');
      const low = subs.map((r) => CURSOR.exec(r.cursor)).filter((m) => m !== null)
        .map((m) => [BigInt(m[1]!), BigInt(m[2]!)] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))[0];
      const { rows } = await pool.query<{ n: number }>(
        `WITH cand AS (
           SELECT xid, seq, id, time FROM order_events ORDER BY xid, seq LIMIT $5
         ), doomed AS (
           SELECT c.xid, c.seq FROM cand c
           WHERE c.time < $1::timestamptz AND ($3::text IS NULL OR (c.xid, c.seq) < ($3::xid8, $4::bigint))
             AND NOT EXISTS (SELECT 1 FROM handoff_deliveries d WHERE d.event_id = c.id AND d.state = 'pending')
           ORDER BY c.xid, c.seq LIMIT $2
         ), del AS (
           DELETE FROM order_events e USING doomed WHERE e.xid = doomed.xid AND e.seq = doomed.seq RETURNING e.xid, e.seq
         ), top AS (
           SELECT xid, seq FROM del ORDER BY xid DESC, seq DESC LIMIT 1
         ), mark AS (
           INSERT INTO order_events_pruned (one, through_xid, through_seq) SELECT 1, xid, seq FROM top
           ON CONFLICT (one) DO UPDATE SET through_xid = excluded.through_xid, through_seq = excluded.through_seq
             WHERE (order_events_pruned.through_xid, order_events_pruned.through_seq) < (excluded.through_xid, excluded.through_seq)
         )
         SELECT count(*)::int AS n FROM del`,
        [isoIn(before, 'before'), Math.max(1, Math.floor(limit)), low ? String(low[0]) : null, low ? String(low[1]) : null, RETENTION_SCAN],
      );
      return rows[0]?.n ?? 0;
    },

    async addIntegration(i) {
      try {
        await pool.query('INSERT INTO integrations (id, name, key_id, secret_hash, created_at) VALUES ($1, $2, $3, $4, $5)',
          [i.id, i.name, i.keyId, i.secretHash, isoIn(i.createdAt, 'createdAt')]);
      } catch (e) {
        if (pgCode(e) === '23505') throw alreadyExists.integration(i.name);
        throw e;
      }
    },

    async findIntegration(keyId) {
      const { rows } = await pool.query<IntegrationRow>('SELECT * FROM integrations WHERE key_id = $1 AND revoked_at IS NULL', [keyId]);
      return rows[0] && toIntegration(rows[0]);
    },

    async listIntegrations() {
      const { rows } = await pool.query<IntegrationRow>('SELECT * FROM integrations ORDER BY created_at, id COLLATE "C"');
      return rows.map(toIntegration);
    },

    async rotateIntegration(name, key, at) {
      const res = await pool.query(
        'UPDATE integrations SET key_id = $2, secret_hash = $3, rotated_at = $4 WHERE name = $1 AND revoked_at IS NULL',
        [name, key.keyId, key.secretHash, isoIn(at, 'at')]);
      return (res.rowCount ?? 0) > 0;
    },

    async revokeIntegration(name, at) {
      const res = await pool.query('UPDATE integrations SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL', [name, isoIn(at, 'at')]);
      return (res.rowCount ?? 0) > 0;
    },

    getOrderAnyCustomer: orderById,

    async setProductionState(c: ProductionChange) {
      // One statement, one transaction. The UPDATE is the compare-and-set: a concurrent report on the same order
      // waits for the row lock, then finds the state moved and updates nothing, so its history and event are not
      // written either (they hang off upd).
      const { rows } = await writers.query<{ n: number }>(
        `WITH upd AS (
           UPDATE orders SET production_state = $2 WHERE id = $1 AND production_state IS NOT DISTINCT FROM $3::text RETURNING id
         ), hist AS (
           INSERT INTO order_production_history (order_id, idx, stato, nota, at, integration)
           SELECT upd.id, (SELECT count(*) FROM order_production_history WHERE order_id = $1), $2, $4, $5, $6 FROM upd
         ), ev AS (
           INSERT INTO order_events (id, type, time, order_id, customer_id, data)
           SELECT $7, $8, $5, upd.id, $9, $10::jsonb FROM upd
         )
         SELECT count(*)::int AS n FROM upd`,
        [c.orderId, c.to, c.from, c.nota ?? null, isoIn(c.at, 'at'), c.integration, c.event.id, c.event.type, c.event.customerId,
          JSON.stringify(c.event.data)],
      );
      return rows[0]?.n === 1;
    },
  };
}
