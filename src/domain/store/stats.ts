/**
 * Queue depths for monitoring (GET /metrics): how much work is waiting, counted in the store so that every instance
 * sharing a PostgreSQL database reports the same figure. Each count rides an index on (state, …), so a scrape costs
 * a few index range scans, not table scans.
 *
 * Adding a queue (e.g. webhook deliveries) is one entry here: the metrics and the docs pick it up by name.
 */
export const QUEUE_COUNTS = {
  /** Submissions stored (acknowledged) and not yet judged. */
  submissions_received: `SELECT count(*) AS n FROM submissions WHERE state = 'received'`,
  /** E-mail messages stored (250 given) and not yet turned into submissions. */
  mail_received: `SELECT count(*) AS n FROM mail_messages WHERE state = 'received'`,
  /** Reply e-mails waiting to be sent (or retried). */
  replies_pending: `SELECT count(*) AS n FROM mail_replies WHERE state = 'pending'`,
} as const;

export type QueueName = keyof typeof QUEUE_COUNTS;

export const QUEUE_NAMES = Object.keys(QUEUE_COUNTS) as QueueName[];

export interface StatsStore {
  /** How many items wait in that queue now. */
  countQueue(queue: QueueName): Promise<number>;
}
