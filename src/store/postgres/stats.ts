/** Queue depths on PostgreSQL: see stats.ts. */
import type pg from 'pg';
import type { StatsStore } from '../../domain/store/stats.ts';
import type { OrderWriters } from './order-writers.ts';
import { QUEUE_COUNTS } from '../common/queue-counts.ts';

export function postgresStats(pool: pg.Pool, writers: OrderWriters): StatsStore {
  return {
    async countQueue(queue) {
      const { rows } = await pool.query<{ n: string }>(QUEUE_COUNTS[queue]);
      return Number(rows[0]?.n ?? 0);
    },
    writerConnections: () => writers.use(),
  };
}
