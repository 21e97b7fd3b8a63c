/**
 * The lifecycle's tables in PostgreSQL (migration 034): see the LifecycleStore port. Each write is one transaction
 * whose first statement is the compare-and-set on the order's row: a concurrent writer of the same order waits for
 * that row's lock, then finds the version (or state) moved and writes nothing. No lock wider than the row.
 */
import type pg from 'pg';
import type { PoolClient } from 'pg';
import type { LifecycleStore } from '../../domain/store/lifecycle.ts';
import { isoIn } from '../common/rows.ts';
import { REQUEST_COLUMNS, toRequest, toVersion, versionContent, type RequestRow, type VersionRow } from '../common/lifecycle-rows.ts';
import { insertEventsQuery } from './events.ts';
import { pgCode } from './tx.ts';
import { RequestMoved, undoneIfMoved } from '../common/lifecycle-rows.ts';

type WriteTx = <T>(fn: (c: PoolClient) => Promise<T>) => Promise<T>;

async function decide(c: PoolClient, orderId: string, id: string, state: 'accettata' | 'rifiutata', nota: string | undefined, at: string): Promise<boolean> {
  const res = await c.query(`UPDATE order_requests SET state = $1, note = $2, decided_at = $3 WHERE id = $4 AND order_id = $5 AND state = 'in_attesa'`,
    [state, nota ?? null, at, id, orderId]);
  return res.rowCount === 1;
}

async function events(c: PoolClient, list: Parameters<typeof insertEventsQuery>[0]): Promise<void> {
  if (list.length === 0) return;
  const [sql, params] = insertEventsQuery(list);
  await c.query(sql, params);
}

export function postgresLifecycle(pool: pg.Pool, writeTx: WriteTx): LifecycleStore {
  return {
    async orderVersions(orderId) {
      const { rows } = await pool.query<VersionRow>(`SELECT versione, made_at, channel, action, submission_id, content FROM order_versions
        WHERE order_id = $1 ORDER BY versione`, [orderId]);
      return rows.map(toVersion);
    },

    async orderRequests(orderId) {
      const { rows } = await pool.query<RequestRow>(`SELECT ${REQUEST_COLUMNS} FROM order_requests WHERE order_id = $1 ORDER BY created_at, id COLLATE "C"`, [orderId]);
      return rows.map(toRequest);
    },

    async writeVersion(w) {
      const at = isoIn(w.at, 'at');
      return undoneIfMoved(() => writeTx(async (c) => {
        const o = w.order;
        const upd = await c.query(`UPDATE orders SET versione = versione + 1, version_at = $1, version_channel = $2, data_ordine = $3,
            data_consegna = $4, note = $5, content_hash = $6
          WHERE id = $7 AND versione = $8 AND production_state IS NOT DISTINCT FROM $9::text`,
        [at, w.channel, o.data_ordine, o.data_consegna ?? null, o.note ?? null, w.contentHash, w.orderId, w.from, w.fromState]);
        if (upd.rowCount !== 1) return false;
        if (w.request && !(await decide(c, w.orderId, w.request.id, 'accettata', w.request.nota, at))) {
          throw new RequestMoved();
        }
        const p = w.previous;
        await c.query(`INSERT INTO order_versions (order_id, versione, made_at, channel, action, submission_id, content)
          VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
        [w.orderId, p.versione, isoIn(p.ricevuto_il, 'ricevuto_il'), p.canale, p.azione, p.submissionId, versionContent(p.order)]);
        await c.query('DELETE FROM order_lines WHERE order_id = $1', [w.orderId]);
        await c.query(`INSERT INTO order_lines (order_id, idx, codice_articolo, quantita, unita_misura)
          SELECT $1, t.i - 1, t.code, t.qty, t.unit FROM unnest($2::text[], $3::float8[], $4::text[]) WITH ORDINALITY AS t(code, qty, unit, i)`,
        [w.orderId, o.righe.map((r) => r.codice_articolo), o.righe.map((r) => r.quantita), o.righe.map((r) => r.unita_misura)]);
        await events(c, w.events);
        return true;
      }));
    },

    async cancelOrder(w) {
      const at = isoIn(w.at, 'at');
      return undoneIfMoved(() => writeTx(async (c) => {
        const upd = await c.query(`UPDATE orders SET production_state = 'annullato'
          WHERE id = $1 AND versione = $2 AND production_state IS NOT DISTINCT FROM $3::text`, [w.orderId, w.from, w.fromState]);
        if (upd.rowCount !== 1) return false;
        if (w.request && !(await decide(c, w.orderId, w.request.id, 'accettata', w.request.nota, at))) {
          throw new RequestMoved();
        }
        // The order's row is locked by the UPDATE above: no other history step of it can be counted meanwhile.
        await c.query(`INSERT INTO order_production_history (order_id, idx, stato, nota, at, integration)
          SELECT $1, count(*), 'annullato', $2, $3, $4 FROM order_production_history WHERE order_id = $1`,
        [w.orderId, w.motivo ?? null, at, w.by]);
        await events(c, w.events);
        return true;
      }));
    },

    async addRequest(r) {
      const at = isoIn(r.createdAt, 'createdAt');
      const mine = async (c: Pick<PoolClient, 'query'>) => (await c.query<RequestRow>(
        `SELECT ${REQUEST_COLUMNS} FROM order_requests WHERE submission_id = $1 AND order_id = $2`, [r.submissionId, r.orderId])).rows[0];
      const waiting = async (c: Pick<PoolClient, 'query'>) => (await c.query<RequestRow>(
        `SELECT ${REQUEST_COLUMNS} FROM order_requests WHERE order_id = $1 AND state = 'in_attesa'`, [r.orderId])).rows[0];
      try {
        return await writeTx(async (c) => {
          const found = await mine(c);
          if (found) return { status: 'existing' as const, request: toRequest(found) };
          const other = await waiting(c);
          if (other) return { status: 'pending' as const, request: toRequest(other) };
          const { rows } = await c.query<RequestRow>(`INSERT INTO order_requests (${REQUEST_COLUMNS})
            VALUES ($1, $2, $3, $4, 'in_attesa', $5, NULL, $6::jsonb, $7, $8, $9, $10, $11, NULL) RETURNING ${REQUEST_COLUMNS}`,
          [r.id_richiesta, r.orderId, r.customerId, r.tipo, r.motivo ?? null, r.order ? versionContent(r.order) : null,
            r.contentHash ?? null, r.baseVersion, r.submissionId, r.channel, at]);
          await events(c, [r.event]);
          return { status: 'created' as const, request: toRequest(rows[0]!) };
        });
      } catch (e) {
        // Another instance recorded a request of this order (or this submission's) between our reads and our insert.
        if (pgCode(e) !== '23505') throw e;
        const found = await mine(pool);
        if (found) return { status: 'existing' as const, request: toRequest(found) };
        const other = await waiting(pool);
        if (other) return { status: 'pending' as const, request: toRequest(other) };
        throw e;
      }
    },

    async refuseRequest(r) {
      const at = isoIn(r.at, 'at');
      return writeTx(async (c) => {
        if (!(await decide(c, r.orderId, r.id, 'rifiutata', r.nota, at))) return false;
        await events(c, [r.event]);
        return true;
      });
    },
  };
}
