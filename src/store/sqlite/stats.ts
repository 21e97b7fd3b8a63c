/** Queue depths in the embedded store: see stats.ts. */
import type Database from 'better-sqlite3';
import { statementCache } from './statements.ts';
import type { StatsStore } from '../../domain/store/stats.ts';
import { QUEUE_COUNTS } from '../common/queue-counts.ts';

export function sqliteStats(db: Database.Database): StatsStore {
  const q = statementCache(db);
  return {
    async countQueue(queue) {
      return Number((q(QUEUE_COUNTS[queue]).get() as { n: number }).n);
    },
    // One write thread and no pool: nothing to report.
    writerConnections: () => undefined,
  };
}
