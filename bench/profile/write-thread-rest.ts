/**
 * The SQLite write thread's CPU per REST order, without HTTP: the intake path itself (`intake.submit` of a 3-line
 * JSON order, as the REST route calls it) with IN_FLIGHT calls in flight on a store with its write thread, and that
 * thread's CPU (its /proc task, the busiest thread besides the main one) divided by the orders. The write thread is
 * what bounds REST on SQLite; this measure leaves out the load generator and fastify, so it holds on a loaded machine
 * better than cpu-per-order.ts, and it runs in a few seconds.
 *
 *   node --import tsx bench/profile/write-thread-rest.ts [--root OTHER_CHECKOUT] [--orders 20000] [--runs 3]
 *        [--in-flight 32]
 *
 * With --cpu-prof (node's flag, before the script) the thread's profile is written too. Prints one JSON line per run
 * (write thread and main thread ms per order, orders/s, commits per order), then the medians.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readdirSync, readFileSync } from 'node:fs';
import { jsonOrder } from '../lib/orders.ts';
import { ROOT } from '../lib/children.ts';

const { values: opt } = parseArgs({
  options: {
    root: { type: 'string', default: ROOT },
    orders: { type: 'string', default: '20000' },
    warmup: { type: 'string', default: '3000' },
    runs: { type: 'string', default: '3' },
    'in-flight': { type: 'string', default: '32' },
  },
});
const root = path.resolve(opt.root);
// The code measured is that of --root (another worktree gives the "before" with the same driver).
const { openSqliteStore } = await import(path.join(root, 'src/store/sqlite/store.ts')) as typeof import('../../src/store/sqlite/store.ts');
const { seedDemoIfEmpty } = await import(path.join(root, 'src/seed/demo.ts')) as typeof import('../../src/seed/demo.ts');
const { createIntake } = await import(path.join(root, 'src/intake/intake.ts')) as typeof import('../../src/intake/intake.ts');
const { createLogger } = await import(path.join(root, 'src/log.ts')) as typeof import('../../src/log.ts');

/** utime and stime (ms) of each thread of this process, from /proc (ticks of 1/100 s). */
function threads(): Map<number, { user: number; sys: number }> {
  const out = new Map<number, { user: number; sys: number }>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(Number(tid), { user: Number(f[11]) * 10, sys: Number(f[12]) * 10 });
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function drive(intake: ReturnType<typeof createIntake>, principal: { customerId: string; customerCode: string },
  prefix: string, n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const { outcome } = await intake.submit({
        principal, channel: 'rest', mediaType: 'application/json', charset: undefined,
        raw: Buffer.from(jsonOrder(`${prefix}-${i}`, 3)), meta: { remote: '127.0.0.1', requestId: String(i) }, singleOrder: true,
      } as never);
      if (outcome.esito !== 'ok') throw new Error(`order ${i}: ${JSON.stringify(outcome)}`);
    }
  };
  await Promise.all(Array.from({ length: Number(opt['in-flight']) }, worker));
}

const rows: Record<string, number>[] = [];
for (let run = 0; run < Number(opt.runs); run++) {
  const dir = mkdtempSync(path.join(tmpdir(), 'write-thread-rest-'));
  const store = await openSqliteStore(path.join(dir, 'intake.sqlite'));
  try {
    await store.migrate();
    const demo = (await seedDemoIfEmpty(store, 'bench.test'))!;
    const principal = { customerId: demo.customer.id, customerCode: demo.customer.code };
    const intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent') });
    await drive(intake, principal, `W${run}`, Number(opt.warmup));
    const t0 = threads();
    const started = performance.now();
    const n = Number(opt.orders);
    await drive(intake, principal, `M${run}`, n);
    const secs = (performance.now() - started) / 1000;
    let main = 0;
    let busiest = { user: 0, sys: 0 };
    for (const [tid, t] of threads()) {
      const was = t0.get(tid) ?? { user: 0, sys: 0 };
      const d = { user: t.user - was.user, sys: t.sys - was.sys };
      if (tid === process.pid) main = d.user + d.sys;
      else if (d.user + d.sys > busiest.user + busiest.sys) busiest = d;
    }
    const row = {
      writeThreadMsPerOrder: Number(((busiest.user + busiest.sys) / n).toFixed(4)),
      writeThreadSysMsPerOrder: Number((busiest.sys / n).toFixed(4)),
      mainThreadMsPerOrder: Number((main / n).toFixed(4)),
      ordersPerSec: Math.round(n / secs),
    };
    rows.push(row);
    console.log(JSON.stringify({ run, ...row }));
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
const out: Record<string, string> = {};
for (const k of Object.keys(rows[0] ?? {})) {
  const xs = rows.map((r) => r[k]!);
  out[k] = `${median(xs)} (${Math.min(...xs)}–${Math.max(...xs)})`;
}
console.log(`median ${JSON.stringify({ root, ...out })}`);
process.exit(0);
