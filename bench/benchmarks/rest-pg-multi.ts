/**
 * Several instances on one PostgreSQL (issue 16 target 4): 1, 2 and 3 `order-intake serve` processes on one
 * schema, the closed-loop REST load (same total in flight) spread over them round robin. Each count has its own
 * schema and instances, started and warmed once; every run then drives the three counts one after the other, in an
 * order rotated from run to run (countsInRun). Why: this machine's speed drifts by half within minutes (one instance
 * 1,116–1,555 orders/s over the three runs of one bench, 1,082–2,163 in the next, 2026-11-27), and when each run
 * started and warmed fresh instances, the drives of one and three instances were minutes apart; now they are seconds
 * apart, and no count always goes first.
 * Reported per instance count: aggregate orders/s, its ratio to one instance in the same run, and the lock waits sampled every 50 ms
 * from pg_stat_activity/pg_locks during the measured window: sessions of the service waiting on a lock, and in
 * particular on anything of the numbering (the order_sequences row or a sequence). Before migration 012 every
 * registration queued on one order_sequences row; afterwards there must be no such queue. The same samples count the
 * service's active sessions by what they wait for (pg_stat_activity's wait events: none, i.e. running or runnable;
 * the WAL flush; anything else), which heavyweight locks do not show: with more instances the same load is more
 * commits, each waiting for its own flush. And the instances' main threads' context switches per order, voluntary (the
 * wake-ups an order costs, more when each instance's requests arrive fewer at a time) and involuntary (crowded off
 * the cores).
 */
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createSchema, dropSchema, countPgOrders, newSchemaName, pgBaseUrl, pgDurability, pgUnreachable, schemaUrl } from '../lib/pg.ts';
import { startService, type RunningService } from '../lib/service.ts';
import { driveCounted, loadSpec, warmUp } from './rest.ts';
import { cpuOverSpan, mainThreadSwitches, postgresCpuMs, processCpuMs } from '../lib/proc-cpu.ts';
import type { BenchContext, Benchmark, Metric } from '../lib/types.ts';

const COUNTS = [1, 2, 3] as const;
const SAMPLE_MS = 50;

interface LockSample {
  /** Service sessions waiting on any heavyweight lock. */
  waiting: number;
  /** Of those, waiting on the numbering: a tuple/relation lock on order_sequences or a sequence relation. */
  numbering: number;
  /** What was waited on: `locktype relation` → sessions, for the notes. */
  on: Record<string, number>;
  /** Active service sessions with no wait event: running or waiting for a core. */
  running: number;
  /** Active service sessions waiting for the WAL to be written or flushed (their own commit's or another's). */
  walFlush: number;
  /** Active service sessions waiting on anything else (locks, buffers, the client). */
  otherWait: number;
}

/**
 * Wait events of the commit's flush: the backend flushing (IO WALSync/WALWrite) and those queued behind it for the
 * WALWriteLock (LWLock WALWrite), whose records the running flush may already cover: PostgreSQL's own group commit.
 */
const WAL_FLUSH_EVENTS = new Set(['IO:WALSync', 'IO:WALWrite', 'LWLock:WALWrite']);

/** Samples lock waits of the schema's service sessions until stopped. */
function lockSampler(base: string, schema: string): { stop(): Promise<LockSample[]> } {
  const samples: LockSample[] = [];
  const client = new pg.Client({ connectionString: base });
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const { rows } = await client.query<{ on: string; numbering: boolean; n: string }>(
        `SELECT l.locktype || ' ' || coalesce(c.relname, '') AS on,
           coalesce(c.relname = 'order_sequences' OR c.relkind = 'S', false) AS numbering, count(*) AS n
         FROM pg_locks l
         JOIN pg_stat_activity a ON a.pid = l.pid
         LEFT JOIN pg_class c ON c.oid = l.relation
         WHERE NOT l.granted AND a.application_name = 'order-intake'
           AND (c.oid IS NULL OR c.relnamespace = $1::regnamespace)
         GROUP BY 1, 2`,
        [schema],
      );
      const on: Record<string, number> = {};
      for (const r of rows) on[r.on.trim()] = Number(r.n);
      const { rows: events } = await client.query<{ ev: string | null; n: string }>(
        `SELECT wait_event_type || ':' || wait_event AS ev, count(*) AS n
         FROM pg_stat_activity WHERE application_name = 'order-intake' AND state = 'active' GROUP BY 1`,
      );
      const sessions = (keep: (ev: string | null) => boolean) => events.filter((e) => keep(e.ev)).reduce((a, e) => a + Number(e.n), 0);
      samples.push({
        waiting: rows.reduce((a, r) => a + Number(r.n), 0),
        numbering: rows.filter((r) => r.numbering).reduce((a, r) => a + Number(r.n), 0),
        on,
        running: sessions((ev) => ev === null),
        walFlush: sessions((ev) => ev !== null && WAL_FLUSH_EVENTS.has(ev)),
        otherWait: sessions((ev) => ev !== null && !WAL_FLUSH_EVENTS.has(ev)),
      });
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop.catch(() => undefined);
      await client.end().catch(() => undefined);
      return samples;
    },
  };
}

/** One instance count's instances, on a schema of their own, started and warmed once for every run. */
interface Rig {
  n: number;
  schema: string;
  services: RunningService[];
  /** Orders sent to it so far, warm-up included: what its schema must hold when it stops. */
  sent: number;
}

async function startRig(ctx: BenchContext, base: string, n: number): Promise<Rig> {
  const schema = newSchemaName();
  await createSchema(base, schema);
  const rig: Rig = { n, schema, services: [], sent: 0 };
  try {
    for (let i = 0; i < n; i++) {
      const dataDir = path.join(ctx.tmpDir, `multi-${n}-${i}`);
      mkdirSync(dataDir, { recursive: true });
      // The first seeds the schema and prints the demo key; the others join the seeded schema.
      rig.services.push(await startService({ dataDir, env: { INTAKE_DATABASE_URL: schemaUrl(base, schema) }, requireApiKey: i === 0 }));
    }
    ctx.progress(`rest-pg-multi: warming the ${n} instance(s), ${ctx.serviceWarmupSec * n} s`);
    rig.sent += (await warmUp(ctx, origins(rig), rig.services[0]!.apiKey, `W${n}${randomBytes(4).toString('hex')}`)).reduce((a, r) => a + r.sent, 0);
    return rig;
  } catch (e) {
    await stopRig(base, rig, []);
    throw e;
  }
}

function origins(rig: Rig): string[] {
  return rig.services.map((s) => `http://127.0.0.1:${s.ports.http!}`);
}

/** Stops the rig's instances, checks that its schema holds every order sent to it, drops the schema. */
async function stopRig(base: string, rig: Rig, notes: string[]): Promise<void> {
  try {
    for (const s of rig.services.splice(0)) {
      const code = await s.stop();
      if (code !== 0) notes.push(`${rig.n} instance(s): an instance exited with ${code}`);
    }
    const registered = await countPgOrders(base, rig.schema);
    if (registered !== rig.sent) notes.push(`${rig.n} instance(s): ${rig.sent} orders sent over every run, ${registered} registered`);
  } finally {
    await dropSchema(base, rig.schema);
  }
}

/**
 * The instance counts in the order run `run` (1-based) drives them: rotated each run, so that each count goes first,
 * second and third equally often and a machine that speeds up or slows down over a run does not favour one.
 */
export function countsInRun(run: number): number[] {
  const k = (run - 1) % COUNTS.length;
  return [...COUNTS.slice(k), ...COUNTS.slice(0, k)];
}

export const restPgMultiBenchmark: Benchmark = {
  name: 'rest-pg-multi',
  description: 'REST intake on PostgreSQL with 1, 2 and 3 instances on one schema, load spread over them; lock waits sampled',
  byDefault: true,
  async run(ctx) {
    const base = pgBaseUrl();
    const why = await pgUnreachable(base);
    if (why) return { settings: { url: base }, durability: 'n/a', metrics: [], notes: [], skipped: `PostgreSQL at ${base} is unreachable (${why})` };
    const d = await pgDurability(base);
    const samples = new Map<string, number[]>();
    const add = (key: string, v: number) => samples.set(key, [...(samples.get(key) ?? []), v]);
    const notes: string[] = [];
    const details: unknown[] = [];
    const rigs = new Map<number, Rig>();
    try {
      for (const n of COUNTS) rigs.set(n, await startRig(ctx, base, n));
      for (let run = 1; run <= ctx.runs; run++) {
        const tput = new Map<number, number>();
        for (const n of countsInRun(run)) {
          const rig = rigs.get(n)!;
          const services = rig.services;
          ctx.progress(`rest-pg-multi run ${run}/${ctx.runs}: ${ctx.concurrency} in flight over ${n}`);
          const spec = {
            ...loadSpec(ctx, services[0]!.ports.http!, services[0]!.apiKey, 'closed', `M${n}${randomBytes(4).toString('hex')}`),
            origins: origins(rig),
          };
          const sampler = lockSampler(base, rig.schema);
          // Sampled through the drive: backends (and autovacuum workers) that start or end in it are counted.
          const pgSpan = await cpuOverSpan(postgresCpuMs);
          const switchesBefore = services.map((s) => mainThreadSwitches(s.proc.pid!));
          // The other counts' instances wait, started, while this one is driven: what they spend meanwhile is reported.
          const idlePids = [...rigs.values()].filter((r) => r !== rig).flatMap((r) => r.services.map((s) => s.proc.pid!));
          const idleBefore = idlePids.reduce((a, pid) => a + processCpuMs(pid), 0);
          const cost = await driveCounted(spec, services.map((s) => s.proc.pid!), base);
          const res = cost.res;
          add('idleCpu', (idlePids.reduce((a, pid) => a + processCpuMs(pid), 0) - idleBefore) / Math.max(1, res.sent));
          rig.sent += res.sent;
          const switchesAfter = services.map((s) => mainThreadSwitches(s.proc.pid!));
          const switches = (kind: 'voluntary' | 'involuntary') => switchesAfter.reduce((a, after, i) => a + after[kind] - switchesBefore[i]![kind], 0);
          const pgMs = await pgSpan.stop();
          const locks = await sampler.stop();
          // CPU per order over the whole drive (warm-up included), divided by every request sent.
          add(`pgCpu${n}`, pgMs / Math.max(1, res.sent));
          add(`pgOwnCpu${n}`, cost.backendMs!);
          add(`svcCpu${n}`, cost.serverMs);
          // The load generator shares the cores too: its cost per order is part of what the aggregate pays here.
          add(`loadCpu${n}`, cost.clientMs);
          add(`cores${n}`, cost.machineCores);
          add(`wakeups${n}`, switches('voluntary') / Math.max(1, res.sent));
          add(`preempted${n}`, switches('involuntary') / Math.max(1, res.sent));
          const mean = (pick: (l: LockSample) => number) => locks.reduce((a, l) => a + pick(l), 0) / Math.max(1, locks.length);
          add(`running${n}`, mean((l) => l.running));
          add(`walFlush${n}`, mean((l) => l.walFlush));
          add(`otherWait${n}`, mean((l) => l.otherWait));
          const failed = res.errors + res.unanswered + Object.entries(res.statuses).filter(([st]) => st !== '201').reduce((a, [, c]) => a + c, 0);
          if (failed > 0) notes.push(`run ${run}, ${n} instances: ${failed} requests failed or answered other than 201 (${res.firstError ?? ''})`);
          const waitedOn = new Map<string, number>();
          for (const l of locks) for (const [k, c] of Object.entries(l.on)) waitedOn.set(k, (waitedOn.get(k) ?? 0) + c);
          if (waitedOn.size > 0) {
            notes.push(`run ${run}, ${n} instances: lock waits seen (session-samples): `
              + [...waitedOn].sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ${c}`).join(', '));
          }
          tput.set(n, res.okPerSec);
          add(`tput${n}`, res.okPerSec);
          add(`p99${n}`, res.latency.p99);
          add(`wait${n}`, Math.max(0, ...locks.map((l) => l.waiting)));
          add(`waitShare${n}`, (locks.filter((l) => l.waiting > 0).length / Math.max(1, locks.length)) * 100);
          add(`numbering${n}`, Math.max(0, ...locks.map((l) => l.numbering)));
          details.push({ run, instances: n, result: res, lockSamples: locks.length });
          ctx.progress(`rest-pg-multi run ${run}, ${n} instance(s): ${res.okPerSec.toFixed(0)} orders/s, p99 ${res.latency.p99.toFixed(1)} ms, `
            + `lock waits max ${Math.max(0, ...locks.map((l) => l.waiting))} (numbering ${Math.max(0, ...locks.map((l) => l.numbering))})`);
        }
        // Each count against the one instance driven beside it in the same run, seconds apart.
        for (const n of COUNTS) if (n > 1) add(`ratio${n}`, (tput.get(n)! / tput.get(1)!) * 100);
      }
    } finally {
      for (const rig of rigs.values()) await stopRig(base, rig, notes);
    }
    const m = (k: string) => samples.get(k) ?? [];
    const metrics: Metric[] = COUNTS.flatMap((n): Metric[] => [
      { name: `${n} instance(s): orders/s`, unit: 'orders/s', better: 'higher', samples: m(`tput${n}`) },
      ...(n > 1 ? [{ name: `${n} instances / 1 instance`, unit: '%', better: 'higher' as const, samples: m(`ratio${n}`), target: { value: 100, op: '>=' as const } }] : []),
      { name: `${n} instance(s): p99`, unit: 'ms', better: 'lower', samples: m(`p99${n}`) },
      { name: `${n} instance(s): sessions waiting on a lock (max)`, unit: 'sessions', better: 'lower', samples: m(`wait${n}`) },
      { name: `${n} instance(s): samples with a lock wait`, unit: '%', better: 'lower', samples: m(`waitShare${n}`) },
      { name: `${n} instance(s): waiting on numbering (max)`, unit: 'sessions', better: 'lower', samples: m(`numbering${n}`), target: { value: 0, op: '<=' } },
      { name: `${n} instance(s): PostgreSQL CPU per order`, unit: 'ms', better: 'lower', samples: m(`pgCpu${n}`) },
      { name: `${n} instance(s): its backends' CPU per order`, unit: 'ms', better: 'lower', samples: m(`pgOwnCpu${n}`) },
      { name: `${n} instance(s): service CPU per order`, unit: 'ms', better: 'lower', samples: m(`svcCpu${n}`) },
      { name: `${n} instance(s): load generator's CPU per order`, unit: 'ms', better: 'lower', samples: m(`loadCpu${n}`) },
      // Of availableParallelism(): under them, the instances' answers' latency bounds the loop, not the cores.
      { name: `${n} instance(s): machine cores busy`, unit: 'cores', better: 'higher', samples: m(`cores${n}`) },
      { name: `${n} instance(s): main threads' voluntary switches per order`, unit: 'switches', better: 'lower', samples: m(`wakeups${n}`) },
      { name: `${n} instance(s): main threads' involuntary switches per order`, unit: 'switches', better: 'lower', samples: m(`preempted${n}`) },
      { name: `${n} instance(s): active sessions, running (mean)`, unit: 'sessions', better: 'lower', samples: m(`running${n}`) },
      { name: `${n} instance(s): active sessions, waiting on the WAL flush (mean)`, unit: 'sessions', better: 'lower', samples: m(`walFlush${n}`) },
      { name: `${n} instance(s): active sessions, other waits (mean)`, unit: 'sessions', better: 'lower', samples: m(`otherWait${n}`) },
    ]);
    metrics.push({ name: 'waiting instances of the other counts: CPU per order driven', unit: 'ms', better: 'lower', samples: m('idleCpu') });
    return {
      settings: { store: 'postgres', instances: COUNTS, concurrency: ctx.concurrency, warmupSec: ctx.warmupSec, serviceWarmupSecPerInstance: ctx.serviceWarmupSec, durationSec: ctx.durationSec,
        lockSampleMs: SAMPLE_MS, postgres: d,
        schemas: 'one per instance count, its instances started and warmed once and driven in every run', order: 'rotated each run (countsInRun)' },
      durability: `PostgreSQL ${d.server_version}: fsync=${d.fsync}, synchronous_commit=${d.synchronous_commit}; every answer after its commit's flush`,
      metrics,
      notes,
      details,
    };
  },
};
