/**
 * Load generator, run as its own process (forked by the benchmarks, spec over IPC, result back over IPC) so the
 * client's CPU is not the server's. undici's Pool keeps the connections; every request carries a new order.
 *
 * closed loop: `concurrency` workers, each sending its next request when the previous answered: the throughput.
 * open loop: requests leave on a fixed schedule whatever the server does, and latency is counted from the
 * scheduled time, so a stall shows as the queue it causes instead of as fewer, fast requests.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { jsonOrder, reference } from '../lib/orders.ts';
import { latencySummary } from '../lib/stats.ts';
import type { LoadResult, LoadSpec } from './protocol.ts';

/** Latency samples kept per measurement: 8 bytes each, so 40 MB at most; more than a 10 s window at 100k/s. */
const MAX_SAMPLES = 5_000_000;
/** A request that has not answered in this long counts as an error rather than holding the run. */
const REQUEST_TIMEOUT_MS = 30_000;
/** After the window, how long in-flight requests may take to finish before the pool is torn down. */
const DRAIN_MS = 35_000;

async function run(spec: LoadSpec): Promise<LoadResult> {
  const origins = spec.origins?.length ? spec.origins : [spec.origin];
  // One pool per instance, each with its share of the connections.
  const pools = origins.map((origin) => new Pool(origin, {
    connections: Math.ceil((spec.mode === 'closed' ? spec.concurrency : spec.connections) / origins.length),
    pipelining: 1,
    headersTimeout: REQUEST_TIMEOUT_MS,
    bodyTimeout: REQUEST_TIMEOUT_MS,
  }));
  const headers = { 'content-type': 'application/json', ...spec.headers };
  const samples = new Float64Array(Math.min(MAX_SAMPLES, Math.ceil((spec.rate || 100_000) * (spec.durationSec + 1))));
  let nSamples = 0;
  const statuses: Record<string, number> = {};
  let ok = 0;
  let errors = 0;
  let firstError: string | undefined;
  let missed = 0;
  let seq = 0;
  let outstanding = 0;
  let unanswered = 0;

  const t0 = performance.now();
  const measureFrom = t0 + spec.warmupSec * 1000;
  const measureTo = measureFrom + spec.durationSec * 1000;
  const cpu0 = process.cpuUsage();

  /**
   * Sends one order; `from` is when it should have left (open loop) or did leave (closed loop). Closed loop counts
   * what started and ended inside the window. Open loop counts the latency of every request scheduled inside the
   * window however late it ends (a request that ends after the window is exactly the stall to be seen), and the
   * throughput as the answers that arrived inside the window.
   */
  async function one(from: number): Promise<void> {
    const pool = pools[seq % pools.length]!;
    const body = jsonOrder(reference(spec, seq++), spec.orderLines);
    const scheduledInWindow = from >= measureFrom && from < measureTo;
    outstanding++;
    if (scheduledInWindow) unanswered++;
    try {
      const res = await pool.request({ method: 'POST', path: spec.path, headers, body });
      await res.body.dump();
      const end = performance.now();
      const endInWindow = end >= measureFrom && end <= measureTo;
      const counted = spec.mode === 'open' ? scheduledInWindow : scheduledInWindow && endInWindow;
      if (counted) statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (res.statusCode === spec.expectStatus) {
        if (endInWindow && (spec.mode === 'open' || scheduledInWindow)) ok++;
        if (counted && nSamples < samples.length) samples[nSamples++] = end - from;
      }
    } catch (e) {
      if (scheduledInWindow) {
        errors++;
        firstError ??= (e as Error).message;
      }
    } finally {
      outstanding--;
      if (scheduledInWindow) unanswered--;
    }
  }

  if (spec.mode === 'closed') {
    const worker = async () => {
      while (performance.now() < measureTo) await one(performance.now());
    };
    await Promise.all(Array.from({ length: spec.concurrency }, worker));
  } else {
    const interval = 1000 / spec.rate;
    const total = Math.ceil((spec.warmupSec + spec.durationSec) * spec.rate);
    // Beyond two seconds' worth of unanswered requests the server is not keeping up with the rate: further sends
    // are counted as missed rather than piled on, which bounds both the client's memory and the drain below.
    const maxOutstanding = Math.max(1000, spec.rate * 2);
    const inflight = new Set<Promise<void>>();
    await new Promise<void>((resolve) => {
      let i = 0;
      const tick = () => {
        const now = performance.now();
        while (i < total && t0 + i * interval <= now) {
          const at = t0 + i * interval;
          i++;
          if (outstanding >= maxOutstanding) {
            if (at >= measureFrom) missed++;
            continue;
          }
          const p = one(at).finally(() => inflight.delete(p));
          inflight.add(p);
        }
        if (i < total) setTimeout(tick, Math.max(0, Math.min(1, t0 + i * interval - performance.now())));
        else resolve();
      };
      tick();
    });
    const drained = Promise.all([...inflight]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([drained, new Promise((r) => { timer = setTimeout(r, DRAIN_MS); })]);
    clearTimeout(timer);
  }
  const cpu = process.cpuUsage(cpu0);
  await Promise.all(pools.map((p) => p.destroy()));
  const windowSec = spec.durationSec;
  return {
    mode: spec.mode,
    windowSec,
    ok,
    okPerSec: ok / windowSec,
    statuses,
    errors,
    firstError,
    missed,
    unanswered,
    latency: latencySummary(samples.subarray(0, nSamples)),
    cpuUserMs: Math.round(cpu.user / 1000),
    cpuSystemMs: Math.round(cpu.system / 1000),
    sent: seq,
  };
}

process.once('message', (spec: LoadSpec) => {
  run(spec).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => process.send!({ error: String((err as Error)?.stack ?? err) }, () => process.exit(1)),
  );
});
