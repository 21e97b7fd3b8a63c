/**
 * The write thread's work per REST order, alone in one thread (no HTTP, no main thread): the same operation on the
 * same schema (saveSingleOrder's one write, GROUP orders per durable commit), timed with process.cpuUsage, outbox on
 * and off, and variants given as arguments. What the outbox costs the SQLite write thread, which is what bounds
 * SQLite's REST throughput. `node --import tsx bench/profile/outbox-writes.ts`. (Until the eighth round a REST
 * order was two operations, save + register in one lazy commit and the outcome in a durable one; the figures of
 * performance-history.md's "before" columns were measured with the tool of that commit.)
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
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
import { jsonOrder, reference } from '../lib/orders.ts';
import type { RefOrder } from '../lib/types.ts';
import type { RegisterItem } from '../../src/domain/store/store.ts';
import type { Order } from '../../src/domain/types.ts';

const GROUP = Number(process.env.GROUP ?? 8);
const N = Number(process.env.N ?? 6000);
/** REFS=scattered: references in no order, as from many customers (bench/lib/orders.ts reference). */
const REFS = (process.env.REFS ?? 'sequence') as RefOrder;

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
    const ref = reference({ refPrefix: prefix, refs: REFS }, i++);
    const raw = Buffer.from(jsonOrder(ref, 3));
    const order = JSON.parse(raw.toString('utf8')) as Order;
    const subId = uuidv7();
    const at = new Date().toISOString();
    const row = newSubmissionRow({ id: subId, customerId, customerCode: 'DEMO', channel: 'rest', raw, sha256: createHash('sha256').update(raw).digest('hex'), receivedAt: at, singleOrder: true, meta: { remote: '127.0.0.1' } } as never);
    const values = [row.id, row.customer_id, row.customer_code, row.channel, row.file_name, row.media_type, row.charset, row.raw, row.meta,
      row.single_order ? 1 : 0, row.site, row.sites, row.connector_id, row.reserved_order_id, row.sha256, row.received_at];
    const item: RegisterItem = { id: uuidv7(), customerId, submissionId: subId, channel: 'rest', year: 2026, contentHash: ref, order, registeredAt: at };
    return { values, item, at };
  };
  const stmt = (s: string) => db.prepare(s);
  const [begin, commit] = [stmt('BEGIN IMMEDIATE'), stmt('COMMIT')];
  const group = () => {
    const orders = Array.from({ length: GROUP }, one);
    begin.run();
    for (const o of orders) WRITE_OPS.saveSingleOrder(c, o.values, { item: o.item }, o.at);
    commit.run();
  };
  for (let k = 0; k < 500 / GROUP; k++) group();
  // The WAL from empty, not checkpointed while measured: its size is the pages the N orders wrote (a measure the
  // machine's load does not move).
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.pragma('wal_autocheckpoint = 0');
  const t0 = process.cpuUsage();
  for (let k = 0; k < N / GROUP; k++) group();
  const d = process.cpuUsage(t0);
  const walBytes = statSync(`${file}-wal`).size;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { usPerOrder: Math.round((d.user + d.system) / N), walBytesPerOrder: Math.round(walBytes / N) };
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
const wal: Record<string, number[]> = {};
for (let r = 0; r < Number(process.env.REPEAT ?? 3); r++) {
  for (const v of names) {
    const got = await run(VARIANTS[v]!.outbox, VARIANTS[v]!.sql);
    (sums[v] ??= []).push(got.usPerOrder);
    (wal[v] ??= []).push(got.walBytesPerOrder);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const v of names) {
  console.log(`${v.padEnd(34)} median ${median(sums[v]!)} us/order (${sums[v]!.join(', ')}), WAL ${median(wal[v]!)} bytes/order (${wal[v]!.join(', ')})`);
}
