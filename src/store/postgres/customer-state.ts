/** The customer's state and activity on PostgreSQL (migration 013): see customer-state.ts. */
import type pg from 'pg';
import { withTransaction } from './tx.ts';
import { isoIn, nowIso } from '../common/rows.ts';
import { PG_ESITO } from './web.ts';
import { mergeActivity, type CustomerStateStore } from '../../domain/store/customer-state.ts';

export function postgresCustomerState(pool: pg.Pool): CustomerStateStore {
  return {
    async setCustomerDeactivated(id, deactivated) {
      return withTransaction(pool, async (c) => {
        const { rowCount } = deactivated
          ? await c.query('UPDATE customers SET deactivated_at = coalesce(deactivated_at, $1) WHERE id = $2', [nowIso(), id])
          : await c.query('UPDATE customers SET deactivated_at = NULL WHERE id = $1', [id]);
        if (rowCount && deactivated) await c.query(`DELETE FROM web_sessions WHERE kind = 'customer' AND subject_id = $1`, [id]);
        return (rowCount ?? 0) > 0;
      });
    },
    async customerActivity(customerId, since) {
      const from = isoIn(since, 'since');
      const [subs, orders] = await Promise.all([
        pool.query(`SELECT channel, count(*) AS n, count(*) FILTER (WHERE ${PG_ESITO} = 'errore') AS refused
          FROM submissions WHERE customer_id = $1 AND received_at >= $2 GROUP BY channel`, [customerId, from]),
        pool.query('SELECT channel, count(*) AS n FROM orders WHERE customer_id = $1 AND registered_at >= $2 GROUP BY channel', [customerId, from]),
      ]);
      return mergeActivity(subs.rows as { channel: string; n: string; refused: string }[], orders.rows as { channel: string; n: string }[]);
    },
  };
}
