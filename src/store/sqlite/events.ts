/**
 * The outbox's tables in the embedded store (migration 007): see the EventStore port in events.ts. One process
 * writes, through the group commit, so commit order is seq order and the cursor is the seq itself: a reader can
 * never see seq n+1 before seq n. Event inserts run inside the writer's transactions (registration, outcome,
 * production state), never on their own.
 */
import type Database from 'better-sqlite3';
import { alreadyExists } from '../common/refusals.ts';
import type { OrderEvent } from '../../domain/order-events.ts';
import type { ProductionStep, RegisteredOrder } from '../../domain/types.ts';
import { RETENTION_SCAN, eventLimit, type EventStore, type Integration, type NewEvent, type ProductionChange } from '../../domain/store/events.ts';
import { expiredCursor, invalidCursor, toOrderEvent } from '../common/events.ts';
import { isoIn } from '../common/rows.ts';
import type { SqliteWriter } from './writer.ts';

type Q = (sql: string) => Database.Statement;

/** A seq, as text; at most 15 digits so that it stays an exact JavaScript number. */
const CURSOR = /^[1-9]\d{0,14}$/;

interface EventRow { seq: number; id: string; type: string; time: string; data: string }
interface IntegrationRow {
  id: string; name: string; key_id: string; secret_hash: string; created_at: string; rotated_at: string | null; revoked_at: string | null;
}

function toIntegration(r: IntegrationRow): Integration {
  const i: Integration = { id: r.id, name: r.name, keyId: r.key_id, secretHash: r.secret_hash, createdAt: r.created_at };
  if (r.rotated_at !== null) i.rotatedAt = r.rotated_at;
  if (r.revoked_at !== null) i.revokedAt = r.revoked_at;
  return i;
}

/** Write `events` (inside the caller's transaction). */
export function insertEvents(q: Q, events: readonly NewEvent[]): void {
  if (events.length === 0) return;
  const s = q('INSERT INTO order_events (id, type, time, order_id, customer_id, data) VALUES (?, ?, ?, ?, ?, ?)');
  for (const e of events) s.run(e.id, e.type, isoIn(e.time, 'time'), e.orderId ?? null, e.customerId, JSON.stringify(e.data));
}

/** Production history of these orders, oldest first (only orders with a production state have any). */
export function sqliteProductionHistory(q: Q, orderIds: readonly string[]): Map<string, ProductionStep[]> {
  const map = new Map<string, ProductionStep[]>();
  if (orderIds.length === 0) return map;
  const rows = q(`SELECT order_id, stato, nota, at FROM order_production_history WHERE order_id IN (SELECT value FROM json_each(?))
    ORDER BY order_id, idx`).all(JSON.stringify(orderIds)) as { order_id: string; stato: ProductionStep['stato']; nota: string | null; at: string }[];
  for (const r of rows) {
    const step: ProductionStep = { stato: r.stato, aggiornato_il: r.at };
    if (r.nota !== null) step.nota = r.nota;
    const list = map.get(r.order_id);
    if (list) list.push(step);
    else map.set(r.order_id, [step]);
  }
  return map;
}

export function sqliteEvents(q: Q, writer: SqliteWriter, orderById: (id: string) => RegisteredOrder | undefined): EventStore {
  function active(name: string): IntegrationRow | undefined {
    return q('SELECT * FROM integrations WHERE name = ? AND revoked_at IS NULL').get(name) as IntegrationRow | undefined;
  }

  function uniqueClash(e: unknown): boolean {
    const code = (e as { code?: string }).code;
    return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
  }

  return {
    async readEvents(cursor: string | null, limit: number): Promise<OrderEvent[]> {
      let after = 0;
      if (cursor !== null) {
        if (!CURSOR.test(cursor)) throw invalidCursor(cursor);
        after = Number(cursor);
        // At or before what retention deleted: events after it may be gone, so reading on could skip some.
        const pruned = q('SELECT through FROM order_events_pruned WHERE one = 1').get() as { through: number } | undefined;
        if (pruned && after <= pruned.through) throw expiredCursor(cursor);
        if (!q('SELECT 1 FROM order_events WHERE seq = ?').get(after)) throw invalidCursor(cursor);
      }
      const rows = q('SELECT seq, id, type, time, data FROM order_events WHERE seq > ? ORDER BY seq LIMIT ?')
        .all(after, eventLimit(limit)) as EventRow[];
      return rows.map((r) => toOrderEvent({ ...r, data: JSON.parse(r.data) as Record<string, unknown> }, String(r.seq)));
    },

    async pruneEvents(before, limit) {
      const cutoff = isoIn(before, 'before');
      return writer.write(() => {
        // Subscribers' cursors are seqs: nothing at or after the lowest is deleted.
        const { low } = q('SELECT min(CAST(cursor AS INTEGER)) AS low FROM handoff_subscribers WHERE cursor IS NOT NULL').get() as { low: number | null };
        const rows = q(`SELECT e.seq FROM (SELECT seq, id, time FROM order_events ORDER BY seq LIMIT @scan) AS e
          WHERE e.time < @cutoff AND (@low IS NULL OR e.seq < @low)
            AND NOT EXISTS (SELECT 1 FROM handoff_deliveries d WHERE d.event_id = e.id AND d.state = 'pending')
          ORDER BY e.seq LIMIT @n`).all({ scan: RETENTION_SCAN, cutoff, low, n: Math.max(1, Math.floor(limit)) }) as { seq: number }[];
        if (rows.length === 0) return 0;
        const seqs = rows.map((r) => r.seq);
        q('DELETE FROM order_events WHERE seq IN (SELECT value FROM json_each(?))').run(JSON.stringify(seqs));
        q(`INSERT INTO order_events_pruned (one, through) VALUES (1, ?)
          ON CONFLICT (one) DO UPDATE SET through = max(through, excluded.through)`).run(seqs[seqs.length - 1]);
        return seqs.length;
      });
    },

    async addIntegration(i) {
      try {
        q('INSERT INTO integrations (id, name, key_id, secret_hash, created_at) VALUES (?, ?, ?, ?, ?)')
          .run(i.id, i.name, i.keyId, i.secretHash, isoIn(i.createdAt, 'createdAt'));
      } catch (e) {
        if (uniqueClash(e)) throw alreadyExists.integration(i.name);
        throw e;
      }
    },

    async findIntegration(keyId) {
      const r = q('SELECT * FROM integrations WHERE key_id = ? AND revoked_at IS NULL').get(keyId) as IntegrationRow | undefined;
      return r && toIntegration(r);
    },

    async listIntegrations() {
      return (q('SELECT * FROM integrations ORDER BY created_at, id').all() as IntegrationRow[]).map(toIntegration);
    },

    async rotateIntegration(name, key, at) {
      const r = active(name);
      if (!r) return false;
      return q('UPDATE integrations SET key_id = ?, secret_hash = ?, rotated_at = ? WHERE id = ? AND revoked_at IS NULL')
        .run(key.keyId, key.secretHash, isoIn(at, 'at'), r.id).changes === 1;
    },

    async revokeIntegration(name, at) {
      return q('UPDATE integrations SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL').run(isoIn(at, 'at'), name).changes > 0;
    },

    async getOrderAnyCustomer(id) {
      return orderById(id);
    },

    async setProductionState(c: ProductionChange) {
      return writer.write(() => {
        const { changes } = q(`UPDATE orders SET production_state = ? WHERE id = ? AND production_state IS ?`)
          .run(c.to, c.orderId, c.from);
        if (changes === 0) return false;
        const { n } = q('SELECT count(*) AS n FROM order_production_history WHERE order_id = ?').get(c.orderId) as { n: number };
        q('INSERT INTO order_production_history (order_id, idx, stato, nota, at, integration) VALUES (?, ?, ?, ?, ?, ?)')
          .run(c.orderId, n, c.to, c.nota ?? null, isoIn(c.at, 'at'), c.integration);
        insertEvents(q, [c.event]);
        return true;
      });
    },
  };
}
