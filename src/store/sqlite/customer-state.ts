/** The customer's state and activity in the embedded store (migration 013): see customer-state.ts. */
import type Database from 'better-sqlite3';
import { isoIn, nowIso } from '../common/rows.ts';
import { statementCache } from './statements.ts';
import { SQLITE_ESITO } from './web.ts';
import { mergeActivity, type CustomerStateStore } from '../../domain/store/customer-state.ts';

export function sqliteCustomerState(db: Database.Database): CustomerStateStore {
  const q = statementCache(db);
  const setDeactivated = db.transaction((id: string, deactivated: boolean): boolean => {
    const { changes } = deactivated
      ? q('UPDATE customers SET deactivated_at = coalesce(deactivated_at, ?) WHERE id = ?').run(nowIso(), id)
      : q('UPDATE customers SET deactivated_at = NULL WHERE id = ?').run(id);
    if (changes > 0 && deactivated) q(`DELETE FROM web_sessions WHERE kind = 'customer' AND subject_id = ?`).run(id);
    return changes > 0;
  });
  return {
    async setCustomerDeactivated(id, deactivated) {
      return setDeactivated(id, deactivated);
    },
    async customerActivity(customerId, since) {
      const from = isoIn(since, 'since');
      const subs = q(`SELECT channel, count(*) AS n, sum(CASE WHEN ${SQLITE_ESITO} = 'errore' THEN 1 ELSE 0 END) AS refused
        FROM submissions WHERE customer_id = ? AND received_at >= ? GROUP BY channel`).all(customerId, from) as { channel: string; n: number; refused: number }[];
      const orders = q(`SELECT channel, count(*) AS n FROM orders WHERE customer_id = ? AND registered_at >= ? GROUP BY channel`)
        .all(customerId, from) as { channel: string; n: number }[];
      return mergeActivity(subs, orders);
    },
  };
}
