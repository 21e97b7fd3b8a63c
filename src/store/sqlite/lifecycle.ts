/**
 * The lifecycle's tables in the embedded store (migration 034): see the LifecycleStore port. Every write goes through
 * the group commit; its first statement is the compare-and-set on the order's row, and nothing else is written when
 * that updates no row.
 */
import type Database from 'better-sqlite3';
import type { LifecycleStore } from '../../domain/store/lifecycle.ts';
import { isoIn } from '../common/rows.ts';
import { REQUEST_COLUMNS, toRequest, toVersion, versionContent, type RequestRow, type VersionRow } from '../common/lifecycle-rows.ts';
import { insertEvents } from './events.ts';
import type { SqliteWriter } from './writer.ts';
import { RequestMoved, undoneIfMoved } from '../common/lifecycle-rows.ts';

type Q = (sql: string) => Database.Statement;

export function sqliteLifecycle(q: Q, writer: SqliteWriter): LifecycleStore {
  function decide(orderId: string, id: string, state: 'accettata' | 'rifiutata', nota: string | undefined, at: string): boolean {
    return q(`UPDATE order_requests SET state = ?, note = ?, decided_at = ? WHERE id = ? AND order_id = ? AND state = 'in_attesa'`)
      .run(state, nota ?? null, at, id, orderId).changes === 1;
  }

  function historyStep(orderId: string, stato: string, nota: string | undefined, at: string, by: string): void {
    const { n } = q('SELECT count(*) AS n FROM order_production_history WHERE order_id = ?').get(orderId) as { n: number };
    q('INSERT INTO order_production_history (order_id, idx, stato, nota, at, integration) VALUES (?, ?, ?, ?, ?, ?)')
      .run(orderId, n, stato, nota ?? null, at, by);
  }

  return {
    async orderVersions(orderId) {
      const rows = q(`SELECT versione, made_at, channel, action, submission_id, content FROM order_versions
        WHERE order_id = ? ORDER BY versione`).all(orderId) as VersionRow[];
      return rows.map(toVersion);
    },

    async orderRequests(orderId) {
      const rows = q(`SELECT ${REQUEST_COLUMNS} FROM order_requests WHERE order_id = ? ORDER BY created_at, id`).all(orderId) as RequestRow[];
      return rows.map(toRequest);
    },

    async writeVersion(w) {
      const at = isoIn(w.at, 'at');
      return undoneIfMoved(() => writer.write(() => {
        const o = w.order;
        const { changes } = q(`UPDATE orders SET versione = versione + 1, version_at = ?, version_channel = ?, data_ordine = ?,
            data_consegna = ?, note = ?, content_hash = ?
          WHERE id = ? AND versione = ? AND production_state IS ?`)
          .run(at, w.channel, o.data_ordine, o.data_consegna ?? null, o.note ?? null, w.contentHash, w.orderId, w.from, w.fromState);
        if (changes === 0) return false;
        if (w.request && !decide(w.orderId, w.request.id, 'accettata', w.request.nota, at)) throw new RequestMoved();
        const p = w.previous;
        q(`INSERT INTO order_versions (order_id, versione, made_at, channel, action, submission_id, content) VALUES (?, ?, ?, ?, ?, ?, ?)`)
          .run(w.orderId, p.versione, isoIn(p.ricevuto_il, 'ricevuto_il'), p.canale, p.azione, p.submissionId, versionContent(p.order));
        q('DELETE FROM order_lines WHERE order_id = ?').run(w.orderId);
        const line = q('INSERT INTO order_lines (order_id, idx, codice_articolo, quantita, unita_misura) VALUES (?, ?, ?, ?, ?)');
        o.righe.forEach((r, i) => line.run(w.orderId, i, r.codice_articolo, r.quantita, r.unita_misura));
        insertEvents(q, w.events);
        return true;
      }));
    },

    async cancelOrder(w) {
      const at = isoIn(w.at, 'at');
      return undoneIfMoved(() => writer.write(() => {
        const { changes } = q(`UPDATE orders SET production_state = 'annullato' WHERE id = ? AND versione = ? AND production_state IS ?`)
          .run(w.orderId, w.from, w.fromState);
        if (changes === 0) return false;
        if (w.request && !decide(w.orderId, w.request.id, 'accettata', w.request.nota, at)) throw new RequestMoved();
        historyStep(w.orderId, 'annullato', w.motivo, at, w.by);
        insertEvents(q, w.events);
        return true;
      }));
    },

    async addRequest(r) {
      const at = isoIn(r.createdAt, 'createdAt');
      return writer.write(() => {
        const mine = q(`SELECT ${REQUEST_COLUMNS} FROM order_requests WHERE submission_id = ? AND order_id = ?`).get(r.submissionId, r.orderId) as RequestRow | undefined;
        if (mine) return { status: 'existing' as const, request: toRequest(mine) };
        const waiting = q(`SELECT ${REQUEST_COLUMNS} FROM order_requests WHERE order_id = ? AND state = 'in_attesa'`).get(r.orderId) as RequestRow | undefined;
        if (waiting) return { status: 'pending' as const, request: toRequest(waiting) };
        q(`INSERT INTO order_requests (${REQUEST_COLUMNS}) VALUES (?, ?, ?, ?, 'in_attesa', ?, NULL, ?, ?, ?, ?, ?, ?, NULL)`)
          .run(r.id_richiesta, r.orderId, r.customerId, r.tipo, r.motivo ?? null, r.order ? versionContent(r.order) : null,
            r.contentHash ?? null, r.baseVersion, r.submissionId, r.channel, at);
        insertEvents(q, [r.event]);
        const made = q(`SELECT ${REQUEST_COLUMNS} FROM order_requests WHERE id = ?`).get(r.id_richiesta) as RequestRow;
        return { status: 'created' as const, request: toRequest(made) };
      });
    },

    async refuseRequest(r) {
      const at = isoIn(r.at, 'at');
      return writer.write(() => {
        if (!decide(r.orderId, r.id, 'rifiutata', r.nota, at)) return false;
        insertEvents(q, [r.event]);
        return true;
      });
    },
  };
}
