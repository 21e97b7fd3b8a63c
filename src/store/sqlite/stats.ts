/** Queue depths in the embedded store: see stats.ts. */
import type Database from 'better-sqlite3';
import { statementCache } from './statements.ts';
import { QUEUE_COUNTS, type StatsStore } from '../../domain/store/stats.ts';

export function sqliteStats(db: Database.Database): StatsStore {
  const q = statementCache(db);
  return {
    async countQueue(queue) {
      return Number((q(QUEUE_COUNTS[queue]).get() as { n: number }).n);
    },
  };
}
