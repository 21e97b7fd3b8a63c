/**
 * The counting query of each queue (StatsStore, src/domain/store/stats.ts), the same SQL on both engines. Each count
 * rides an index on (state, …), so a scrape costs a few index range scans, not table scans.
 */
import type { QueueName } from '../../domain/store/stats.ts';

export const QUEUE_COUNTS: Readonly<Record<QueueName, string>> = {
  /** Submissions stored (acknowledged) and not yet judged. */
  submissions_received: `SELECT count(*) AS n FROM submissions WHERE state = 'received'`,
  /** E-mail messages stored (250 given) and not yet turned into submissions. */
  mail_received: `SELECT count(*) AS n FROM mail_messages WHERE state = 'received'`,
  /** Reply e-mails waiting to be sent (or retried). */
  replies_pending: `SELECT count(*) AS n FROM mail_replies WHERE state = 'pending'`,
};
