/**
 * What a stopped service's SQLite file holds, per channel and for the e-mail channel's messages and replies: what the
 * mail and mixed benchmarks check against what their clients had acknowledged (nothing lost, nothing twice).
 */
import path from 'node:path';
import Database from 'better-sqlite3';

export interface StoreCounts {
  /** Registered orders by channel (rest, soap, sftp, ftp, email, …). */
  ordersByChannel: Record<string, number>;
  /** Stored e-mail messages, and those finished (parts judged, reply queued). */
  mailMessages: number;
  mailDone: number;
  /** Replies by state: sent (the relay accepted it), pending, failed. */
  replies: Record<string, number>;
  /** Replies that needed more than one attempt (the relay was slow or refused). */
  repliesRetried: number;
}

export function storeCounts(dataDir: string): StoreCounts {
  const db = new Database(path.join(dataDir, 'intake.sqlite'), { readonly: true });
  try {
    const byKey = (sql: string) => Object.fromEntries((db.prepare(sql).all() as { k: string; n: number }[]).map((r) => [r.k, r.n]));
    const mail = db.prepare("SELECT count(*) AS n, coalesce(sum(state = 'done'), 0) AS done FROM mail_messages").get() as { n: number; done: number };
    return {
      ordersByChannel: byKey('SELECT channel AS k, count(*) AS n FROM orders GROUP BY channel'),
      mailMessages: mail.n,
      mailDone: mail.done,
      replies: byKey('SELECT state AS k, count(*) AS n FROM mail_replies GROUP BY state'),
      repliesRetried: (db.prepare('SELECT count(*) AS n FROM mail_replies WHERE attempts > 1').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}
