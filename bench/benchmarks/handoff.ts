/**
 * Hand-off, in two parts per run and store.
 *
 * Latency: orders sent by REST at a fixed open-loop rate (1,000/s) to the real service (its own process, fresh
 * database), one webhook registered to a receiver in this process, and an ERP reading the pull feed
 * `GET /api/v1/eventi` with an integration key by long polling (`attesa`), as an ERP would. Per order: the time from
 * the REST acknowledgement (201 read by the client) to the webhook received, and to the event returned by the feed.
 * Both times are taken on this process's clock. An event is committed with the registration, before the outcome
 * commit the acknowledgement waits for, so the feed often returns it before the client has read its 201: that
 * counts as 0 (readable when acknowledged), and how often it happened is reported. The load starts once a probe
 * order's webhook has arrived, and its first leadSec seconds are not measured.
 *
 * Cost of the outbox: the REST intake's closed-loop throughput (--concurrency requests in flight, load generator in
 * another process) with the outbox on and with INTAKE_OUTBOX=off, each on a fresh service warmed first (leadSec), one
 * after the other in the same run (which goes first alternates between runs), so both see the same machine load; the
 * figure is the per-run ratio. The CPU per order of the service and its PostgreSQL backends is taken in that drive and
 * in one more at the fixed RATE, open loop: the outbox's extra CPU at one load, set against the full-load CPU (cost()).
 * Fresh processes of the same code differ by about a fifth in what every order costs them (performance-history.md, fifteenth
 * round), so a cost near 10 % needs several pairs whichever figure is read.
 */
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import pg from 'pg';
import { drive, loadSpec, warmUp } from './rest.ts';
import { cpuOverSpan, processCpuMs } from '../lib/proc-cpu.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { backendCpuMs, createSchema, dropSchema, newSchemaName, pgBaseUrl, pgUnreachable, schemaUrl } from '../lib/pg.ts';
import { startService, type RunningService } from '../lib/service.ts';
import { latencySummary } from '../lib/stats.ts';
import { jsonOrder } from '../lib/orders.ts';
import type { Benchmark, BenchContext, BenchResult, Metric } from '../lib/types.ts';

/** The rate the issue names: p99 targets are stated at 1,000 orders/s. */
const RATE = 1000;
const KEY = Buffer.alloc(32, 3).toString('base64');
/** After the last order, how long deliveries may still arrive before the run counts the missing ones. */
const DRAIN_MS = 15_000;

interface RunFigures {
  /** Answers by HTTP status (or error code), warm-up included. */
  statuses: Record<string, number>;
  serviceLog?: string[];
  /** Answers per second from the first request to the last answer: what the service kept up with. */
  answeredPerSec: number;
  sent: number;
  acked: number;
  delivered: number;
  webhook: ReturnType<typeof latencySummary>;
  feed: ReturnType<typeof latencySummary>;
  /** Events the feed returned before the client had read the order's 201 (counted as 0 in `feed`). */
  feedBeforeAck: number;
}

function receiver(onEvent: (ref: string) => void): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const ref = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { riferimento_ordine?: string } }).data.riferimento_ordine;
      if (ref) onEvent(ref);
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` })));
}

/**
 * The unmeasured lead of the latency part, at the same 1,000/s: the warm-up, and the service's own warm-up
 * (`--service-warmup`, as the REST benchmarks give it): a fresh service under load is still compiling its hot paths
 * for 15–30 s (bench/profile/warm-up.ts), and its deliveries queued in those first seconds were still being worked off
 * when a 2 s warm-up ended (2026-11-26).
 */
function leadSec(ctx: BenchContext): number {
  return ctx.warmupSec + ctx.serviceWarmupSec;
}

async function oneRun(kind: 'sqlite' | 'postgres', ctx: BenchContext, run: number): Promise<RunFigures> {
  const dataDir = path.join(ctx.tmpDir, `${kind}-${run}`);
  mkdirSync(dataDir, { recursive: true });
  const base = kind === 'postgres' ? pgBaseUrl() : undefined;
  const schema = base ? newSchemaName() : undefined;
  if (base && schema) await createSchema(base, schema);
  const databaseUrl = base && schema ? schemaUrl(base, schema) : undefined;
  const acked = new Map<string, number>();
  const hooked = new Map<string, number>();
  const fed = new Map<string, number>();
  const rx = await receiver((ref) => { if (!hooked.has(ref)) hooked.set(ref, performance.now()); });
  let service: RunningService | undefined;
  let store: Store | undefined;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  try {
    service = await startService({ dataDir, env: { INTAKE_SECRET_KEY: KEY, ...(databaseUrl ? { INTAKE_DATABASE_URL: databaseUrl } : {}) } });
    store = await openStore({ dataDir, databaseUrl });
    await addWebhook(store, KEY, { url: rx.url, allowPrivate: true, events: 'ordine.registrato' });
    const { api_key: integrationKey } = await addIntegration(store, 'bench-erp');
    const port = service.ports.http!;
    const feedAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const feedPage = (cursor: string | null) => new Promise<{ eventi: { cursor: string; data: { riferimento_ordine?: string } }[]; cursore: string | null }>(
      (resolve, reject) => {
        const q = `/api/v1/eventi?limite=1000&attesa=2${cursor ? `&dopo=${encodeURIComponent(cursor)}` : ''}`;
        http.get({ host: '127.0.0.1', port, path: q, agent: feedAgent, headers: { 'x-api-key': integrationKey } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            if (res.statusCode !== 200) reject(new Error(`feed answered ${res.statusCode}: ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}`));
            else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as never);
          });
        }).on('error', reject);
      });
    const earlyRefs = new Set<string>();
    let polling = true;
    // The ERP: long polls back to back from the start of the stream (a fresh database: nothing before the run).
    const poller = (async () => {
      let cursor: string | null = null;
      while (polling) {
        const page = await feedPage(cursor);
        const at = performance.now();
        for (const e of page.eventi) {
          const ref = e.data.riferimento_ordine;
          if (typeof ref === 'string' && !fed.has(ref)) {
            fed.set(ref, at);
            if (!acked.has(ref)) earlyRefs.add(ref);
          }
        }
        cursor = page.cursore;
      }
    })();

    const prefix = `H${randomBytes(3).toString('hex')}`;
    let sent = 0;
    const statuses: Record<string, number> = {};
    const send = (ref: string) => {
      const body = jsonOrder(ref, 3);
      const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/ordini', method: 'POST', agent,
        headers: { 'content-type': 'application/json', 'x-api-key': service!.apiKey, 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 201) acked.set(ref, performance.now());
          statuses[String(res.statusCode)] = (statuses[String(res.statusCode)] ?? 0) + 1;
        });
      });
      req.on('error', (e: NodeJS.ErrnoException) => { statuses[e.code ?? 'error'] = (statuses[e.code ?? 'error'] ?? 0) + 1; });
      req.end(body);
    };
    // A webhook added while the service runs is seen at the service's next look for subscribers (up to a second
    // later: NO_SUBSCRIBER_TTL_MS in src/handoff/dispatcher.ts). Orders sent before that wait for it, and at 1,000/s,
    // close to what PostgreSQL's deliveries keep up with on this machine, that first second's queue was still being
    // worked off at the end of the run (measured 2026-11-26: p50 over a second, every run). A real webhook is added
    // long before the orders it is for, so the load starts once a probe order's webhook has arrived.
    const probe = `P${prefix}`;
    send(probe);
    const probeDeadline = performance.now() + 30_000;
    while (!hooked.has(probe)) {
      if (performance.now() > probeDeadline) throw new Error('the probe order\'s webhook did not arrive within 30 s');
      await new Promise((r) => setTimeout(r, 20));
    }
    // The probe's answer is not one of the run's.
    for (const k of Object.keys(statuses)) delete statuses[k];
    const totalSec = leadSec(ctx) + ctx.durationSec;
    const start = performance.now();
    await new Promise<void>((resolve) => {
      const tick = setInterval(() => {
        const elapsed = (performance.now() - start) / 1000;
        const due = Math.min(Math.floor(elapsed * RATE), Math.floor(totalSec * RATE));
        for (; sent < due; sent++) send(`${sent < leadSec(ctx) * RATE ? 'W' : 'M'}${prefix}-${sent}`);
        if (elapsed >= totalSec) {
          clearInterval(tick);
          resolve();
        }
      }, 5);
    });
    const measured = [...Array(sent).keys()].filter((i) => i >= leadSec(ctx) * RATE).map((i) => `M${prefix}-${i}`);
    // Requests the service has not answered yet are still queued in the agent: wait for their answers first.
    const answered = () => Object.values(statuses).reduce((a, b) => a + b, 0);
    const answerDeadline = performance.now() + 4 * DRAIN_MS;
    while (answered() < sent && performance.now() < answerDeadline) await new Promise((r) => setTimeout(r, 100));
    const answeredPerSec = answered() / ((performance.now() - start) / 1000);
    const deadline = performance.now() + DRAIN_MS;
    while (performance.now() < deadline && measured.some((r) => acked.has(r) && !hooked.has(r))) await new Promise((r) => setTimeout(r, 100));
    polling = false;
    await poller;
    feedAgent.destroy();
    // Only when the service stopped answering: its last log lines say why.
    const serviceLog = statuses.ECONNREFUSED ? service.recentLines().slice(-8) : undefined;
    const lag = (m: Map<string, number>) => Float64Array.from(measured.filter((r) => acked.has(r) && m.has(r)).map((r) => Math.max(0, m.get(r)! - acked.get(r)!)));
    return {
      statuses, serviceLog, answeredPerSec, sent: measured.length, acked: measured.filter((r) => acked.has(r)).length, delivered: measured.filter((r) => hooked.has(r)).length,
      webhook: latencySummary(lag(hooked)), feed: latencySummary(lag(fed)),
      feedBeforeAck: measured.filter((r) => acked.has(r) && earlyRefs.has(r)).length,
    };
  } finally {
    agent.destroy();
    await service?.stop();
    await store?.close();
    rx.server.closeAllConnections();
    rx.server.close();
    if (base && schema) await dropSchema(base, schema);
  }
}

/** REST on a fresh service with the outbox on or off: its closed-loop throughput, and the CPU an order costs. */
interface CostFigures {
  okPerSec: number;
  /**
   * CPU ms per order sent, the service's process (every thread) and on PostgreSQL the backends serving it: in the
   * closed-loop drive (full load), and in the open-loop drive at RATE (`rateDbCpuMs`: the backends' part).
   */
  fullCpuMs: number;
  rateCpuMs: number;
  rateDbCpuMs: number;
  /** Orders the drive at RATE sent, and how many were not answered 201 (or not sent: the service fell 2 s behind). */
  rateOrders: number;
  rateFailed: number;
}

/** The CPU ms the service's process and (on PostgreSQL) its backends spend while `work` runs. */
async function cpuWhile<T>(pid: number, asker: pg.Client | undefined, work: () => Promise<T>): Promise<{ result: T; serviceMs: number; dbMs: number }> {
  // Sampled through the drive: a backend the pool opens or closes in it is counted (cpuOverSpan).
  const dbSpan = asker ? await cpuOverSpan(() => backendCpuMs(asker, [pid])) : undefined;
  const cpu0 = processCpuMs(pid);
  const result = await work();
  const serviceMs = processCpuMs(pid) - cpu0;
  return { result, serviceMs, dbMs: (await dbSpan?.stop()) ?? 0 };
}

/**
 * REST closed-loop throughput of a fresh service with the outbox on or off (INTAKE_OUTBOX=off), then the same service
 * at a fixed open-loop RATE, with the CPU per order it and its PostgreSQL backends spend in each drive.
 *
 * Why the CPU at a fixed rate: the throughput of two fresh services in a row spread by tens of points on this shared
 * machine (a cost of 30.9 % with a 37-point spread, 2026-11-27), and the CPU per order at full load moves with that
 * throughput: between two runs of the same code the slower spent 12–32 % more per order (2026-11-27), fewer orders
 * sharing each group's commit and statement start. At one fixed rate both sides carry the same load, so the difference
 * is the outbox's own work (plus how fast each fresh process happens to be: about a fifth, see the header); set against
 * the CPU per order at full load (which is what bounds the throughput) it says what share of the throughput the outbox
 * takes.
 */
async function cost(kind: 'sqlite' | 'postgres', ctx: BenchContext, run: number, outbox: boolean): Promise<CostFigures> {
  const dataDir = path.join(ctx.tmpDir, `${kind}-${run}-tput-${outbox ? 'on' : 'off'}`);
  mkdirSync(dataDir, { recursive: true });
  const base = kind === 'postgres' ? pgBaseUrl() : undefined;
  const schema = base ? newSchemaName() : undefined;
  if (base && schema) await createSchema(base, schema);
  let service: RunningService | undefined;
  const asker = base ? new pg.Client({ connectionString: base }) : undefined;
  try {
    service = await startService({ dataDir, env: {
      INTAKE_SECRET_KEY: KEY, ...(outbox ? {} : { INTAKE_OUTBOX: 'off' }), ...(base && schema ? { INTAKE_DATABASE_URL: schemaUrl(base, schema) } : {}),
    } });
    const port = service.ports.http!;
    const pid = service.proc.pid!;
    const prefix = `T${randomBytes(3).toString('hex')}`;
    // A fresh service each time: its own warm-up first, unmeasured, as in the latency part (leadSec).
    await warmUp(ctx, [`http://127.0.0.1:${port}`], service.apiKey, `${prefix}-w`);
    await asker?.connect();
    const full = await cpuWhile(pid, asker, () => drive(loadSpec(ctx, port, service!.apiKey, 'closed', prefix)));
    const atRate = await cpuWhile(pid, asker, () => drive({ ...loadSpec(ctx, port, service!.apiKey, 'open', `${prefix}-r`), rate: RATE, warmupSec: 0 }));
    // Per order sent in the drive, its own warm-up included (as rest-pg-multi counts).
    const per = (x: { serviceMs: number; dbMs: number }, sent: number) => (x.serviceMs + x.dbMs) / Math.max(1, sent);
    const open = atRate.result;
    return {
      okPerSec: full.result.okPerSec, fullCpuMs: per(full, full.result.sent), rateCpuMs: per(atRate, open.sent),
      rateDbCpuMs: atRate.dbMs / Math.max(1, open.sent),
      // Every order of the open drive is answered before it ends (late ones too); those missed were never sent.
      rateOrders: open.sent, rateFailed: open.sent - (open.statuses[201] ?? 0) + open.missed,
    };
  } finally {
    await asker?.end().catch(() => undefined);
    await service?.stop();
    if (base && schema) await dropSchema(base, schema);
  }
}

/** Metric names say when a CPU figure holds PostgreSQL's backends too. */
const both = (kind: 'sqlite' | 'postgres') => (kind === 'postgres' ? ' (service + its backends)' : '');

export const handoffBenchmark: Benchmark = {
  name: 'handoff',
  description: 'REST orders at 1,000/s: p99 from the REST acknowledgement to the webhook received and to the event read from the feed; REST throughput and CPU per order with the outbox on and off; SQLite and PostgreSQL',
  byDefault: true,
  async run(ctx): Promise<BenchResult> {
    const kinds: ('sqlite' | 'postgres')[] = ['sqlite'];
    const notes: string[] = [];
    const why = await pgUnreachable(pgBaseUrl());
    if (why) notes.push(`PostgreSQL skipped: ${why}`);
    else kinds.push('postgres');
    const metrics: Metric[] = [];
    const details: unknown[] = [];
    for (const kind of kinds) {
      const m = {
        webhook: { name: `${kind}: ack → webhook p99`, unit: 'ms', better: 'lower' as const, samples: [] as number[], target: { value: 1000, op: '<=' as const } },
        webhook50: { name: `${kind}: ack → webhook p50`, unit: 'ms', better: 'lower' as const, samples: [] as number[] },
        feed: { name: `${kind}: ack → event readable p99`, unit: 'ms', better: 'lower' as const, samples: [] as number[], target: { value: 1000, op: '<=' as const } },
        lost: { name: `${kind}: acknowledged, not delivered`, unit: 'orders', better: 'lower' as const, samples: [] as number[] },
        on: { name: `${kind}: REST closed loop, outbox on`, unit: 'orders/s', better: 'higher' as const, samples: [] as number[] },
        off: { name: `${kind}: REST closed loop, outbox off`, unit: 'orders/s', better: 'higher' as const, samples: [] as number[] },
        cost: { name: `${kind}: outbox cost (1 − on/off)`, unit: '%', better: 'lower' as const, samples: [] as number[], target: { value: 10, op: '<=' as const } },
        fullOn: { name: `${kind}: CPU per order at full load, outbox on${both(kind)}`, unit: 'ms', better: 'lower' as const, samples: [] as number[] },
        fullOff: { name: `${kind}: CPU per order at full load, outbox off${both(kind)}`, unit: 'ms', better: 'lower' as const, samples: [] as number[] },
        rateOn: { name: `${kind}: CPU per order at ${RATE}/s, outbox on${both(kind)}`, unit: 'ms', better: 'lower' as const, samples: [] as number[] },
        rateOff: { name: `${kind}: CPU per order at ${RATE}/s, outbox off${both(kind)}`, unit: 'ms', better: 'lower' as const, samples: [] as number[] },
        extra: { name: `${kind}: outbox's extra CPU per order at ${RATE}/s (on − off)`, unit: 'µs', better: 'lower' as const, samples: [] as number[] },
        cpuCost: { name: `${kind}: outbox CPU cost (on − off at ${RATE}/s, of off at full load)`, unit: '%', better: 'lower' as const, samples: [] as number[], target: { value: 10, op: '<=' as const } },
      };
      const dbShare = { on: [] as number[], off: [] as number[] };
      for (let run = 1; run <= ctx.runs; run++) {
        ctx.progress(`handoff ${kind} run ${run}/${ctx.runs}: ${RATE}/s for ${leadSec(ctx)}+${ctx.durationSec} s`);
        const f = await oneRun(kind, ctx, run);
        m.webhook.samples.push(f.webhook.p99);
        m.webhook50.samples.push(f.webhook.p50);
        m.feed.samples.push(f.feed.p99);
        m.lost.samples.push(f.acked - f.delivered);
        details.push({ kind, run, ...f });
        if (f.acked < f.sent) notes.push(`${kind} run ${run}: ${f.sent - f.acked} of ${f.sent} requests not acknowledged with 201 (answers: ${JSON.stringify(f.statuses)}; at the rate, ${f.sent} were sent in ${ctx.durationSec} s)`);
        notes.push(`${kind} run ${run}: REST answered ${f.answeredPerSec.toFixed(0)} orders/s on average (sending ${RATE}/s)`);
        if (f.serviceLog) notes.push(`${kind} run ${run}: the service's last lines: ${f.serviceLog.join(' | ').slice(0, 1500)}`);
        notes.push(`${kind} run ${run}: the feed returned ${f.feedBeforeAck} of ${f.feed.count} events before the client had read the order's 201 (counted as 0)`);
        // Outbox on and off back to back, the order alternating, so drift in the machine's load favours neither.
        ctx.progress(`handoff ${kind} run ${run}/${ctx.runs}: REST throughput and CPU, outbox on and off (${ctx.concurrency} in flight)`);
        const order = run % 2 === 1 ? [true, false] : [false, true];
        const c: Partial<Record<'on' | 'off', CostFigures>> = {};
        for (const on of order) c[on ? 'on' : 'off'] = await cost(kind, ctx, run, on);
        const on = c.on!;
        const off = c.off!;
        m.on.samples.push(on.okPerSec);
        m.off.samples.push(off.okPerSec);
        m.cost.samples.push(100 * (1 - on.okPerSec / off.okPerSec));
        m.fullOn.samples.push(on.fullCpuMs);
        m.fullOff.samples.push(off.fullCpuMs);
        m.rateOn.samples.push(on.rateCpuMs);
        m.rateOff.samples.push(off.rateCpuMs);
        m.extra.samples.push(1000 * (on.rateCpuMs - off.rateCpuMs));
        m.cpuCost.samples.push((100 * (on.rateCpuMs - off.rateCpuMs)) / off.fullCpuMs);
        dbShare.on.push(on.rateDbCpuMs);
        dbShare.off.push(off.rateDbCpuMs);
        details.push({ kind, run, outboxOn: on, outboxOff: off });
        for (const [side, x] of [['on', on], ['off', off]] as const) {
          if (x.rateFailed > 0) notes.push(`${kind} run ${run}, outbox ${side}: ${x.rateFailed} of ${x.rateOrders} orders at ${RATE}/s not answered 201 or not sent: its CPU figure is of a service that did not carry the rate`);
        }
      }
      metrics.push(m.webhook, m.webhook50, m.feed, m.lost, m.on, m.off, m.cost, m.fullOn, m.fullOff, m.rateOn, m.rateOff, m.extra, m.cpuCost);
      if (kind === 'postgres') {
        const fmt = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(' / ');
        notes.push(`postgres: of the CPU per order at ${RATE}/s, the service's backends' part per run: outbox on ${fmt(dbShare.on)} ms, off ${fmt(dbShare.off)} ms`);
      }
    }
    notes.push('Outbox cost: per run, closed-loop REST on a fresh service with the outbox on and with INTAKE_OUTBOX=off, back to back; '
      + `the throughput cost is 1 − on/off of that run. CPU per order: the service's process (every thread) and on PostgreSQL the backends serving it, `
      + `sampled through that drive (full load) and through a drive of each service at ${RATE}/s open loop; the CPU cost is the outbox's extra CPU per order `
      + 'at that one rate (on − off) as a share of the CPU per order at full load with the outbox off, which is what bounds the throughput.');
    notes.push('The dispatcher is woken by the intake when it commits events (and on PostgreSQL by the other instances through LISTEN/NOTIFY); INTAKE_HANDOFF_POLL_MS (200 ms) is only the fallback.');
    return {
      settings: { rate: RATE, orderLines: 3, warmupSec: ctx.warmupSec, serviceWarmupSec: ctx.serviceWarmupSec, durationSec: ctx.durationSec, runs: ctx.runs, concurrency: ctx.concurrency, feedWaitSec: 2 },
      durability: 'as the rest benchmarks: acknowledged after the outcome commit is durable; webhook bookkeeping committed without waiting for the disk (a crash repeats deliveries, never loses them)',
      metrics, notes, details,
    };
  },
};
