/** What a benchmark is and what it hands back to the runner (bench/run.ts). */

export type RefOrder = 'sequence' | 'scattered';

export interface BenchContext {
  /** How many times each measurement is repeated (--runs). */
  runs: number;
  /** Seconds per measurement (--duration). */
  durationSec: number;
  /** Seconds of unmeasured load before each measurement, so the JIT and caches are warm (--warmup). */
  warmupSec: number;
  /**
   * Seconds of unmeasured load a freshly started service (and bare server) gets once, before its first measurement,
   * per instance (--service-warmup): a new process reaches its steady state only after 15–30 s under load
   * (bench/profile/warm-up.ts), and a customer reaches a service that has been up for hours.
   */
  serviceWarmupSec: number;
  /** Requests per second of the open-loop latency measurement (--rate). */
  rate: number;
  /** In-flight requests of the closed-loop throughput measurement (--concurrency). */
  concurrency: number;
  /**
   * How the REST orders' references follow one another (--refs): `sequence` (default) as one customer numbering its
   * orders, so every reference-keyed index grows at its right edge; `scattered` as orders from many customers, each
   * reference landing in its own part of those indexes (docs/development/performance-history.md, twelfth round).
   */
  refs: RefOrder;
  /** Run the service under `node --cpu-prof` and summarise the profile (--profile). */
  profile: boolean;
  /** Folder for this benchmark's scratch files; removed by the runner afterwards. */
  tmpDir: string;
  /** Progress lines (stderr), so stdout keeps only the table. */
  progress(message: string): void;
}

export type Better = 'higher' | 'lower';

/** One figure measured once per run; the runner summarises the runs. */
export interface Metric {
  name: string;
  unit: string;
  better: Better;
  samples: number[];
  /** The target from the issue, to chase and show, never to assert. */
  target?: { value: number; op: '>=' | '<=' };
}

export interface BenchResult {
  /** Everything that changes the figures: sizes, concurrency, rate, durations, store, log level. */
  settings: Record<string, unknown>;
  /** What an acknowledgement guarantees during the measurement (fsync, synchronous=FULL, …). */
  durability: string;
  metrics: Metric[];
  /** Caveats and findings worth printing under the table. */
  notes: string[];
  /** Per-run raw details (status counts, latency percentiles, …) kept in the JSON only. */
  details?: unknown[];
  /** Set when the benchmark could not run here (e.g. the database is unreachable). */
  skipped?: string;
}

export interface Benchmark {
  name: string;
  description: string;
  /** Part of `npm run bench` without names; false for the ones that only explain why they are not there yet. */
  byDefault: boolean;
  run(ctx: BenchContext): Promise<BenchResult>;
}
