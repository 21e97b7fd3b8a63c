/**
 * Group commit for PostgreSQL writes that arrive one per request (the REST/SOAP path): calls that come while others
 * are running are sent together, as ONE statement (one round trip, one transaction, one commit record and one WAL
 * flush for many), instead of one each. The classic group commit: the busier the store, the larger the groups;
 * alone, a call goes at once.
 *
 * - Up to `maxParallel` statements run at once; calls that arrive meanwhile wait for the next free slot.
 * - While a statement of this writer is running, a new group waits up to `lingerMs` for more calls before it takes a
 *   free slot, unless it already has `lingerEnough` (PostgreSQL's commit_delay, applied where the groups are formed).
 *   Why: each statement pays a fixed cost on both sides (its executor start and end, its commit and WAL flush, the
 *   service's round trip), and with few requests in flight per instance (several instances sharing a load) the groups
 *   stayed at about four calls. The last running statement's end starts a waiting group at once (unless calls stream
 *   in: below). Measured in performance-history.md (seventeenth round): 11 requests in flight, commits per order 0.23 → 0.19,
 *   the backends' CPU per order 0.25 → 0.21 ms.
 * - A group that finds no statement running waits the same way when calls are streaming in (their mean gap, a moving
 *   average, under `streamGapMs`: commit_siblings' part of commit_delay); on a quiet store it goes at once, so a lone
 *   request waits for nothing. Why: the answers of one group go out together and their clients send again together,
 *   so the load travels in convoys, and a convoy that came back to an idle writer went alone: at 11 in flight the
 *   groups were half as large as the calls in flight allow (performance-history.md, twentieth round). Waiting for the next
 *   convoy: groups of 5 → 10 at 11 in flight, and the CPU per order of the backends and of the services down by a
 *   fifth to a quarter with three instances. While they stream, a waiting group also outlives the end of the
 *   statements running: what it waits for is the convoy those statements' answers send back.
 * - A group of one runs `one` (the single-call statement) unless `oneRunsGroup` is set, for a caller whose only
 *   statement is the group's (the one-order write, single-batch.ts, whose `one` is a group of one). Tried for every
 *   group once and reverted (REST at 32 in flight 2,254 → 2,038 orders/s, open-loop p99 at 2,000/s 102 → 354 ms,
 *   2026-11-26): the group statements' plans then read every order and every attempt on each call (register-batch.ts,
 *   PLANS), so the more groups, the dearer. A registration's and an outcome's `one` are one statement each, simpler
 *   than the group's.
 * - A group whose statement fails is not allowed to take the others down: each of its calls then runs `one` on its
 *   own, and only the faulty one fails, with `one`'s own error. Unless the statement never ran for want of a
 *   connection (isConnectionWait: a long lock on orders holds them all): then each call alone would only wait as
 *   long again, and the whole group fails with that error at once.
 */
import { isConnectionWait } from './order-writers.ts';

/** Statements in flight at once: enough to keep PostgreSQL's cores and the pool busy, few enough to form groups. */
export const MAX_PARALLEL = 4;
/** Calls per statement: bounds the statement's arrays (and the transaction) behind a flood. */
export const MAX_GROUP = 128;
/**
 * How long a new group may wait for more calls: about what a group statement of a few orders takes, and a small part
 * of an answer's time (p99 target 25 ms at 2,000 orders/s). 1 ms until the twentieth round, which measured 2 with the
 * wait on an idle writer too.
 */
export const LINGER_MS = 2;
/**
 * Calls whose mean gap is under this are a stream (at least 250 a second at 4 ms): then a group that finds no
 * statement running waits for company too, as about one more call is due within a linger. Slower, a call goes alone
 * at once, as the company it would wait for would rarely come.
 */
export const STREAM_GAP_MS = 2 * LINGER_MS;
/** Weight of the newest gap in the moving mean: TCP's smoothed round trip weight: about the last eight calls count. */
const GAP_WEIGHT = 1 / 8;
/** A group this large goes without waiting: its statement's fixed cost is already shared well. */
export const LINGER_ENOUGH = 8;

export interface Grouped<T, R> {
  /** Queue one call for the next group; resolves with its own answer. */
  run(call: T): Promise<R>;
}

interface Waiting<T, R> {
  call: T;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

export interface GroupOptions {
  maxParallel?: number;
  maxGroup?: number;
  /** A group of one runs the group statement too (falling back to `one` if it fails, as a larger group does). */
  oneRunsGroup?: boolean;
  /** LINGER_MS; 0 never waits. */
  lingerMs?: number;
  /** LINGER_ENOUGH. */
  lingerEnough?: number;
  /** STREAM_GAP_MS; 0: a group that finds no statement running never waits. */
  streamGapMs?: number;
  /** The clock, in ms (performance.now); tests give their own. */
  now?: () => number;
}

export function grouped<T, R>(
  one: (call: T) => Promise<R>,
  /** The group statement: one answer per call, in order. */
  many: (calls: readonly T[]) => Promise<R[]>,
  {
    maxParallel = MAX_PARALLEL, maxGroup = MAX_GROUP, oneRunsGroup = false, lingerMs = LINGER_MS, lingerEnough = LINGER_ENOUGH,
    streamGapMs = STREAM_GAP_MS, now = () => performance.now(),
  }: GroupOptions = {},
): Grouped<T, R> {
  let queue: Waiting<T, R>[] = [];
  let running = 0;
  /** When the first call of the queue arrived (now()). */
  let queuedSince = 0;
  let linger: NodeJS.Timeout | undefined;
  /** When the last call arrived, and the moving mean of the gaps between calls (Infinity: no gap seen yet). */
  let lastArrival = -Infinity;
  let meanGap = Infinity;
  /** The queue's first call came in a stream of calls (meanGap at its arrival): the group may wait, idle or not. */
  let streaming = false;

  function pump(): void {
    while (running < maxParallel && queue.length > 0) {
      if ((running > 0 || streaming) && queue.length < lingerEnough) {
        const left = queuedSince + lingerMs - now();
        if (left > 0) {
          linger ??= setTimeout(() => {
            linger = undefined;
            pump();
          }, left);
          return;
        }
      }
      clearTimeout(linger);
      linger = undefined;
      const group = queue.slice(0, maxGroup);
      queue = queue.slice(group.length);
      // What stays behind a full group has waited already: it goes at the next free slot.
      if (queue.length > 0) queuedSince = -Infinity;
      running++;
      void runGroup(group).finally(() => {
        running--;
        pump();
      });
    }
  }

  async function runGroup(group: Waiting<T, R>[]): Promise<void> {
    if (group.length === 1 && !oneRunsGroup) {
      const [w] = group as [Waiting<T, R>];
      await one(w.call).then(w.resolve, w.reject);
      return;
    }
    let answers: R[];
    try {
      answers = await many(group.map((w) => w.call));
    } catch (e) {
      if (isConnectionWait(e)) {
        group.forEach((w) => w.reject(e));
        return;
      }
      // One faulty call must not fail the others: each goes alone, and only its own error reaches its caller.
      await Promise.all(group.map((w) => one(w.call).then(w.resolve, w.reject)));
      return;
    }
    group.forEach((w, i) => w.resolve(answers[i]!));
  }

  return {
    run(call) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ call, resolve, reject });
        const at = now();
        const gap = at - lastArrival;
        lastArrival = at;
        meanGap = Number.isFinite(meanGap) ? meanGap + (gap - meanGap) * GAP_WEIGHT : gap; // the first gap starts it
        // On the next turn, so the calls of requests that arrive together go together.
        if (queue.length === 1) {
          queuedSince = at;
          streaming = meanGap < streamGapMs;
          setImmediate(pump);
        } else if (queue.length === lingerEnough && linger) {
          setImmediate(pump);
        }
      });
    },
  };
}
