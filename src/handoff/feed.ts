/**
 * The pull feed: events after a cursor, waiting up to a bound for the first one to exist (long polling).
 */
import type { EventReader, OrderEvent } from '../domain/order-events.ts';
import type { EventSignal } from './signal.ts';

/** Longest wait a request may ask for: long enough to make polling cheap, short enough for every proxy's timeout. */
export const MAX_WAIT_SECONDS = 30;
/** Most events per request: bounds one response's size and the rows read for it (the store's own bound). */
export const MAX_FEED_LIMIT = 1000;
export const DEFAULT_FEED_LIMIT = 100;

export interface FeedQuery {
  cursor: string | null;
  limit: number;
  /** How long to wait for a first event when there is none yet (0: answer at once). */
  waitMs: number;
  /** Stop waiting (the client went away). */
  abort?: AbortSignal;
}

export interface FeedDeps {
  reader: EventReader;
  signal: EventSignal;
  /** How often to read again while waiting, for commits no local signal announces. */
  pollMs: number;
  now?: () => number;
}

/** Events after `cursor`; with none, reads again on every local commit and every pollMs until one comes or time is up. */
export async function readFeed(deps: FeedDeps, q: FeedQuery): Promise<OrderEvent[]> {
  const now = deps.now ?? Date.now;
  const deadline = now() + q.waitMs;
  for (;;) {
    const events = await deps.reader.readAfter(q.cursor, q.limit);
    const left = deadline - now();
    if (events.length > 0 || left <= 0 || q.abort?.aborted) return events;
    await deps.signal.wait(Math.min(deps.pollMs, left), q.abort);
  }
}
