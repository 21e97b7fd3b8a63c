/**
 * Recovery: how long after a `kill -9` every acknowledged submission is judged (issue 21). Per run, a service (its
 * own process, fresh database) is given a burst of asynchronous work it acknowledges at once and judges afterwards:
 * REST orders with `Prefer: respond-async` and order mails over SMTP (250 after DATA), each order of ORDER_LINES
 * lines so that judging takes a while, and changes (`azione: modifica`, also asynchronous) of CHANGES orders
 * registered just before the burst. As soon as the last acknowledgement is in, the service is killed with SIGKILL.
 *
 * - `recovery` (SQLite, one process): the service is started again on the same file; measured: kill → serving again
 *   (the process start), serving → every acknowledged order registered, and kill → all of it.
 * - `recovery-pg` (PostgreSQL): a second instance runs on the same schema all along; measured: kill → every
 *   acknowledged order registered by the survivor, with the default lease (30 s) and sweep (5 s). Before issue 21 this
 *   waited for the dead instance's leases: 30 s for submissions, 300 s for e-mail.
 *
 * After each run the database is checked: every acknowledged order registered exactly once, every acknowledged change
 * applied exactly once (version 2, one superseded version kept), nothing left received.
 * The clients (fetch, nodemailer) run in the benchmark process: what is measured is the service's takeover, which
 * starts after they are done.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { jsonOrder } from '../lib/orders.ts';
import { createSchema, dropSchema, newSchemaName, pgBaseUrl, pgUnreachable, schemaUrl } from '../lib/pg.ts';
import { startService, type RunningService } from '../lib/service.ts';
import type { Benchmark, BenchContext, Metric } from '../lib/types.ts';

/** The burst: enough heavy work that the service dies holding a good part of it, small enough to be judged in seconds. */
const REST_ORDERS = 40;
const MAILS = 10;
const ORDER_LINES = 1000;
/** Orders registered before the burst, each changed once by an asynchronous `azione: modifica` within it. */
const CHANGES = 10;
/** Longest wait for the takeover before the run counts as failed (the old e-mail lease was 300 s). */
const RECOVERY_TIMEOUT_MS = 400_000;
const POLL_MS = 50;
/** The promise of issue 21. */
const TARGET_S = 10;

type Query = (sql: string) => Promise<number>;

interface Store {
  count: Query;
  close(): Promise<void>;
}

function sqliteCounter(dataDir: string): Store {
  const file = path.join(dataDir, 'intake.sqlite');
  return {
    async count(sql) {
      const db = new Database(file, { readonly: true });
      try {
        return Number((db.prepare(sql).get() as { n: number }).n);
      } finally {
        db.close();
      }
    },
    async close() {},
  };
}

async function pgCounter(url: string): Promise<Store> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await c.connect();
  return {
    count: async (sql) => Number((await c.query<{ n: string }>(sql)).rows[0]?.n ?? 0),
    close: () => c.end(),
  };
}

/** Registers the orders the burst changes (answered only once registered); resolves with their references. */
async function toChange(s: RunningService, apiKey: string, prefix: string): Promise<string[]> {
  const http = `http://127.0.0.1:${s.ports.http!}/api/v1/ordini`;
  return Promise.all(Array.from({ length: CHANGES }, async (_, k) => {
    const ref = `${prefix}-c${k}`;
    const res = await fetch(http, { method: 'POST', body: jsonOrder(ref, 1), headers: { 'content-type': 'application/json', 'x-api-key': apiKey } });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`order ${ref} to change was answered ${res.status}`);
    return ref;
  }));
}

/** The burst to `s`; resolves with the references whose hand-over was acknowledged (changes: `changed`). */
async function burst(s: RunningService, apiKey: string, mailbox: string, prefix: string, changing: readonly string[] = []): Promise<{ refs: string[]; changed: string[] }> {
  const http = `http://127.0.0.1:${s.ports.http!}/api/v1/ordini`;
  const changes = changing.map(async (ref) => {
    const res = await fetch(http, {
      method: 'POST', body: `${jsonOrder(ref, ORDER_LINES).slice(0, -1)},"azione":"modifica"}`, signal: AbortSignal.timeout(60_000),
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, prefer: 'respond-async' },
    });
    await res.arrayBuffer();
    return res.status === 202 ? [ref] : [];
  });
  const rest = Array.from({ length: REST_ORDERS }, async (_, k) => {
    const ref = `${prefix}-r${k}`;
    const res = await fetch(http, {
      method: 'POST', body: jsonOrder(ref, ORDER_LINES), signal: AbortSignal.timeout(60_000),
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, prefer: 'respond-async' },
    });
    await res.arrayBuffer();
    return res.status === 202 ? [ref] : [];
  });
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: s.ports.smtp!, secure: false, ignoreTLS: true, pool: true, maxConnections: 4 });
  const mail = Array.from({ length: MAILS }, async (_, k) => {
    const ref = `${prefix}-m${k}`;
    const info = await transport.sendMail({
      from: 'acquisti@cliente.example', to: mailbox, subject: `Ordine ${ref}`, text: 'In allegato.',
      attachments: [{ filename: `${ref}.json`, content: jsonOrder(ref, ORDER_LINES) }],
    });
    return /^250\b/.test(info.response) ? [ref] : [];
  });
  try {
    const acked = (await Promise.all([...rest, ...mail])).flat();
    const changed = (await Promise.all(changes)).flat();
    // All of it, or the figures would time a smaller burst (and the count below could not tell a lost order).
    if (acked.length !== REST_ORDERS + MAILS) throw new Error(`only ${acked.length} of ${REST_ORDERS + MAILS} hand-overs were acknowledged`);
    if (changed.length !== changing.length) throw new Error(`only ${changed.length} of ${changing.length} changes were acknowledged`);
    return { refs: [...changing, ...acked], changed };
  } finally {
    transport.close();
  }
}

/** Polls until every acknowledged order is registered and nothing is left received; resolves with the time (epoch ms). */
async function allJudged(store: Store, refs: readonly string[], schema: string, changed: number): Promise<number> {
  const t = (name: string) => (schema ? `${schema}.${name}` : name);
  const deadline = Date.now() + RECOVERY_TIMEOUT_MS;
  for (;;) {
    const registered = await store.count(`SELECT count(DISTINCT riferimento_ordine) AS n FROM ${t('orders')}`);
    const versions = await store.count(`SELECT count(*) AS n FROM ${t('orders')} WHERE versione >= 2`);
    if (registered >= refs.length && versions >= changed) {
      const left = await store.count(`SELECT (SELECT count(*) FROM ${t('submissions')} WHERE state = 'received')
        + (SELECT count(*) FROM ${t('mail_messages')} WHERE state = 'received') AS n`);
      if (left === 0) return Date.now();
    }
    if (Date.now() > deadline) throw new Error(`not every acknowledged order was registered within ${RECOVERY_TIMEOUT_MS} ms (${registered}/${refs.length})`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** What the dead process left: submissions not judged and messages not derived. */
async function leftOver(store: Store, schema: string): Promise<{ submissions: number; messages: number }> {
  const t = (name: string) => (schema ? `${schema}.${name}` : name);
  return {
    submissions: await store.count(`SELECT count(*) AS n FROM ${t('submissions')} WHERE state = 'received'`),
    messages: await store.count(`SELECT count(*) AS n FROM ${t('mail_messages')} WHERE state = 'received'`),
  };
}

/** Every acknowledged order registered exactly once, every acknowledged change applied once (nothing lost, nothing twice). */
async function check(store: Store, refs: readonly string[], schema: string, changed: number): Promise<void> {
  const t = (name: string) => (schema ? `${schema}.${name}` : name);
  const orders = await store.count(`SELECT count(*) AS n FROM ${t('orders')}`);
  const distinct = await store.count(`SELECT count(DISTINCT riferimento_ordine) AS n FROM ${t('orders')}`);
  if (orders !== distinct) throw new Error(`${orders - distinct} orders registered twice`);
  if (distinct < refs.length) throw new Error(`${refs.length - distinct} acknowledged orders lost`);
  const atTwo = await store.count(`SELECT count(*) AS n FROM ${t('orders')} WHERE versione = 2`);
  const kept = await store.count(`SELECT count(*) AS n FROM ${t('order_versions')}`);
  if (atTwo !== changed || kept !== changed) throw new Error(`${changed} acknowledged changes, but ${atTwo} orders at version 2 and ${kept} versions kept`);
}

function metric(name: string, samples: number[], target?: Metric['target']): Metric {
  return { name, unit: 's', better: 'lower', samples, target };
}

const SETTINGS = { rest_async_orders: REST_ORDERS, mails: MAILS, async_changes: CHANGES, lines_per_order: ORDER_LINES, lease_ms: 30_000, sweep_ms: 5_000 };
const SERVICE_ENV = { INTAKE_SMTP_PORT: '0', INTAKE_CLAIM_LEASE_MS: '30000', INTAKE_SWEEP_INTERVAL_MS: '5000' };

function demoMailboxFrom(s: RunningService): string {
  for (const line of s.recentLines()) {
    const m = /^\s*mailbox:\s+(\S+@\S+)/.exec(line);
    if (m) return m[1]!;
  }
  throw new Error('the service printed no demo mailbox');
}

export const recoveryBenchmark: Benchmark = {
  name: 'recovery',
  description: 'SQLite: kill -9 under a burst of async REST and SMTP work, restart: seconds until every acknowledged order is registered',
  byDefault: true,
  async run(ctx: BenchContext) {
    const restart: number[] = [];
    const judged: number[] = [];
    const total: number[] = [];
    const details: unknown[] = [];
    for (let run = 1; run <= ctx.runs; run++) {
      const dataDir = path.join(ctx.tmpDir, `service-${run}`);
      mkdirSync(dataDir, { recursive: true });
      const store = sqliteCounter(dataDir);
      let s: RunningService | undefined = await startService({ dataDir, waitForPorts: ['smtp'], env: SERVICE_ENV });
      try {
        ctx.progress(`recovery run ${run}/${ctx.runs}: burst of ${REST_ORDERS} async REST orders and ${MAILS} mails, then SIGKILL`);
        const prefix = `K${randomBytes(3).toString('hex')}`;
        const { refs, changed } = await burst(s, s.apiKey, demoMailboxFrom(s), prefix, await toChange(s, s.apiKey, prefix));
        const killedAt = Date.now();
        s.proc.kill('SIGKILL');
        await new Promise((r) => s!.proc.once('exit', r));
        const left = await leftOver(store, '');
        s = await startService({ dataDir, waitForPorts: ['smtp'], env: SERVICE_ENV, requireApiKey: false });
        const servingAt = Date.now();
        const doneAt = await allJudged(store, refs, '', changed.length);
        await check(store, refs, '', changed.length);
        restart.push((servingAt - killedAt) / 1000);
        judged.push((doneAt - servingAt) / 1000);
        total.push((doneAt - killedAt) / 1000);
        details.push({ run, acknowledged: refs.length, leftAtKill: left, restartS: restart.at(-1), judgedS: judged.at(-1) });
      } finally {
        await s?.stop();
        await store.close();
      }
    }
    return {
      settings: { ...SETTINGS, store: 'sqlite' },
      durability: 'SQLite WAL synchronous=FULL: every acknowledgement durable before it was sent',
      metrics: [
        metric('kill → serving again (process start)', restart),
        metric('serving → every acknowledged order registered', judged, { value: TARGET_S, op: '<=' }),
        metric('kill → every acknowledged order registered', total),
      ],
      notes: [`left by the killed process (submissions not judged / messages not derived), per run: ${details.map((d) => {
        const l = (d as { leftAtKill: { submissions: number; messages: number } }).leftAtKill;
        return `${l.submissions}/${l.messages}`;
      }).join(', ')}`, 'every run: every acknowledged order registered exactly once, every acknowledged change applied once, nothing left received'],
      details,
    };
  },
};

export const recoveryPgBenchmark: Benchmark = {
  name: 'recovery-pg',
  description: 'PostgreSQL, two instances: kill -9 one under a burst of async REST and SMTP work: seconds until the other has registered every acknowledged order',
  byDefault: true,
  async run(ctx: BenchContext) {
    const base = pgBaseUrl();
    const why = await pgUnreachable(base);
    if (why) return { settings: { url: base }, durability: 'n/a', metrics: [], notes: [], skipped: `PostgreSQL at ${base} is unreachable (${why})` };
    const takeover: number[] = [];
    const details: unknown[] = [];
    for (let run = 1; run <= ctx.runs; run++) {
      const schema = newSchemaName();
      await createSchema(base, schema);
      const store = await pgCounter(base);
      const services: RunningService[] = [];
      try {
        const env = { ...SERVICE_ENV, INTAKE_DATABASE_URL: schemaUrl(base, schema) };
        const dir = (n: string) => {
          const d = path.join(ctx.tmpDir, `${n}-${run}`);
          mkdirSync(d, { recursive: true });
          return d;
        };
        // The survivor seeds the empty schema (and prints the demo credentials); the victim joins it.
        const survivor = await startService({ dataDir: dir('survivor'), waitForPorts: ['smtp'], env });
        services.push(survivor);
        const victim = await startService({ dataDir: dir('victim'), waitForPorts: ['smtp'], env, requireApiKey: false });
        services.push(victim);
        ctx.progress(`recovery-pg run ${run}/${ctx.runs}: burst of ${REST_ORDERS} async REST orders and ${MAILS} mails to one of two instances, then SIGKILL`);
        const prefix = `K${randomBytes(3).toString('hex')}`;
        const { refs, changed } = await burst(victim, survivor.apiKey, demoMailboxFrom(survivor), prefix, await toChange(victim, survivor.apiKey, prefix));
        const killedAt = Date.now();
        victim.proc.kill('SIGKILL');
        await new Promise((r) => victim.proc.once('exit', r));
        const left = await leftOver(store, schema);
        const doneAt = await allJudged(store, refs, schema, changed.length);
        await check(store, refs, schema, changed.length);
        takeover.push((doneAt - killedAt) / 1000);
        details.push({ run, acknowledged: refs.length, leftAtKill: left, takeoverS: takeover.at(-1) });
      } finally {
        for (const s of services) await s.stop();
        await store.close();
        await dropSchema(base, schema);
      }
    }
    return {
      settings: { ...SETTINGS, store: 'postgres', instances: 2, url: base },
      durability: 'PostgreSQL (server settings: see rest-pg): every acknowledgement committed before it was sent',
      metrics: [metric('kill → every acknowledged order registered by the survivor', takeover, { value: TARGET_S, op: '<=' })],
      notes: [`left by the killed instance (submissions not judged / messages not derived), per run: ${details.map((d) => {
        const l = (d as { leftAtKill: { submissions: number; messages: number } }).leftAtKill;
        return `${l.submissions}/${l.messages}`;
      }).join(', ')}`, 'every run: every acknowledged order registered exactly once, every acknowledged change applied once, nothing left received'],
      details,
    };
  },
};
