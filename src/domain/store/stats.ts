/**
 * Queue depths for monitoring (GET /metrics): how much work is waiting, counted in the store so that every instance
 * sharing a PostgreSQL database reports the same figure.
 *
 * Adding a queue (e.g. webhook deliveries) is one name here and its counting query in src/store/common/queue-counts.ts:
 * the metrics and the docs pick it up by name.
 */
export const QUEUE_NAMES = [
  /** Submissions stored (acknowledged) and not yet judged. */
  'submissions_received',
  /** E-mail messages stored (250 given) and not yet turned into submissions. */
  'mail_received',
  /** Reply e-mails waiting to be sent (or retried). */
  'replies_pending',
] as const;

export type QueueName = (typeof QUEUE_NAMES)[number];

/**
 * The database connections registrations may use (PostgreSQL: store/postgres/order-writers.ts): how many they may
 * hold, how many they hold now, and how many registrations wait for one. All held and some waiting for long means
 * they wait on the database, e.g. on a lock of the orders table.
 */
export interface WriterConnections {
  allowed: number;
  inUse: number;
  waiting: number;
}

export interface StatsStore {
  /** How many items wait in that queue now. */
  countQueue(queue: QueueName): Promise<number>;
  /** Read from memory, never from the database; undefined for a store without a pool (SQLite). */
  writerConnections(): WriterConnections | undefined;
}
