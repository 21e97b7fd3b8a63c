/**
 * REST intake: `POST /api/v1/ordini` with a 3-line JSON order, each request a new order, against the real service
 * (its own process, fresh database each run) from a load generator in another process. Each run measures, in
 * turn: the bare fastify ceiling (closed loop), the intake's throughput (closed loop, same concurrency) and the
 * intake's latency at a fixed open-loop rate. The ratio intake/ceiling is taken within each run, so both halves
 * see the same machine load.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { askOnce, forkTs, nextMessage, ROOT, stopChild } from '../lib/children.ts';
import pg from 'pg';
import { backendCpuMs, countPgOrders, createSchema, dropSchema, newSchemaName, pgBaseUrl, pgDurability, pgUnreachable, schemaUrl } from '../lib/pg.ts';
import { availableParallelism } from 'node:os';
import { cpuOverSpan, machineCpuMs, processCpuMs } from '../lib/proc-cpu.ts';
import { startService, type RunningService } from '../lib/service.ts';
import { countSqliteOrders } from '../lib/sqlite-count.ts';
import { summariseProfiles } from '../profile/summarise.ts';
import type { LoadResult, LoadSpec } from '../load/protocol.ts';
import type { Benchmark, BenchContext, BenchResult, Metric } from '../lib/types.ts';

const ORDER_LINES = 3;
/** The child gets warm-up + window + drain time, plus start-up; past that it is stuck and the run fails. */
const LOAD_SLACK_MS = 60_000;

type StoreKind = 'sqlite' | 'postgres';

/** IPC carries JSON, where NaN (no sample) becomes null; it is NaN again here so the summaries skip it. */
function revive(r: LoadResult): LoadResult {
  const l = r.latency as unknown as Record<string, number | null>;
  for (const k of Object.keys(l)) if (l[k] === null) l[k] = NaN;
  return r;
}

export async function drive(spec: LoadSpec): Promise<LoadResult> {
  return revive(await askOnce<LoadResult>('bench/load/loadgen.ts', spec, (spec.warmupSec + spec.durationSec) * 1000 + LOAD_SLACK_MS));
}

/** What a drive cost, per request sent, besides its result: the server processes' CPU and their PostgreSQL backends'. */
export interface DriveCost {
  res: LoadResult;
  /** CPU ms per request of the server processes (every thread). */
  serverMs: number;
  /** CPU ms per request of the PostgreSQL backends serving them (when a server URL was given). */
  backendMs?: number;
  /** CPU ms per request of the load generator. */
  clientMs: number;
  /**
   * Cores the whole machine kept busy over the drive (every process: servers, PostgreSQL, the load generator, the
   * rest): well under availableParallelism(), the closed loop is bound by its answers' latency, not by CPU.
   */
  machineCores: number;
}

/**
 * `drive`, with what it cost each side: a ceiling and the intake are then compared by CPU per request as well as by
 * throughput, which says how far a target of the issue is in work to remove (issue 16 targets 1 and 2).
 */
export async function driveCounted(spec: LoadSpec, serverPids: readonly number[], pgBase?: string): Promise<DriveCost> {
  const asker = pgBase ? new pg.Client({ connectionString: pgBase }) : undefined;
  await asker?.connect();
  try {
    // Sampled through the drive: backends that start or end in it are counted (cpuOverSpan).
    const backends = asker ? await cpuOverSpan(() => backendCpuMs(asker, serverPids)) : undefined;
    const serverCpu = () => serverPids.reduce((a, pid) => a + processCpuMs(pid), 0);
    const before = serverCpu();
    const machineBefore = machineCpuMs();
    const res = await drive(spec);
    const machineAfter = machineCpuMs();
    const per = (ms: number) => ms / Math.max(1, res.sent);
    const serverMs = per(serverCpu() - before);
    const backendMs = backends ? per(await backends.stop()) : undefined;
    const cores = availableParallelism();
    // The total's span is the wall time times the cores: busy over it, times the cores, is cores kept busy.
    const machineCores = (cores * (machineAfter.busy - machineBefore.busy)) / Math.max(1, machineAfter.total - machineBefore.total);
    return {
      res, serverMs, clientMs: per(res.cpuUserMs + res.cpuSystemMs), machineCores,
      ...(backendMs === undefined ? {} : { backendMs }),
    };
  } finally {
    await asker?.end();
  }
}

export function loadSpec(ctx: BenchContext, port: number, apiKey: string | undefined, mode: 'closed' | 'open', refPrefix: string): LoadSpec {
  return {
    origin: `http://127.0.0.1:${port}`,
    path: '/api/v1/ordini',
    headers: apiKey ? { 'x-api-key': apiKey } : {},
    orderLines: ORDER_LINES,
    refPrefix,
    refs: ctx.refs,
    mode,
    concurrency: ctx.concurrency,
    rate: mode === 'open' ? ctx.rate : 0,
    connections: 64,
    warmupSec: ctx.warmupSec,
    durationSec: ctx.durationSec,
    expectStatus: 201,
  };
}

/**
 * The unmeasured load a freshly started server gets once (ctx.serviceWarmupSec per instance, spread over `origins`
 * as the measurement spreads it), so that what follows measures its steady state: in its first 15–30 s under load a
 * new process is still compiling its hot paths and growing its heap (bench/profile/warm-up.ts: REST on SQLite ran
 * 2,534 orders/s in its first 5 s and about 3,100 from 25 s on, 2026-11-26).
 */
export async function warmUp(ctx: BenchContext, origins: readonly string[], apiKey: string | undefined, refPrefix: string): Promise<LoadResult[]> {
  if (ctx.serviceWarmupSec <= 0) return [];
  const url = new URL(origins[0]!);
  // Its orders are registered like the measured ones: the caller counts them in what must be registered.
  return [await drive({
    ...loadSpec(ctx, Number(url.port), apiKey, 'closed', refPrefix), origins: [...origins],
    warmupSec: 0, durationSec: ctx.serviceWarmupSec * origins.length,
  })];
}

/** Where the service of one run keeps its data: a data folder, and for PostgreSQL a schema of its own. */
interface RunStore {
  env: Record<string, string>;
  dataDir: string;
  count(): Promise<number>;
  dispose(): Promise<void>;
}

async function runStore(kind: StoreKind, ctx: BenchContext, run: number): Promise<RunStore> {
  const dataDir = path.join(ctx.tmpDir, `service-${run}`);
  mkdirSync(dataDir, { recursive: true });
  if (kind === 'sqlite') {
    return { env: {}, dataDir, count: async () => countSqliteOrders(dataDir), dispose: async () => undefined };
  }
  const base = pgBaseUrl();
  const schema = newSchemaName();
  await createSchema(base, schema);
  return {
    env: { INTAKE_DATABASE_URL: schemaUrl(base, schema) },
    dataDir,
    count: () => countPgOrders(base, schema),
    dispose: () => dropSchema(base, schema),
  };
}

async function startBare(file = 'bench/load/bare-server.ts', env: NodeJS.ProcessEnv = process.env): Promise<{ child: ChildProcess; port: number }> {
  const child = forkTs(file, [], env);
  try {
    const { port } = await nextMessage<{ port: number }>(child, 30_000);
    return { child, port };
  } catch (e) {
    await stopChild(child);
    throw e;
  }
}

/**
 * One extra closed-loop pass with the service under `node --cpu-prof`, not counted in the figures (the profiler
 * slows it); its summary (top self-time functions, time by package) goes into the notes.
 */
async function profilePass(kind: StoreKind, ctx: BenchContext): Promise<string[]> {
  const store = await runStore(kind, ctx, 0);
  const profDir = path.join(ctx.tmpDir, 'cpuprofile');
  let service: RunningService | undefined;
  try {
    service = await startService({ dataDir: store.dataDir, env: store.env, cpuProfDir: profDir });
    ctx.progress(`profiling the service: ${ctx.durationSec} s closed loop, ${ctx.concurrency} in flight`);
    const res = await drive(loadSpec(ctx, service.ports.http!, service.apiKey, 'closed', `P${randomBytes(4).toString('hex')}`));
    await service.stop();
    service = undefined;
    return [`profile pass (not in the figures): ${res.okPerSec.toFixed(0)} orders/s under the profiler`, ...summariseProfiles(profDir, ROOT, path.join(ROOT, 'bench/results', `${kind === 'sqlite' ? 'rest' : 'rest-pg'}.cpuprofile`))];
  } finally {
    await service?.stop();
    await store.dispose();
  }
}

export function restBenchmark(kind: StoreKind): Benchmark {
  const name = kind === 'sqlite' ? 'rest' : 'rest-pg';
  return {
    name,
    description: `REST intake of a ${ORDER_LINES}-line JSON order, ${kind === 'sqlite' ? 'SQLite (synchronous=FULL)' : 'PostgreSQL'} store, vs a bare fastify route`,
    byDefault: true,
    async run(ctx) {
      let durability: string;
      const extraSettings: Record<string, unknown> = {};
      if (kind === 'postgres') {
        const base = pgBaseUrl();
        const why = await pgUnreachable(base);
        if (why) {
          return {
            settings: { url: base }, durability: 'n/a', metrics: [], notes: [], skipped: `PostgreSQL at ${base} is unreachable (${why})`,
          };
        }
        const d = await pgDurability(base);
        extraSettings.postgres = d;
        durability = `PostgreSQL ${d.server_version}: fsync=${d.fsync}, synchronous_commit=${d.synchronous_commit}, `
          + `wal_sync_method=${d.wal_sync_method}; the service answers after the COMMIT recording the outcome has been flushed `
          + '(submission and orders are committed before it with synchronous_commit off, and covered by that flush)';
      } else {
        durability = 'SQLite WAL, synchronous=FULL, group commit: the service answers after the commit recording the outcome '
          + 'has fsynced the WAL, which covers the submission and the orders committed before it (one fsync shared by every '
          + 'request in the batch)';
      }

      const samples = new Map<string, number[]>();
      const add = (key: string, v: number) => {
        const list = samples.get(key) ?? [];
        list.push(v);
        samples.set(key, list);
      };
      const m = (key: string) => samples.get(key) ?? [];
      const details: unknown[] = [];
      const notes: string[] = [];
      if (ctx.profile) notes.push(...await profilePass(kind, ctx));
      const bare = await startBare();
      try {
        ctx.progress(`${name}: warming the bare fastify route, ${ctx.serviceWarmupSec} s`);
        await warmUp(ctx, [`http://127.0.0.1:${bare.port}`], undefined, `W${randomBytes(4).toString('hex')}-bare`);
        for (let run = 1; run <= ctx.runs; run++) {
          const prefix = `B${randomBytes(4).toString('hex')}`;
          const step = (what: string) => ctx.progress(`${name} run ${run}/${ctx.runs}: ${what}`);
          step('bare fastify ceiling');
          const bareCost = await driveCounted(loadSpec(ctx, bare.port, undefined, 'closed', `${prefix}-bare`), [bare.child.pid!]);
          const bareRes = bareCost.res;
          add('bareCpu', bareCost.serverMs);
          add('bareClientCpu', bareCost.clientMs);
          add('bareCores', bareCost.machineCores);
          if (kind === 'postgres') {
            // What PostgreSQL allows one row per request, in the same run (issue 16: the store must beat it by 1.5).
            step('bare pg ceiling (fastify + pg Pool, one INSERT per request)');
            const base = pgBaseUrl();
            const schema = newSchemaName();
            await createSchema(base, schema);
            const barePg = await startBare('bench/load/bare-pg-server.ts', { ...process.env, BARE_PG_URL: schemaUrl(base, schema) });
            try {
              await warmUp(ctx, [`http://127.0.0.1:${barePg.port}`], undefined, `${prefix}-barepg-w`);
              const cost = await driveCounted(loadSpec(ctx, barePg.port, undefined, 'closed', `${prefix}-barepg`), [barePg.child.pid!], base);
              add('pgCeiling', cost.res.okPerSec);
              add('barePgCpu', cost.serverMs);
              add('barePgBackendCpu', cost.backendMs!);
              add('barePgClientCpu', cost.clientMs);
              add('barePgCores', cost.machineCores);
            } finally {
              await stopChild(barePg.child);
              await dropSchema(base, schema);
            }
          }

          const store = await runStore(kind, ctx, run);
          let service: RunningService | undefined;
          const loads: LoadResult[] = [];
          const warmed: LoadResult[] = [];
          let registered: number;
          let halfRate = 0;
          try {
            service = await startService({ dataDir: store.dataDir, env: store.env });
            const port = service.ports.http!;
            step(`warming the service, ${ctx.serviceWarmupSec} s`);
            warmed.push(...await warmUp(ctx, [`http://127.0.0.1:${port}`], service.apiKey, `${prefix}-w`));
            step(`intake throughput, ${ctx.concurrency} in flight`);
            const cost = await driveCounted(loadSpec(ctx, port, service.apiKey, 'closed', `${prefix}-c`), [service.proc.pid!], kind === 'postgres' ? pgBaseUrl() : undefined);
            loads.push(cost.res);
            add('intakeCpu', cost.serverMs);
            add('intakeClientCpu', cost.clientMs);
            add('intakeCores', cost.machineCores);
            if (cost.backendMs !== undefined) add('intakeBackendCpu', cost.backendMs);
            step(`intake latency at ${ctx.rate}/s open loop`);
            loads.push(await drive(loadSpec(ctx, port, service.apiKey, 'open', `${prefix}-o`)));
            // The fixed rate says whether the target is met; half the measured capacity says how the service
            // behaves under a load it can carry (when the fixed rate is beyond its capacity, latency there is queueing).
            halfRate = Math.max(10, Math.round(loads[0]!.okPerSec / 2));
            step(`intake latency at ${halfRate}/s open loop (half of the measured throughput)`);
            loads.push(await drive({ ...loadSpec(ctx, port, service.apiKey, 'open', `${prefix}-h`), rate: halfRate }));
            const code = await service.stop();
            if (code !== 0) throw new Error(`the service exited with ${code}\n${service.recentLines().join('\n')}`);
            service = undefined;
            registered = await store.count();
          } finally {
            await service?.stop();
            await store.dispose();
          }
          const [closed, open, half] = loads as [LoadResult, LoadResult, LoadResult];

          const sent = [...warmed, ...loads].reduce((n, r) => n + r.sent, 0);
          const errors = [...warmed, ...loads].reduce((n, r) => n + r.errors + r.unanswered, 0);
          const otherStatuses = [...warmed, ...loads].flatMap((r) => Object.entries(r.statuses)).filter(([st]) => st !== '201')
            .reduce((n, [, c]) => n + c, 0);
          // Every request carried a new valid order, so every one sent must be registered once the service stopped.
          if (registered !== sent) notes.push(`run ${run}: ${sent} orders sent, ${registered} registered`);
          if (errors + otherStatuses > 0) {
            const first = [...warmed, ...loads].find((r) => r.firstError)?.firstError;
            notes.push(`run ${run}: ${errors} requests failed or unanswered, ${otherStatuses} answered other than 201${first ? ` (${first})` : ''}`);
          }
          add('ceiling', bareRes.okPerSec);
          add('intake', closed.okPerSec);
          add('ratio', (closed.okPerSec / bareRes.okPerSec) * 100);
          if (kind === 'postgres') add('pgRatio', (closed.okPerSec / m('pgCeiling').at(-1)!) * 100);
          add('closedP99', closed.latency.p99);
          for (const [key, r] of [['open', open], ['half', half]] as const) {
            add(`${key}Achieved`, r.okPerSec);
            add(`${key}Missed`, r.missed);
            add(`${key}P50`, r.latency.p50);
            add(`${key}P99`, r.latency.p99);
            add(`${key}Max`, r.latency.max);
          }
          add('halfRate', halfRate);
          details.push({ run, bare: bareRes, closed, open, half, sent, registered });
          ctx.progress(`${name} run ${run}: ceiling ${bareRes.okPerSec.toFixed(0)}/s, intake ${closed.okPerSec.toFixed(0)}/s; `
            + `at ${ctx.rate}/s p99 ${open.latency.p99.toFixed(1)} ms (${open.missed} missed); `
            + `at ${halfRate}/s p99 ${half.latency.p99.toFixed(1)} ms; ${registered}/${sent} registered`);
        }
      } finally {
        await stopChild(bare.child);
      }

      const metrics: Metric[] = [
        { name: 'bare fastify ceiling', unit: 'req/s', better: 'higher', samples: m('ceiling') },
        ...(kind === 'postgres' ? [
          { name: 'bare pg ceiling (one INSERT per request)', unit: 'req/s', better: 'higher' as const, samples: m('pgCeiling') },
        ] : []),
        { name: `intake throughput (${ctx.concurrency} in flight)`, unit: 'orders/s', better: 'higher', samples: m('intake'),
          ...(kind === 'sqlite' ? { target: { value: 5000, op: '>=' as const } } : {}) },
        { name: 'intake / ceiling', unit: '%', better: 'higher', samples: m('ratio'), ...(kind === 'sqlite' ? { target: { value: 50, op: '>=' as const } } : {}) },
        ...(kind === 'postgres' ? [
          { name: 'intake / bare pg ceiling', unit: '%', better: 'higher' as const, samples: m('pgRatio'), target: { value: 150, op: '>=' as const } },
        ] : []),
        { name: `closed loop: p99`, unit: 'ms', better: 'lower', samples: m('closedP99') },
        // CPU per request of each side in the closed loops: what a ceiling costs against what an order costs.
        { name: 'bare fastify: server CPU per request', unit: 'ms', better: 'lower', samples: m('bareCpu') },
        { name: 'bare fastify: load generator CPU per request', unit: 'ms', better: 'lower', samples: m('bareClientCpu') },
        ...(kind === 'postgres' ? [
          { name: 'bare pg: server CPU per request', unit: 'ms', better: 'lower' as const, samples: m('barePgCpu') },
          { name: 'bare pg: its backends\' CPU per request', unit: 'ms', better: 'lower' as const, samples: m('barePgBackendCpu') },
          { name: 'bare pg: load generator CPU per request', unit: 'ms', better: 'lower' as const, samples: m('barePgClientCpu') },
        ] : []),
        { name: 'intake: service CPU per order', unit: 'ms', better: 'lower', samples: m('intakeCpu') },
        ...(kind === 'postgres' ? [
          { name: 'intake: its backends\' CPU per order', unit: 'ms', better: 'lower' as const, samples: m('intakeBackendCpu') },
        ] : []),
        { name: 'intake: load generator CPU per order', unit: 'ms', better: 'lower', samples: m('intakeClientCpu') },
        // Cores the whole machine kept busy in each closed loop, of availableParallelism(): a loop well under them is
        // bound by its answers' latency, and more requests in flight would carry more (performance-history.md, twenty-first round).
        { name: 'bare fastify: machine cores busy', unit: 'cores', better: 'higher', samples: m('bareCores') },
        ...(kind === 'postgres' ? [
          { name: 'bare pg: machine cores busy', unit: 'cores', better: 'higher' as const, samples: m('barePgCores') },
        ] : []),
        { name: 'intake: machine cores busy', unit: 'cores', better: 'higher', samples: m('intakeCores') },
        { name: `open ${ctx.rate}/s: answered`, unit: 'orders/s', better: 'higher', samples: m('openAchieved') },
        { name: `open ${ctx.rate}/s: not sent (saturated)`, unit: 'requests', better: 'lower', samples: m('openMissed') },
        { name: `open ${ctx.rate}/s: p50`, unit: 'ms', better: 'lower', samples: m('openP50') },
        { name: `open ${ctx.rate}/s: p99`, unit: 'ms', better: 'lower', samples: m('openP99'), target: { value: 25, op: '<=' } },
        { name: `open ${ctx.rate}/s: max`, unit: 'ms', better: 'lower', samples: m('openMax') },
        { name: 'open at half capacity: rate', unit: 'orders/s', better: 'higher', samples: m('halfRate') },
        { name: 'open at half capacity: p50', unit: 'ms', better: 'lower', samples: m('halfP50') },
        { name: 'open at half capacity: p99', unit: 'ms', better: 'lower', samples: m('halfP99') },
        { name: 'open at half capacity: max', unit: 'ms', better: 'lower', samples: m('halfMax') },
      ];
      if (m('openMissed').some((v) => v > 0)) {
        notes.push(`at ${ctx.rate}/s the service fell more than 2 s behind: sends beyond ${Math.max(1000, ctx.rate * 2)} unanswered `
          + 'were skipped and counted as "not sent", so its latency figures describe a saturated service (queueing), not a stall');
      }
      const result: BenchResult = {
        settings: {
          store: kind, orderLines: ORDER_LINES, references: ctx.refs, concurrency: ctx.concurrency, openLoopRates: [ctx.rate, 'half of the run\'s measured throughput'], openLoopConnections: 64,
          warmupSec: ctx.warmupSec, serviceWarmupSec: ctx.serviceWarmupSec, durationSec: ctx.durationSec, logLevel: 'info (logs piped to the benchmark and counted)',
          freshDatabaseEachRun: true, client: 'undici Pool in a separate process, pipelining 1', ...extraSettings,
        },
        durability,
        metrics,
        notes,
        details,
      };
      return result;
    },
  };
}
