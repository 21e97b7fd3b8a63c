/** Messages between a benchmark and its load-generator child (bench/load/loadgen.ts). */
import type { LatencySummary } from '../lib/stats.ts';
import type { RefOrder } from '../lib/types.ts';

export interface LoadSpec {
  /** http://127.0.0.1:port */
  origin: string;
  /** Several instances of the service: requests go to them in turn (round robin), `origin` is then ignored. */
  origins?: string[];
  path: string;
  headers: Record<string, string>;
  /** Each request gets a JSON order of this many lines with the reference `<refPrefix>-<n>` (see `refs`). */
  orderLines: number;
  refPrefix: string;
  /** `scattered`: `<refPrefix>-<k>-<n>`, k a scramble of n, so references arrive in no order (default sequence). */
  refs?: RefOrder;
  /** closed: `concurrency` requests always in flight. open: `rate` requests per second on a fixed schedule. */
  mode: 'closed' | 'open';
  concurrency: number;
  rate: number;
  /** TCP connections of the open-loop pool (requests beyond wait in the client, and that wait is counted). */
  connections: number;
  warmupSec: number;
  durationSec: number;
  /** The status a request must get to count as done (201 Created for a new order). */
  expectStatus: number;
}

export interface LoadResult {
  mode: 'closed' | 'open';
  /** Length of the measured window in seconds. */
  windowSec: number;
  /** Requests with the expected status answered inside the measured window. */
  ok: number;
  /** okPerSec = ok / windowSec */
  okPerSec: number;
  /** Every status seen in the window, for the record. */
  statuses: Record<string, number>;
  /** Requests that failed without a status (connection reset, timeout). */
  errors: number;
  firstError?: string;
  /** Open loop: sends skipped because too many were already outstanding (the server had stalled). */
  missed: number;
  /** Requests of the window still without an answer when the client gave up waiting (they count as lost time). */
  unanswered: number;
  /** Milliseconds; open loop measures from the scheduled send time (no coordinated omission). */
  latency: LatencySummary;
  /** CPU time of the load generator itself, to see whether it, rather than the server, was the limit. */
  cpuUserMs: number;
  cpuSystemMs: number;
  /** Total requests sent, measured or not (warm-up included): the server should have that many orders. */
  sent: number;
}
