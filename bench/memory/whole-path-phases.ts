/**
 * Where the memory of one large file goes on the whole intake path (issue 19 item 11): the file handed over as the
 * file channels do (Submission.rawFile: a local file the store and judging read in pieces; with --buffer read as
 * one Buffer, as before, and as a --root checkout older than rawFile needs), intake.submit on a fresh SQLite store
 * (or PostgreSQL with --pg URL), and the process's peak RSS read after each
 * store step (`process.resourceUsage().maxRSS`), plus RSS and heap sampled every 20 ms per phase. Not a timed test.
 *
 *   node --import tsx bench/memory/whole-path-phases.ts --file big.csv [--root OTHER_CHECKOUT] [--pg URL] [--buffer]
 *
 * --dist runs the checkout's compiled dist/ (`npm run build`), the code `order-intake serve` runs. Under tsx the
 * process at rest is some 45 MiB larger than the service's own (tsx's loader thread, and every module compiled by
 * esbuild with its source map): to leave tsx out, turn this file into JavaScript first, e.g.
 *   npx esbuild bench/memory/whole-path-phases.ts --outfile=/tmp/phases.mjs --format=esm --platform=node
 *   node /tmp/phases.mjs --dist --root . --file big.csv
 *
 * The file must hold orders of the demo customer (DEMO) and catalogue, e.g. the decoders benchmark's 1,000,000-line
 * CSV (bench/lib/orders.ts csvRows). --root runs another checkout's src/ (the code before a change, same machine).
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { file: { type: 'string' }, root: { type: 'string' }, pg: { type: 'string' }, buffer: { type: 'boolean' }, dist: { type: 'boolean' } },
});
if (!values.file) throw new Error('--file FILE');
const ROOT = path.resolve(values.root ?? path.join(import.meta.dirname, '../..'));
/** A module of the checkout: its source, or with --dist its compiled form. */
const module = (name: string) => (values.dist ? path.join(ROOT, 'dist', `${name}.js`) : path.join(ROOT, 'src', `${name}.ts`));
const { createIntake } = await import(module('intake/intake')) as typeof import('../../src/intake/intake.ts');
const { createLogger } = await import(module('log')) as typeof import('../../src/log.ts');
const { seedDemoIfEmpty } = await import(module('seed/demo')) as typeof import('../../src/seed/demo.ts');
const { openStore } = await import(module('store/open')) as typeof import('../../src/store/open.ts');

// The heap growth the service sets (src/heap-growth.ts), when the checkout has it.
const heap = await import(module('heap-growth')).catch(() => undefined) as typeof import('../../src/heap-growth.ts') | undefined;
heap?.limitHeapGrowth();

const mib = (n: number) => Math.round(n / 2 ** 20);
let phase = 'start';
const peaks: Record<string, { rss: number; heap: number; external: number }> = {};
const highWater: string[] = [];
const mark = (label: string) => highWater.push(`${label} ${mib(process.resourceUsage().maxRSS * 1024)} MiB`);
function sample(): void {
  const m = process.memoryUsage();
  const p = (peaks[phase] ??= { rss: 0, heap: 0, external: 0 });
  p.rss = Math.max(p.rss, mib(m.rss));
  p.heap = Math.max(p.heap, mib(m.heapUsed));
  p.external = Math.max(p.external, mib(m.external + m.arrayBuffers));
}
const timer = setInterval(sample, 20);
const dataDir = await mkdtemp(path.join(tmpdir(), 'intake-phases-'));
const store = await openStore({ dataDir, databaseUrl: values.pg });
try {
  const demo = await seedDemoIfEmpty(store, 'ordini.localhost');
  if (!demo) throw new Error('the store was not fresh');
  mark('at rest');
  phase = 'read';
  const raw = values.buffer ? await readFile(values.file) : Buffer.alloc(0);
  let rawFile: { path: string; size: number; sha256: string } | undefined;
  if (!values.buffer) {
    // As the file channels hash an upload: in pieces, into one buffer.
    const { hashFile } = await import(module('channels/files/spool')) as typeof import('../../src/channels/files/spool.ts');
    rawFile = { path: values.file, size: (await stat(values.file)).size, sha256: await hashFile(values.file) };
  }
  mark(values.buffer ? 'file read' : 'file hashed');
  phase = 'save';
  const save = store.saveSubmission.bind(store);
  store.saveSubmission = async (...args) => {
    const r = await save(...args);
    mark('raw file committed');
    return r;
  };
  const register = store.registerOrders.bind(store);
  let first = true;
  store.registerOrders = (...args) => {
    if (first) phase = 'judge';
    first = false;
    return register(...args);
  };
  const complete = store.completeSubmission.bind(store);
  store.completeSubmission = async (...args) => {
    mark('judged');
    phase = 'record outcome';
    const recorded = await complete(...args);
    mark('outcome recorded');
    return recorded;
  };
  // A checkout whose intake bounds the heap only during large work is given the service's hook (src/main.ts).
  const intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('warn'), largeWork: heap?.holdHeapGrowthLimit });
  const t0 = performance.now();
  const { outcome } = await intake.submit({
    principal: { customerId: demo.customer.id, customerCode: demo.customer.code },
    channel: 'sftp', fileName: path.basename(values.file), raw, ...(rawFile ? { rawFile } : {}), meta: {}, singleOrder: false,
  });
  sample();
  clearInterval(timer);
  console.log(JSON.stringify({
    root: ROOT, code: values.dist ? 'dist' : 'src', bytes: rawFile?.size ?? raw.length, orders: outcome.orders.length, esito: outcome.esito,
    seconds: Number(((performance.now() - t0) / 1000).toFixed(1)), peakRssMiB: mib(process.resourceUsage().maxRSS * 1024),
    peakAfter: highWater, sampledPerPhase: peaks,
  }, null, 1));
} finally {
  clearInterval(timer);
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
}
