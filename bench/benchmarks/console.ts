/**
 * Console lists with 1,000,000 submissions (and ~900,000 orders) in a SQLite store: the time to answer the
 * submissions and orders list pages (first page, a customer's, the refused ones, a page deep in the keyset, a
 * reference search), measured as the round trip of one request at a time from this process to the service on
 * localhost (the rendering and the query; no network). Target from issue 18: p95 ≤ 100 ms.
 * Not part of the default run: filling the store takes minutes. `npm run bench -- console`.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { startService } from '../../src/main.ts';
import { addOperator } from '../../src/operators/accounts.ts';
import { fillStore } from '../console/fill.ts';
import { latencySummary, quantileSorted } from '../lib/stats.ts';
import type { Benchmark, BenchContext, Metric } from '../lib/types.ts';

const ROWS = Number(process.env.BENCH_CONSOLE_ROWS ?? 1_000_000);
/** Requests per page variant per run: enough for a p95, few enough that a run takes seconds. */
const REQUESTS = 100;

class Session {
  private cookies = new Map<string, string>();
  constructor(private readonly base: string) {}
  async get(url: string): Promise<{ status: number; body: string }> {
    const res = await request(`${this.base}${url}`, { headers: { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
    this.keep(res.headers['set-cookie']);
    return { status: res.statusCode, body: await res.body.text() };
  }
  async post(url: string, form: Record<string, string>): Promise<number> {
    const res = await request(`${this.base}${url}`, {
      method: 'POST', body: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    this.keep(res.headers['set-cookie']);
    await res.body.dump();
    return res.statusCode;
  }
  private keep(set: string | string[] | undefined): void {
    for (const c of Array.isArray(set) ? set : set ? [set] : []) {
      const pair = c.split(';')[0]!;
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
}

async function timePage(s: Session, url: string): Promise<Float64Array> {
  const samples = new Float64Array(REQUESTS);
  for (let i = 0; i < REQUESTS; i++) {
    const t0 = performance.now();
    const r = await s.get(url);
    samples[i] = performance.now() - t0;
    if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
  }
  return samples;
}

export const consoleBenchmark: Benchmark = {
  name: 'console',
  description: `console submissions and orders list pages with ${ROWS.toLocaleString('en-US')} submissions (SQLite), p95 per page`,
  byDefault: false,
  async run(ctx: BenchContext) {
    const dataDir = path.join(ctx.tmpDir, 'data');
    const file = path.join(dataDir, 'intake.sqlite');
    ctx.progress(`console: filling ${file}`);
    const t0 = performance.now();
    await fillStore(file, ROWS, ctx.progress);
    const fillSec = (performance.now() - t0) / 1000;
    const config = loadConfig({
      INTAKE_DATA_DIR: dataDir, INTAKE_HOST: '127.0.0.1', INTAKE_HTTP_PORT: '0', INTAKE_SFTP_PORT: 'off', INTAKE_FTP_PORT: 'off',
      INTAKE_SMTP_PORT: 'off', INTAKE_LOG_LEVEL: 'warn',
    });
    const service = await startService(config, createLogger(config.logLevel));
    try {
      const { password } = await addOperator(service.store, { email: 'bench@example.com', role: 'viewer' });
      const s = new Session(`http://127.0.0.1:${service.ports.http}`);
      const login = await s.get('/console/login');
      const _csrf = /name="_csrf" value="([^"]+)"/.exec(login.body)![1]!;
      if (await s.post('/console/login', { _csrf, user: 'bench@example.com', password }) !== 303) throw new Error('bench login failed');
      // A cursor half way down the list: keyset pages must cost there what they cost on the first page.
      const mid = new Date(Date.parse('2026-08-17T00:00:00Z') + 50 * 86_400_000).toISOString();
      const deep = `${mid}_ffffffff-ffff-7fff-bfff-ffffffffffff`;
      const pages = {
        submissions: ['/console/invii', '/console/invii?cliente=B007', '/console/invii?esito=errore', `/console/invii?dopo=${encodeURIComponent(deep)}`,
          '/console/invii?rif=REF-123456', '/console/invii?canale=sftp&dal=2026-10-01&al=2026-10-15'],
        orders: ['/console/ordini', '/console/ordini?cliente=B011', `/console/ordini?dopo=${encodeURIComponent(deep)}`, '/console/ordini?rif=REF-654321'],
      };
      const metrics: Metric[] = [];
      const details: unknown[] = [];
      for (const [list, urls] of Object.entries(pages)) {
        const slowest: number[] = [];
        for (let run = 0; run < ctx.runs; run++) {
          const p95s: number[] = [];
          for (const url of urls) {
            const samples = await timePage(s, url);
            const p95 = quantileSorted(Float64Array.from(samples).sort(), 0.95);
            p95s.push(p95);
            details.push({ run, url, p95, ...latencySummary(samples) });
          }
          slowest.push(Math.max(...p95s));
          ctx.progress(`console: ${list} run ${run + 1}: slowest page p95 ${Math.max(...p95s).toFixed(1)} ms`);
        }
        metrics.push({ name: `${list} list, slowest page p95`, unit: 'ms', better: 'lower', samples: slowest, target: { value: 100, op: '<=' } });
      }
      return {
        settings: { rows: ROWS, requestsPerPage: REQUESTS, store: 'sqlite', pages, fillSeconds: Math.round(fillSec) },
        durability: 'reads only (the store was filled with synchronous=OFF before the service started)',
        metrics,
        notes: [
          'Round trip of one request at a time on localhost: query + rendering + HTTP, no network.',
          'Each run times every page variant; the figure is the p95 of the slowest variant.',
        ],
        details,
      };
    } finally {
      await service.stop();
    }
  },
};
