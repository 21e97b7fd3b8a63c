/**
 * CPU per order of the service with the outbox on and off (INTAKE_OUTBOX=off), by thread: a fixed number of REST
 * orders, closed loop, into a fresh service each time; the service's threads' CPU (from /proc) divided by the
 * orders. Deterministic enough on a busy machine (CPU time, not throughput), which is why the outbox's cost is
 * measured this way first. `node --import tsx bench/profile/outbox-cpu.ts [orders] [concurrency] [pairs]`
 */
import http from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startService } from '../lib/service.ts';
import { jsonOrder } from '../lib/orders.ts';

const TICK_MS = 10;
const KEY = Buffer.alloc(32, 3).toString('base64');

function threads(pid: number): Map<string, { comm: string; ms: number }> {
  const out = new Map<string, { comm: string; ms: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const comm = stat.slice(stat.indexOf('(') + 1, close);
      const f = stat.slice(close + 2).split(' ');
      out.set(tid, { comm: tid === String(pid) ? 'main' : comm, ms: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch { /* gone */ }
  }
  return out;
}

function ioBytes(pid: number): number {
  const m = /write_bytes: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

async function drive(port: number, apiKey: string, n: number, concurrency: number, prefix: string): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  let ok = 0;
  const one = () => new Promise<void>((resolve, reject) => {
    const body = jsonOrder(`${prefix}-${next++}`, 3);
    const req = http.request({ host: '127.0.0.1', port, path: '/api/v1/ordini', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => { if (res.statusCode === 201) ok++; resolve(); });
    });
    req.on('error', reject);
    req.end(body);
  });
  await Promise.all(Array.from({ length: concurrency }, async () => { while (next < n) await one(); }));
  agent.destroy();
  return ok;
}

async function measure(outbox: boolean, n: number, concurrency: number): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'outbox-cpu-'));
  const service = await startService({ dataDir, ...(process.env.PROF_DIR ? { cpuProfDir: path.join(process.env.PROF_DIR, outbox ? 'on' : 'off') } : {}), env: { INTAKE_SECRET_KEY: KEY, ...(outbox ? {} : { INTAKE_OUTBOX: 'off' }) } });
  try {
    const pid = service.proc.pid!;
    // Warm-up: JIT, statement caches, the write thread started.
    await drive(service.ports.http!, service.apiKey, 500, concurrency, `W${randomBytes(3).toString('hex')}`);
    await new Promise((r) => setTimeout(r, 300));
    const before = threads(pid);
    const io0 = ioBytes(pid);
    const t0 = performance.now();
    const ok = await drive(service.ports.http!, service.apiKey, n, concurrency, `M${randomBytes(3).toString('hex')}`);
    const wall = performance.now() - t0;
    const after = threads(pid);
    const io1 = ioBytes(pid);
    const by: Record<string, number> = {};
    let total = 0;
    for (const [tid, a] of after) {
      const d = a.ms - (before.get(tid)?.ms ?? 0);
      total += d;
      const k = a.comm === 'main' ? 'main' : `${a.comm}#${tid}`;
      if (d > 0) by[k] = d;
    }
    // The busiest non-main thread of a SQLite service is the write thread.
    const others = Object.entries(by).filter(([k]) => k !== 'main').sort((x, y) => y[1] - x[1]);
    return {
      ok, ordersPerSec: Math.round(ok / (wall / 1000)),
      totalUsPerOrder: Math.round((total * 1000) / ok), mainUsPerOrder: Math.round(((by.main ?? 0) * 1000) / ok),
      busiestOtherUsPerOrder: Math.round(((others[0]?.[1] ?? 0) * 1000) / ok), restUsPerOrder: Math.round((others.slice(1).reduce((s, [, v]) => s + v, 0) * 1000) / ok),
      diskBytesPerOrder: Math.round((io1 - io0) / ok),
    };
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const n = Number(process.argv[2] ?? 5000);
const concurrency = Number(process.argv[3] ?? 32);
const pairs = Number(process.argv[4] ?? 2);
for (let i = 0; i < pairs; i++) {
  for (const on of i % 2 === 0 ? [true, false] : [false, true]) {
    const r = await measure(on, n, concurrency);
    console.log(JSON.stringify({ outbox: on ? 'on' : 'off', load: loadavg()[0]!.toFixed(1), ...r }));
  }
}
