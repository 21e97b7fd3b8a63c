/** Summaries of repeated measurements: a benchmark reports the median of its runs and their spread, never one run. */

export interface Summary {
  median: number;
  min: number;
  max: number;
  /** First and third quartiles (linear interpolation between closest ranks). */
  q1: number;
  q3: number;
  n: number;
}

/** The p-quantile (0..1) of values already sorted ascending; NaN for none. */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * Math.min(1, Math.max(0, p));
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (pos - lo);
}

export function summarise(values: readonly number[]): Summary {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  return {
    median: quantileSorted(s, 0.5),
    min: s.length ? s[0]! : NaN,
    max: s.length ? s[s.length - 1]! : NaN,
    q1: quantileSorted(s, 0.25),
    q3: quantileSorted(s, 0.75),
    n: s.length,
  };
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** Latency percentiles in milliseconds; the array is sorted in place (it is the caller's scratch copy). */
export function latencySummary(samples: Float64Array): LatencySummary {
  samples.sort();
  let sum = 0;
  for (const v of samples) sum += v;
  return {
    count: samples.length,
    p50: quantileSorted(samples, 0.5),
    p90: quantileSorted(samples, 0.9),
    p99: quantileSorted(samples, 0.99),
    p999: quantileSorted(samples, 0.999),
    max: samples.length ? samples[samples.length - 1]! : NaN,
    mean: samples.length ? sum / samples.length : NaN,
  };
}
