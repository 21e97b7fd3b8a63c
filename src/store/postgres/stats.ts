/** Queue depths on PostgreSQL: see stats.ts. */
import type pg from 'pg';
import { QUEUE_COUNTS, type StatsStore } from '../../domain/store/stats.ts';

export function postgresStats(pool: pg.Pool): StatsStore {
  return {
    async countQueue(queue) {
      const { rows } = await pool.query<{ n: string }>(QUEUE_COUNTS[queue]);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
