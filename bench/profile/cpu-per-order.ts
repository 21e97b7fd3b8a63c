/**
 * CPU per order of the REST path: a measure that holds on a loaded machine, where throughput does not.
 *
 *   node --import tsx bench/profile/cpu-per-order.ts [--store sqlite|pg] [--runs 3] [--seconds 5] [--warmup 2]
 *        [--root OTHER_CHECKOUT] [--idle 30] [--compiled]
 *
 * Per run: a fresh `order-intake serve` of the checkout `--root` (default this one; another worktree gives the
 * "before" of a change with the same load generator), a closed loop of 32 requests in flight (`--concurrency N`) (bench/load/loadgen.ts;
 * `--rate N`: an open loop of N orders/s)
 * for the warm-up, then a second closed loop whose whole span is measured: the service process's CPU (every
 * thread: /proc/<pid>/stat) divided by the requests it answered. On PostgreSQL also the commits per order
 * (`pg_stat_database.xact_commit` of a database only this script uses, counted after each backend has reported: a
 * backend flushes its counts at most once a second, and an idle one after 10 s) and, with `--idle S`, the commits an
 * idle instance makes per second; the CPU of the PostgreSQL backends serving the service (found by its sockets'
 * ports in `pg_stat_activity`, /proc/<pid>/stat, sampled through the span) per order; with `--log-statements`,
 * the statements per order the server logged for it (its log file, `--pg-log`), and the most frequent of them.
 * Prints one JSON line per run, then the medians.
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { forkTs, nextMessage, stopChild, track } from '../lib/children.ts';
import { cpuOverSpan, processCpuMs, threadCpuMs } from '../lib/proc-cpu.ts';
import { backendCpuMs } from '../lib/pg.ts';
import type { LoadResult, LoadSpec } from '../load/protocol.ts';
import { refOrder } from '../lib/orders.ts';
import { ROOT } from '../lib/children.ts';

const { values: opt } = parseArgs({
  options: {
    store: { type: 'string', default: 'sqlite' },
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    root: { type: 'string', default: ROOT },
    idle: { type: 'string', default: '0' },
    /**
     * An open loop at this many orders/s instead of the closed loop of 32 in flight: both codes then see the same
     * arrivals (group sizes depend on them), which makes CPU per order comparable when their throughputs differ.
     */
    rate: { type: 'string', default: '0' },
    /**
     * Requests in flight of the closed loop: 32 by default; 32 / N is one instance's share when N instances split
     * that load (rest-pg-multi), i.e. the group sizes each of them sees.
     */
    concurrency: { type: 'string', default: '32' },
    /** `scattered`: references in no order, as many customers' would be (bench/lib/orders.ts reference). */
    refs: { type: 'string' },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    /** A folder: the service runs under `node --cpu-prof` and leaves its profiles there (then CPU includes the profiler). */
    'cpu-prof': { type: 'string' },
    /** Run the service with --trace-gc and count its collections (every thread) in the measured span. */
    gc: { type: 'boolean', default: false },
    /** PostgreSQL: the service's sessions log every statement (server log; for counting statements per order). */
    'log-statements': { type: 'boolean', default: false },
    /**
     * More settings for the service's sessions, e.g. the plans of a sample of its statements in the server log:
     * `-c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0 -c auto_explain.sample_rate=0.02`.
     */
    'pg-options': { type: 'string' },
    /** The server's log file, read for --log-statements (the Debian/Ubuntu default of PostgreSQL 15). */
    'pg-log': { type: 'string', default: '/var/log/postgresql/postgresql-15-main.log' },
    /** Run the root's compiled dist/ (what `order-intake serve` runs; build it first) rather than src/ under tsx. */
    compiled: { type: 'boolean', default: false },
  },
});
const root = path.resolve(opt.root);
const refs = refOrder(opt.refs);
const PG_DB = 'rest_cpu_per_order';
/** Longer than PostgreSQL 15's PGSTAT_IDLE_INTERVAL (10 s): by then an idle backend has reported its counts. */
const STATS_SETTLE_MS = 11_000;
const profArgs = [
  ...(opt['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opt['cpu-prof'])}`] : []),
  ...(opt.gc ? ['--trace-gc'] : []),
];
/** Collections seen so far in --trace-gc lines: counts and pause ms by kind. */
const gcSeen = { scavenges: 0, markCompacts: 0, pauseMs: 0 };
function countGc(line: string): void {
  const m = /: (Scavenge|Mark-Compact|Mark-sweep)\b.*?MB, ([\d.]+) \/ /.exec(line);
  if (!m) return;
  if (m[1] === 'Scavenge') gcSeen.scavenges++;
  else gcSeen.markCompacts++;
  gcSeen.pauseMs += Number(m[2]);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pgQuery<T extends pg.QueryResultRow>(db: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: `${opt.pg}/${db}` });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

async function commits(): Promise<number> {
  const r = await pgQuery<{ n: string }>(PG_DB, `SELECT xact_commit AS n FROM pg_stat_database WHERE datname = '${PG_DB}'`);
  return Number(r[0]?.n ?? 0);
}

function logSize(): number {
  try {
    return statSync(opt['pg-log']).size;
  } catch {
    return 0;
  }
}

/** The server log's lines written since byte `from`. */
function logSince(from: number): string[] {
  const fd = openSync(opt['pg-log'], 'r');
  try {
    const size = statSync(opt['pg-log']).size;
    const buf = Buffer.alloc(Math.max(0, size - from));
    readSync(fd, buf, 0, buf.length, from);
    return buf.toString('utf8').split('\n');
  } finally {
    closeSync(fd);
  }
}

/** A logged statement's kind: the prepared statement's name, or the first words of a simple one. */
function statementKind(line: string): string | undefined {
  const m = /LOG: {2}(?:statement: |execute (?:([^:]+)|<unnamed>): )(.*)$/.exec(line);
  if (!m) return undefined;
  if (m[1]) return m[1];
  return m[2]!.trim().split(/\s+/).slice(0, 3).join(' ').slice(0, 40);
}

interface Serve { pid: number; port: number; apiKey: string; stop(): Promise<unknown> }

async function startServe(dataDir: string, env: Record<string, string>): Promise<Serve> {
  const entry = opt.compiled ? [path.join(root, 'dist/cli/main.js')] : ['--import', 'tsx', path.join(root, 'src/cli/main.ts')];
  const proc = track(spawn(process.execPath, [...profArgs, ...entry, 'serve'], {
    cwd: root,
    env: { ...process.env, INTAKE_DATA_DIR: dataDir, INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: '0', INTAKE_SFTP_PORT: 'off',
      INTAKE_FTP_PORT: 'off', INTAKE_SMTP_PORT: 'off', INTAKE_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  }));
  let port = 0;
  let apiKey = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve did not start in 60 s')), 60_000);
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      if (opt.gc) countGc(line);
      const k = /^\s*API key:\s+(\S+)/.exec(line);
      if (k) apiKey = k[1]!;
      const p = /"channel":"http".*"port":(\d+)/.exec(line);
      if (p) port = Number(p[1]);
      if (port && apiKey) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { pid: proc.pid!, port, apiKey, stop: () => stopChild(proc, 30_000) };
}

async function load(s: Serve, seconds: number, ref: string): Promise<LoadResult> {
  const child = forkTs('bench/load/loadgen.ts');
  const spec: LoadSpec = {
    origin: `http://127.0.0.1:${s.port}`, path: '/api/v1/ordini', headers: { 'x-api-key': s.apiKey }, orderLines: 3,
    refPrefix: ref, refs, mode: Number(opt.rate) > 0 ? 'open' : 'closed', concurrency: Number(opt.concurrency), rate: Number(opt.rate),
    connections: Number(opt.concurrency),
    warmupSec: 0, durationSec: seconds,
    expectStatus: 201,
  };
  const answer = nextMessage<LoadResult>(child, seconds * 1000 + 60_000);
  child.send(spec);
  return answer;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const isPg = opt.store === 'pg';
  if (isPg && (await pgQuery<{ x: number }>('postgres', `SELECT 1 AS x FROM pg_database WHERE datname = '${PG_DB}'`)).length === 0) {
    await pgQuery('postgres', `CREATE DATABASE ${PG_DB}`);
  }
  const rows: Array<Record<string, number>> = [];
  for (let run = 0; run < Number(opt.runs); run++) {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'cpu-per-order-'));
    const schema = `cpu_${process.pid}_${run}`;
    const env: Record<string, string> = {};
    if (isPg) {
      await pgQuery(PG_DB, `DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
      const extra = (opt['log-statements'] ? '%20-c%20log_statement%3Dall' : '')
        + (opt['pg-options'] ? encodeURIComponent(` ${opt['pg-options']}`) : '');
      env.INTAKE_DATABASE_URL = `${opt.pg}/${PG_DB}?options=-c%20search_path%3D${schema}${extra}`;
      env.INTAKE_SECRET_KEY = Buffer.alloc(32, 5).toString('base64'); // PostgreSQL will not start without one
    }
    const s = await startServe(dataDir, env);
    try {
      const row: Record<string, number> = {};
      if (isPg && Number(opt.idle) > 0) {
        await sleep(STATS_SETTLE_MS);
        const c0 = await commits();
        const cpu0 = processCpuMs(s.pid);
        await sleep(Number(opt.idle) * 1000);
        row.idleCommitsPerSec = (await commits() - c0 - 1) / Number(opt.idle);
        row.idleCpuMsPerSec = (processCpuMs(s.pid) - cpu0) / Number(opt.idle);
      }
      await load(s, Number(opt.warmup), `W${run}`);
      if (isPg) await sleep(STATS_SETTLE_MS);
      const c0 = isPg ? await commits() : 0;
      // In another database: its queries are not the measured database's commits.
      const asker = isPg ? new pg.Client({ connectionString: `${opt.pg}/postgres` }) : undefined;
      await asker?.connect();
      // Sampled through the span: a backend that starts or ends in it is counted (cpuOverSpan).
      const pgSpan = asker ? await cpuOverSpan(() => backendCpuMs(asker, [s.pid])) : undefined;
      const log0 = opt['log-statements'] ? logSize() : 0;
      const cpu0 = processCpuMs(s.pid);
      const threads0 = threadCpuMs(s.pid);
      const gc0 = { ...gcSeen };
      const r = await load(s, Number(opt.seconds), `M${run}`);
      const cpuMs = processCpuMs(s.pid) - cpu0;
      const pgMs = (await pgSpan?.stop()) ?? 0;
      await asker?.end();
      const log = opt['log-statements'] ? logSince(log0) : [];
      // The main thread, then the others busiest first (the SQLite write thread, V8's GC helpers, libuv's pool).
      const others: number[] = [];
      let main = 0;
      for (const [tid, ms] of threadCpuMs(s.pid)) {
        const d = (ms - (threads0.get(tid) ?? 0)) / r.sent;
        if (tid === s.pid) main = d;
        else if (d > 0) others.push(d);
      }
      row.mainThreadMsPerOrder = Number(main.toFixed(4));
      const byThread = others.sort((a, b) => b - a).slice(0, 4).map((d) => Number(d.toFixed(4)));
      if (opt.gc) {
        row.scavengesPer1000 = Number(((gcSeen.scavenges - gc0.scavenges) * 1000 / r.sent).toFixed(2));
        row.markCompactsPer1000 = Number(((gcSeen.markCompacts - gc0.markCompacts) * 1000 / r.sent).toFixed(2));
        row.gcPauseMsPerOrder = Number(((gcSeen.pauseMs - gc0.pauseMs) / r.sent).toFixed(4));
      }
      row.sent = r.sent;
      row.ordersPerSec = Math.round(r.okPerSec);
      row.cpuMsPerOrder = Number((cpuMs / r.sent).toFixed(4));
      let topStatements: Record<string, number> | undefined;
      if (isPg) {
        row.pgBackendMsPerOrder = Number((pgMs / r.sent).toFixed(4));
        if (opt['log-statements']) {
          const kinds = new Map<string, number>();
          for (const line of log) {
            const k = statementKind(line);
            if (k) kinds.set(k, (kinds.get(k) ?? 0) + 1);
          }
          const n = [...kinds.values()].reduce((a, b) => a + b, 0);
          row.statementsPerOrder = Number((n / r.sent).toFixed(4));
          topStatements = Object.fromEntries([...kinds].sort((a, b) => b[1] - a[1]).slice(0, 8)
            .map(([k, c]) => [k, Number((c / r.sent).toFixed(4))]));
        }
        await sleep(STATS_SETTLE_MS);
        // Less the idle work of the settling time and this script's own two reads.
        const idle = (row.idleCommitsPerSec ?? 0) * STATS_SETTLE_MS / 1000;
        row.commitsPerOrder = Number(((await commits() - c0 - 1 - idle) / r.sent).toFixed(4));
      }
      rows.push(row);
      process.stdout.write(`${JSON.stringify({ run, ...row, otherThreadsMsPerOrder: byThread, ...(topStatements ? { topStatements } : {}) })}\n`);
    } finally {
      await s.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (isPg) await pgQuery(PG_DB, `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    }
  }
  const keys = Object.keys(rows[0] ?? {});
  const out: Record<string, string> = {};
  for (const k of keys) {
    const xs = rows.map((r) => r[k]!);
    out[k] = `${median(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`;
  }
  process.stdout.write(`median ${JSON.stringify({ root, store: opt.store, ...out })}\n`);
}

main().then(() => process.exit(0), (e: unknown) => {
  process.stderr.write(`${String((e as Error).stack ?? e)}\n`);
  process.exit(1);
});
