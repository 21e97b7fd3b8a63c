/**
 * The send loop of the clients that are not HTTP load generators (SMTP, SOAP): closed loop (`concurrency` sends
 * always in flight, the next leaving when one ends) or open loop (sends on a fixed schedule whatever the server
 * does, so a stall shows as the queue it causes). What each send records is up to the caller's `one`; this only
 * schedules, bounds and drains. bench/load/loadgen.ts does the same for REST with its own HTTP-specific counting.
 */
import { performance } from 'node:perf_hooks';

export interface LoopSpec {
  mode: 'closed' | 'open';
  concurrency: number;
  /** Open loop: sends per second. */
  rate: number;
  warmupSec: number;
  durationSec: number;
  /** Open loop: past this many unanswered sends the server is not keeping up, and further sends are skipped. */
  maxOutstanding?: number;
}

/** performance.now() times of the loop: its start and its measured window. */
export interface LoopClock {
  t0: number;
  from: number;
  to: number;
}

export interface LoopResult {
  /** Sends started, warm-up included. */
  sent: number;
  /** Open loop: scheduled sends inside the window skipped because too many were outstanding. */
  missed: number;
  /** Sends still running when the drain time ran out (they are left to fail or finish on their own). */
  undrained: number;
}

/** After the window, how long running sends may take to finish before the loop returns without them. */
const DRAIN_MS = 60_000;

/** Epoch milliseconds with sub-millisecond resolution: comparable between processes of this machine. */
export function epochMs(at: number = performance.now()): number {
  return performance.timeOrigin + at;
}

/**
 * Runs the loop. `one(seq, from)` sends one item; `from` is when it should have left (open loop) or did leave
 * (closed loop), in performance.now() time. `one` must not reject: it records its own failures.
 */
export async function runLoop(spec: LoopSpec, one: (seq: number, from: number, clock: LoopClock) => Promise<void>): Promise<LoopResult> {
  const t0 = performance.now();
  const clock: LoopClock = { t0, from: t0 + spec.warmupSec * 1000, to: t0 + (spec.warmupSec + spec.durationSec) * 1000 };
  let seq = 0;
  let missed = 0;
  const inflight = new Set<Promise<void>>();
  const launch = (from: number) => {
    const p = one(seq++, from, clock).finally(() => inflight.delete(p));
    inflight.add(p);
    return p;
  };

  if (spec.mode === 'closed') {
    const worker = async () => {
      while (performance.now() < clock.to) await launch(performance.now());
    };
    await Promise.all(Array.from({ length: spec.concurrency }, worker));
    return { sent: seq, missed: 0, undrained: 0 };
  }

  const interval = 1000 / spec.rate;
  const total = Math.ceil((spec.warmupSec + spec.durationSec) * spec.rate);
  const maxOutstanding = spec.maxOutstanding ?? Math.max(1000, spec.rate * 2);
  await new Promise<void>((resolve) => {
    let i = 0;
    const tick = () => {
      const now = performance.now();
      while (i < total && t0 + i * interval <= now) {
        const at = t0 + i * interval;
        i++;
        if (inflight.size >= maxOutstanding) {
          if (at >= clock.from) missed++;
          continue;
        }
        void launch(at);
      }
      if (i < total) setTimeout(tick, Math.max(0, Math.min(1, t0 + i * interval - performance.now())));
      else resolve();
    };
    tick();
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all([...inflight]), new Promise((r) => { timer = setTimeout(r, DRAIN_MS); })]);
  clearTimeout(timer);
  return { sent: seq, missed, undrained: inflight.size };
}
