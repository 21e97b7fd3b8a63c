/**
 * How long a freshly started service takes to reach its steady state under load: one `order-intake serve`, one
 * closed loop of 32 requests in flight cut into consecutive windows, each window's orders/s and the service's CPU
 * per order printed as it ends. A benchmark whose measurement starts before the curve flattens measures start-up
 * (V8 compiling the hot paths, the heap growing to its working size, pg's statements prepared on each pooled
 * connection), not the service a customer reaches hours after it started. The service's resident memory is printed
 * with each window: under a steady load it should level off.
 *
 *   node --import tsx bench/profile/warm-up.ts [--store sqlite|pg] [--windows 12] [--seconds 5] [--compiled]
 *
 * Figures are for reading the shape of the curve on one machine, not for quoting against other runs.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createSchema, dropSchema, newSchemaName, pgBaseUrl, schemaUrl } from '../lib/pg.ts';
import { processCpuMs } from '../lib/proc-cpu.ts';
import { startService, type RunningService } from '../lib/service.ts';
import { drive, loadSpec } from '../benchmarks/rest.ts';
import type { BenchContext } from '../lib/types.ts';

const { values: opt } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    windows: { type: 'string', default: '12' },
    seconds: { type: 'string', default: '5' },
    compiled: { type: 'boolean', default: false },
  },
});
const windows = Number(opt.windows);
const seconds = Number(opt.seconds);
if (!['sqlite', 'pg'].includes(opt.store!) || !(windows >= 1) || !(seconds > 0)) {
  console.error('usage: warm-up.ts [--store sqlite|pg] [--windows N] [--seconds S] [--compiled]');
  process.exit(2);
}

/** The process's resident set now, from /proc (a growing service under a steady load would be a leak). */
function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb ?? 0) / 1024);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'warm-up-'));
const base = pgBaseUrl();
const schema = opt.store === 'pg' ? newSchemaName() : undefined;
if (schema) await createSchema(base, schema);
let service: RunningService | undefined;
try {
  service = await startService({ dataDir, compiled: opt.compiled, env: schema ? { INTAKE_DATABASE_URL: schemaUrl(base, schema) } : {} });
  const ctx = { concurrency: 32, warmupSec: 0, durationSec: seconds, rate: 0 } as BenchContext;
  const pid = service.proc.pid!;
  // On PostgreSQL, the server's checkpoints in each window too: after one, every page's first change writes the whole
  // page to the WAL, and a checkpoint requested by the WAL's size (max_wal_size) comes every few tens of seconds here.
  const server = schema ? new pg.Client({ connectionString: base }) : undefined;
  await server?.connect();
  const checkpoints = async (): Promise<number> => (server
    ? Number((await server.query<{ n: string }>('SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter')).rows[0]!.n) : 0);
  console.log(`window (s from start of load)  orders/s  service CPU per order (ms)  service RSS (MiB)${server ? '  checkpoints' : ''}`);
  for (let w = 0; w < windows; w++) {
    const before = processCpuMs(pid);
    const cpBefore = await checkpoints();
    const res = await drive(loadSpec(ctx, service.ports.http!, service.apiKey, 'closed', `W${w}-${process.pid}`));
    const cpu = (processCpuMs(pid) - before) / Math.max(1, res.sent);
    console.log(`${String(w * seconds).padStart(3)}–${String((w + 1) * seconds).padEnd(26)} ${res.okPerSec.toFixed(0).padStart(8)}  ${cpu.toFixed(3).padEnd(26)}  ${String(rssMiB(pid)).padEnd(17)}${server ? `  ${await checkpoints() - cpBefore}` : ''}`);
  }
  await server?.end();
} finally {
  await service?.stop();
  if (schema) await dropSchema(base, schema);
  rmSync(dataDir, { recursive: true, force: true });
}
