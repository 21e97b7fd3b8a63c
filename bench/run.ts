/**
 * `npm run bench [-- NAME… --runs N --duration S …]`: runs the benchmarks, prints a table per benchmark (median
 * and spread over the runs) and writes bench/results/<name>.json with the machine, settings and durability.
 * See bench/README.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { killAllChildren, ROOT } from './lib/children.ts';
import { machineFacts } from './lib/machine.ts';
import { buildReport, printReport, writeReport } from './lib/report.ts';
import { BENCHMARKS } from './benchmarks/index.ts';
import type { BenchContext } from './lib/types.ts';
import { refOrder } from './lib/orders.ts';

const USAGE = `usage: npm run bench -- [NAME ...] [options]
  NAME               ${BENCHMARKS.map((b) => b.name).join(', ')} (default: all)
  --runs N           repetitions of each measurement (default 5)
  --duration S       seconds per measurement (default 10)
  --warmup S         unmeasured seconds before each measurement (default 3)
  --service-warmup S unmeasured seconds of load a freshly started REST service (each instance) and bare server get
                     once before their first measurement (default 20; see bench/profile/warm-up.ts)
  --concurrency N    closed-loop requests in flight (default 32)
  --rate N           open-loop requests per second (default 2000)
  --refs ORDER       REST orders' references: sequence (default, one customer numbering its orders) or scattered
                     (as from many customers: each lands in its own part of the reference-keyed indexes)
  --profile          rest: one extra pass with the service under node --cpu-prof, summarised
  --quick            --runs 3 --duration 3 --warmup 1 --service-warmup 2: a smoke run, figures too noisy to quote
  --list             list the benchmarks`;

/** Bounds on the options: a typo must not start a benchmark that runs for a day or floods the machine. */
const LIMITS = { runs: [1, 50], duration: [1, 600], warmup: [0, 120], 'service-warmup': [0, 300], concurrency: [1, 1024], rate: [1, 100_000] } as const;

function numberOption(values: Record<string, unknown>, name: keyof typeof LIMITS, fallback: number): number {
  const raw = values[name];
  if (raw === undefined) return fallback;
  const n = Number(raw);
  const [lo, hi] = LIMITS[name];
  if (!Number.isFinite(n) || n < lo || n > hi) throw new Error(`--${name} must be a number from ${lo} to ${hi}, got "${String(raw)}"`);
  return name === 'duration' || name === 'warmup' || name === 'service-warmup' ? n : Math.round(n);
}

/** The scratch folder of this run, removed at the end or on Ctrl-C. */
let scratchDir: string | undefined;

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      runs: { type: 'string' }, duration: { type: 'string' }, warmup: { type: 'string' }, 'service-warmup': { type: 'string' }, concurrency: { type: 'string' },
      rate: { type: 'string' }, refs: { type: 'string' }, profile: { type: 'boolean' }, quick: { type: 'boolean' }, list: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.list) {
    for (const b of BENCHMARKS) console.log(`${b.name.padEnd(10)} ${b.description}`);
    return 0;
  }
  const unknown = positionals.filter((p) => !BENCHMARKS.some((b) => b.name === p));
  if (unknown.length > 0) {
    console.error(`unknown benchmark ${unknown.join(', ')}\n${USAGE}`);
    return 2;
  }
  const selected = positionals.length > 0 ? BENCHMARKS.filter((b) => positionals.includes(b.name)) : BENCHMARKS.filter((b) => b.byDefault);
  const quick = values.quick === true;
  const settings = {
    runs: numberOption(values, 'runs', quick ? 3 : 5),
    durationSec: numberOption(values, 'duration', quick ? 3 : 10),
    warmupSec: numberOption(values, 'warmup', quick ? 1 : 3),
    serviceWarmupSec: numberOption(values, 'service-warmup', quick ? 2 : 20),
    concurrency: numberOption(values, 'concurrency', 32),
    rate: numberOption(values, 'rate', 2000),
    refs: refOrder(values.refs),
  };
  const command = `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim();
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'order-intake-bench-'));
  scratchDir = scratch;
  const resultsDir = path.join(ROOT, 'bench/results');
  let failures = 0;
  try {
    for (const b of selected) {
      const tmpDir = mkdtempSync(path.join(scratch, `${b.name}-`));
      const ctx: BenchContext = {
        ...settings, profile: values.profile === true, tmpDir,
        progress: (m) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${m}\n`),
      };
      // Measured per benchmark: the load average and the disk change while a long series runs.
      const machine = machineFacts(tmpDir);
      ctx.progress(`${b.name}: starting (${settings.runs} runs, ${settings.durationSec} s per measurement)`);
      try {
        const result = await b.run(ctx);
        const report = buildReport(b, result, machine, command);
        printReport(report, (l) => console.log(l));
        console.log(`   → ${path.relative(ROOT, writeReport(report, resultsDir))}`);
      } catch (e) {
        failures++;
        console.error(`\n== ${b.name} FAILED: ${(e as Error).stack ?? String(e)}`);
      } finally {
        rmSync(tmpDir, { recursive: true, force: true });
      }
    }
  } finally {
    // Each benchmark stops what it started; this only catches what a failure left behind.
    killAllChildren();
    rmSync(scratch, { recursive: true, force: true });
  }
  return failures > 0 ? 1 : 0;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAllChildren();
    if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
    process.exit(130);
  });
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error((e as Error).message ?? e);
    killAllChildren();
    process.exit(2);
  },
);
