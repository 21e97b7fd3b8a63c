/**
 * Matching the replies the sink received to the order mails the service accepted: latency from submission to reply,
 * and the check that every accepted message got exactly one reply (none missing, none twice, none unknown).
 */
import { latencySummary, type LatencySummary } from '../lib/stats.ts';
import type { AcceptedMail, ReplySeen } from './protocol.ts';

/** Header section read at most: In-Reply-To is near the top, and a reply's headers are a few hundred bytes. */
const MAX_HEAD = 64 * 1024;

/** The In-Reply-To of a raw message (only the header section is read; folded lines are unfolded). */
export function inReplyTo(raw: Buffer): string | undefined {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end < 0 ? Math.min(raw.length, MAX_HEAD) : Math.min(end, MAX_HEAD)).toString('latin1').replace(/\r\n[ \t]+/g, ' ');
  return /^in-reply-to:\s*(<[^<>\s]+>)/im.exec(head)?.[1];
}

export interface ReplyTally {
  /** Accepted messages with at least one reply. */
  replied: number;
  /** Accepted messages without a reply, and a few of their Message-IDs. */
  missing: number;
  missingSample: string[];
  /** Replies beyond the first for the same message. */
  duplicates: number;
  /** Replies answering no message of this run. */
  unknown: number;
  /** Submission start → reply received, for the messages started inside the window (ms). */
  latency: LatencySummary;
  /** Replies received inside [from, to] (epoch ms), whatever message they answer. */
  repliesInWindow: number;
  /** The last reply received (epoch ms), NaN without any. */
  lastReplyAt: number;
}

export function tallyReplies(accepted: readonly AcceptedMail[], replies: readonly ReplySeen[], window: { from: number; to: number }): ReplyTally {
  const first = new Map<string, number>();
  let duplicates = 0;
  let unknown = 0;
  let repliesInWindow = 0;
  let lastReplyAt = NaN;
  const sent = new Set(accepted.map((a) => a.messageId));
  for (const r of replies) {
    if (r.receivedAt >= window.from && r.receivedAt <= window.to) repliesInWindow++;
    if (!(r.receivedAt <= lastReplyAt)) lastReplyAt = r.receivedAt;
    if (r.inReplyTo === undefined || !sent.has(r.inReplyTo)) unknown++;
    else if (first.has(r.inReplyTo)) duplicates++;
    else first.set(r.inReplyTo, r.receivedAt);
  }
  const missingIds = accepted.filter((a) => !first.has(a.messageId)).map((a) => a.messageId);
  const latencies = accepted.flatMap((a) => {
    const at = a.inWindow ? first.get(a.messageId) : undefined;
    return at === undefined ? [] : [at - a.startedAt];
  });
  return {
    replied: accepted.length - missingIds.length,
    missing: missingIds.length,
    missingSample: missingIds.slice(0, 5),
    duplicates,
    unknown,
    latency: latencySummary(Float64Array.from(latencies)),
    repliesInWindow,
    lastReplyAt,
  };
}
