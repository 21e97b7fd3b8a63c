// Child of memory-per-order.test.ts (run with --expose-gc): one large CSV file through the whole intake path on a
// fresh SQLite store (raw file committed, decoded, judged, every order registered, outcome recorded), as a file
// channel hands it over. Prints, as one JSON line, the heap and Buffer memory still reachable after a forced
// collection at two batches ORDERS_APART orders apart, and at the moment the outcome is recorded.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JUDGE_BATCH_ORDERS } from '../../src/intake/judge.ts';
import { createIntake } from '../../src/intake/intake.ts';
import { createLogger } from '../../src/log.ts';
import { seedDemoIfEmpty } from '../../src/seed/demo.ts';
import { openStore } from '../../src/store/open.ts';

const ORDERS = Number(process.argv[2] ?? 12_000);
const LINES = 2;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

function retained(): number {
  gc!();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const header = 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura\n';
const parts = [header];
for (let o = 0; o < ORDERS; o++) {
  const ref = `MEM-${String(o).padStart(6, '0')}`;
  for (let l = 0; l < LINES; l++) parts.push(`DEMO;${ref};2026-01-15;2026-02-02;BV-STD;${100 + l};PZ\n`);
}
const raw = Buffer.from(parts.join(''));
parts.length = 0;

const dir = await mkdtemp(path.join(tmpdir(), 'intake-mem-'));
const store = await openStore({ dataDir: dir });
try {
  const demo = await seedDemoIfEmpty(store, 'ordini.localhost');
  if (!demo) throw new Error('the data folder was not fresh');
  const intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('warn') });
  // Batches are counted where judging hands them to the store; memory is read before the batch is registered.
  const at: Record<number, number> = {};
  const first = 2;
  const last = Math.floor(ORDERS / JUDGE_BATCH_ORDERS) - 1;
  let batch = 0;
  const register = store.registerOrders.bind(store);
  store.registerOrders = (items, opts) => {
    if (batch === first || batch === last) at[batch] = retained();
    batch++;
    return register(items, opts);
  };
  let atOutcome = 0;
  const complete = store.completeSubmission.bind(store);
  store.completeSubmission = (...args) => {
    atOutcome = retained();
    return complete(...args);
  };
  const before = retained();
  const { outcome } = await intake.submit({
    principal: { customerId: demo.customer.id, customerCode: demo.customer.code },
    channel: 'sftp', fileName: 'ordini.csv', raw, meta: {}, singleOrder: false,
  });
  const accepted = outcome.orders.filter((o) => o.esito === 'ok').length;
  process.stdout.write(`${JSON.stringify({
    orders: outcome.orders.length, accepted, bytes: raw.length, before, atOutcome,
    ordersApart: (last - first) * JUDGE_BATCH_ORDERS, atFirst: at[first], atLast: at[last],
  })}\n`);
} finally {
  await store.close();
  await rm(dir, { recursive: true, force: true });
}
