/**
 * The write thread's work per REST order, alone in one thread (no HTTP, no main thread): the same operations on the
 * same schema (save + register in one lazy commit, the outcome in a durable one, GROUP orders per commit), timed with
 * process.cpuUsage, outbox on and off, and variants given as arguments. What the outbox costs the SQLite write
 * thread, which is what bounds SQLite's REST throughput. `node --import tsx bench/profile/outbox-writes.ts`
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { openStore } from '../../src/store/open.ts';
import { seedDemoIfEmpty } from '../../src/seed/demo.ts';
import { statementCache } from '../../src/store/sqlite/statements.ts';
import { WRITE_OPS } from '../../src/store/sqlite/write-ops.ts';
import { newSubmissionRow } from '../../src/store/common/rows.ts';
import { jsonOrder } from '../lib/orders.ts';
import type { RegisterItem } from '../../src/domain/store/store.ts';
import type { Order, Outcome } from '../../src/domain/types.ts';

const GROUP = Number(process.env.GROUP ?? 8);
const N = Number(process.env.N ?? 6000);

async function run(outbox: boolean, sqlText: string): Promise<{ usPerOrder: number; walBytesPerOrder: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'outbox-writes-'));
  const file = path.join(dir, 'intake.sqlite');
  const store = await openStore({ dataDir: dir });
  const demo = (await seedDemoIfEmpty(store, 'x.test'))!;
  await store.close();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  if (sqlText) db.exec(sqlText);
  const c = { q: statementCache(db), outbox };
  const customerId = demo.customer.id;
  const prefix = randomBytes(3).toString('hex');
  let i = 0;
  const one = () => {
    const ref = `${prefix}-${i++}`;
    const raw = Buffer.from(jsonOrder(ref, 3));
    const order = JSON.parse(raw.toString('utf8')) as Order;
    const subId = uuidv7();
    const at = new Date().toISOString();
    const row = newSubmissionRow({ id: subId, customerId, customerCode: 'DEMO', channel: 'rest', raw, sha256: createHash('sha256').update(raw).digest('hex'), receivedAt: at, singleOrder: true, meta: { remote: '127.0.0.1' } } as never);
    const values = [row.id, row.customer_id, row.customer_code, row.channel, row.file_name, row.media_type, row.charset, row.raw, row.meta,
      row.single_order ? 1 : 0, row.site, row.sites, row.connector_id, row.reserved_order_id, row.sha256, row.received_at];
    const item: RegisterItem = { id: uuidv7(), customerId, submissionId: subId, channel: 'rest', year: 2026, contentHash: ref, order, registeredAt: at };
    return { values, item, subId, at };
  };
  const stmt = (s: string) => db.prepare(s);
  const [begin, commit] = [stmt('BEGIN IMMEDIATE'), stmt('COMMIT')];
  const group = () => {
    const orders = Array.from({ length: GROUP }, one);
    db.exec('PRAGMA synchronous = NORMAL');
    begin.run();
    const results = orders.map((o) => WRITE_OPS.saveAndRegister(c, o.values, [o.item])[0]!);
    commit.run();
    db.exec('PRAGMA synchronous = FULL');
    begin.run();
    orders.forEach((o, k) => {
      const r = results[k]!;
      const outcome: Outcome = { esito: 'ok', orders: [{ esito: 'ok', codice_cliente: 'DEMO', riferimento_ordine: o.item.order.riferimento_ordine, id_ordine: r.id_ordine, numero_ordine: r.numero_ordine }] } as never;
      WRITE_OPS.completeSubmission(c, o.subId, 'processed' as never, outcome, o.at);
    });
    commit.run();
  };
  for (let k = 0; k < 500 / GROUP; k++) group();
  const wal0 = db.pragma('wal_checkpoint(PASSIVE)');
  void wal0;
  const t0 = process.cpuUsage();
  for (let k = 0; k < N / GROUP; k++) group();
  const d = process.cpuUsage(t0);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { usPerOrder: Math.round((d.user + d.system) / N), walBytesPerOrder: 0 };
}

/** Variants: outbox off, on, and on with the schema changed (what each part of the event row costs). */
const VARIANTS: Record<string, { outbox: boolean; sql: string }> = {
  off: { outbox: false, sql: '' },
  on: { outbox: true, sql: '' },
  'on, no order_id index': { outbox: true, sql: 'DROP INDEX order_events_order' },
  'on, plain rowid table, no index': { outbox: true, sql: `CREATE TABLE ev2 (seq INTEGER PRIMARY KEY, id TEXT NOT NULL, type TEXT NOT NULL,
    time TEXT NOT NULL, order_id TEXT, customer_id TEXT NOT NULL REFERENCES customers (id), data TEXT NOT NULL) STRICT;
    DROP TABLE order_events; ALTER TABLE ev2 RENAME TO order_events;` },
  'on, row built, not inserted': { outbox: true, sql: 'CREATE TRIGGER skip BEFORE INSERT ON order_events BEGIN SELECT RAISE(IGNORE); END' },
};
const names = process.argv[2] ? process.argv[2].split('|') : Object.keys(VARIANTS);
const sums: Record<string, number[]> = {};
for (let r = 0; r < Number(process.env.REPEAT ?? 3); r++) {
  for (const v of names) (sums[v] ??= []).push((await run(VARIANTS[v]!.outbox, VARIANTS[v]!.sql)).usPerOrder);
}
for (const v of names) {
  const s = [...sums[v]!].sort((a, b) => a - b);
  console.log(`${v.padEnd(30)} median ${s[Math.floor(s.length / 2)]} us/order  (${s.join(', ')})`);
}
