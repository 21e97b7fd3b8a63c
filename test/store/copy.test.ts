// `db copy`: a SQLite installation built through the real code (customers, credentials, catalog, submissions
// judged by the real intake, one left unprocessed) is copied into a fresh PostgreSQL schema and read back through
// the store port on both sides. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { IntakeError } from '../../src/errors.ts';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import type { Order } from '../../src/intake/types.ts';
import { createLogger } from '../../src/log.ts';
import { copySqliteToPostgres, type CopyResult } from '../../src/store/copy.ts';
import { openPostgresStore } from '../../src/store/postgres.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import type { Store } from '../../src/store/store.ts';
import { adminQuery, createSchema, SKIP_NO_PG, testDatabaseUrl, type TestSchema } from './pg-schema.ts';

const log = createLogger('silent');

function orderJson(ref: string, quantita = 100): Order {
  return {
    codice_cliente: 'C001', riferimento_ordine: ref, data_ordine: '2026-03-01', data_consegna: '2026-03-20',
    righe: [{ codice_articolo: 'BV-STD', quantita, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 2.5, unita_misura: 'pz' }],
  };
}

interface Installation {
  dir: string;
  file: string;
  store: Store;
  intake: Intake;
  customerId: string;
  pending: string;
}

/** A SQLite installation as `serve` would leave it, with one submission received and not yet processed. */
async function installation(): Promise<Installation> {
  const dir = await mkdtemp(path.join(tmpdir(), 'intake-copy-'));
  const file = path.join(dir, 'intake.sqlite');
  const store = await openSqliteStore(file);
  await store.migrate();
  await store.upsertUnits(DEFAULT_UNITS);
  await store.upsertArticles([
    { codice_articolo: 'BV-STD', descrizione: 'Biglietti da visita', unita_misura: 'PZ' },
    { codice_articolo: 'VOL-A4', descrizione: 'Volantini A4 — àèì €', unita_misura: 'PZ' },
  ]);
  const c1 = await provisionCustomer(store, { code: 'C001', name: 'Tipografia Rossi' }, 'ordini.test');
  await provisionCustomer(store, { code: 'C002', name: 'Cartoleria Bianchi' }, 'ordini.test');
  await store.revokeCredentials(c1.customer.id, 'api_key');
  const intake = createIntake({ store, timeZone: 'Europe/Rome', log });
  const principal = { customerId: c1.customer.id, customerCode: 'C001' };
  await intake.submit({ principal, channel: 'rest', mediaType: 'application/json', raw: Buffer.from(JSON.stringify(orderJson('R-1'))), singleOrder: true });
  await intake.submit({ principal, channel: 'sftp', fileName: 'due.json', raw: Buffer.from(JSON.stringify([orderJson('R-2'), orderJson('R-3', 7)])) });
  await intake.submit({ principal, channel: 'ftp', fileName: 'rotto.csv', raw: Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28]) });
  await intake.submit({ principal, channel: 'email', fileName: 'dup.json', raw: Buffer.from(JSON.stringify(orderJson('R-1'))) });
  const pending = await intake.receive({ principal, channel: 'ftp', fileName: 'dopo.json', raw: Buffer.from(JSON.stringify(orderJson('R-4'))) });
  return { dir, file, store, intake, customerId: c1.customer.id, pending: pending.id };
}

/** Everything the port shows about an installation, for comparing the two sides. */
async function snapshot(store: Store) {
  const customers = await store.listCustomers();
  const summaries = await store.listSubmissions({ limit: 1000 });
  const submissions = await Promise.all(summaries.map((s) => store.getSubmission(s.id)));
  const refs = ['R-1', 'R-2', 'R-3', 'R-4', 'R-5'];
  return {
    customers,
    credentials: await Promise.all(['c001', 'c002'].map((u) => store.findCredential('password', u))),
    articles: await store.countArticles(),
    known: await store.knownArticles(['BV-STD', 'VOL-A4', 'NOPE']),
    units: await store.listUnits(),
    submissions,
    orders: await store.listOrders({ limit: 1000 }),
    attempts: await Promise.all(customers.flatMap((c) => refs.map((r) => store.latestAttempt(c.id, r)))),
  };
}

function written(result: CopyResult): Record<string, number> {
  return Object.fromEntries(result.tables.map((t) => [t.table, t.written]));
}

async function withCopySetup(fn: (src: Installation, schema: TestSchema, target: Store) => Promise<void>): Promise<void> {
  const src = await installation();
  const schema = await createSchema(testDatabaseUrl!, 'copy');
  let target: Store | undefined;
  try {
    target = await openPostgresStore(schema.url);
    await fn(src, schema, target);
  } finally {
    await target?.close();
    await src.store.close();
    await schema.drop();
    await rm(src.dir, { recursive: true, force: true });
  }
}

void describe('db copy from SQLite to PostgreSQL', { skip: testDatabaseUrl ? false : SKIP_NO_PG }, () => {
  void it('copies everything exactly, and a second run writes nothing', () => withCopySetup(async (src, schema, target) => {
    const progress: number[] = [];
    const first = await copySqliteToPostgres({ from: src.file, to: schema.url, pageSize: 2, onProgress: (p) => progress.push(p.done) });
    const rows = Object.fromEntries(first.tables.map((t) => [t.table, t.rows]));
    assert.deepEqual(rows, { customers: 2, credentials: 4, articles: 2, units: DEFAULT_UNITS.length, submissions: 5, orders: 3, order_sequences: 1 });
    assert.deepEqual(written(first), rows);
    assert.equal(progress.at(-1), Object.values(rows).reduce((a, b) => a + b, 0), 'the progress reaches the total');
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b), 'progress only grows');

    assert.deepEqual(await snapshot(target), await snapshot(src.store));
    const raw = (await target.listSubmissions({ limit: 10 })).find((s) => s.fileName === 'rotto.csv');
    assert.deepEqual((await target.getSubmission(raw!.id))?.raw, Buffer.from([0xff, 0xfe, 0x00, 0x41, 0xc3, 0x28]));

    const again = await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.ok(Object.values(written(again)).every((n) => n === 0), JSON.stringify(written(again)));
    assert.deepEqual(await snapshot(target), await snapshot(src.store));
  }));

  void it('picks up what arrived and changed since, and numbering continues after the copied numbers', () => withCopySetup(async (src, schema, target) => {
    await copySqliteToPostgres({ from: src.file, to: schema.url });
    // Meanwhile the SQLite service goes on: the pending one is processed, a new order arrives, a password changes.
    await src.intake.process(src.pending);
    const principal = { customerId: src.customerId, customerCode: 'C001' };
    await src.intake.submit({ principal, channel: 'rest', mediaType: 'application/json', raw: Buffer.from(JSON.stringify(orderJson('R-5'))), singleOrder: true });
    await src.store.revokeCredentials(src.customerId, 'password');
    await src.store.addCredential({ id: 'new-password', customerId: src.customerId, kind: 'password', lookup: 'c001', secretHash: 'scrypt$new' });

    const final = await copySqliteToPostgres({ from: src.file, to: schema.url });
    assert.deepEqual(written(final), { customers: 0, credentials: 2, articles: 0, units: 0, submissions: 2, orders: 2, order_sequences: 1 });
    assert.deepEqual(await snapshot(target), await snapshot(src.store));
    assert.equal((await target.findCredential('password', 'c001'))?.id, 'new-password');

    const numbers = (await target.listOrders({ limit: 100 })).map((o) => o.numero_ordine).sort();
    assert.deepEqual(numbers, ['2026-000001', '2026-000002', '2026-000003', '2026-000004', '2026-000005']);
    const sub = (await target.listSubmissions({ limit: 1 }))[0]!;
    const [next] = await target.registerOrders([{
      id: 'after-switch', customerId: src.customerId, submissionId: sub.id, channel: 'rest', year: 2026, contentHash: 'h',
      registeredAt: new Date().toISOString(), order: orderJson('R-6'),
    }]);
    assert.equal(next?.numero_ordine, '2026-000006');
  }));

  void it('completes a copy that stopped half way, without duplicates', () => withCopySetup(async (src, schema, target) => {
    let pages = 0;
    await assert.rejects(copySqliteToPostgres({
      from: src.file, to: schema.url, pageSize: 1,
      onProgress: (p) => {
        // The connection dropping (or Ctrl-C) after two committed pages of submissions.
        if (p.table === 'submissions' && ++pages === 2) throw new Error('interrupted');
      },
    }), /interrupted/);
    assert.equal((await target.listSubmissions({})).length, 2, 'a partial copy');
    assert.equal((await target.listOrders({})).length, 0);
    await copySqliteToPostgres({ from: src.file, to: schema.url, pageSize: 1 });
    assert.deepEqual(await snapshot(target), await snapshot(src.store));
  }));

  void it('refuses, writing nothing, when the target holds a different order under the same identity', () => withCopySetup(async (src, schema, target) => {
    await target.migrate();
    // The target was used on its own: same customer code, and an order C001/R-1 of its own.
    const own = await target.createCustomer({ id: 'other-id', code: 'C001', name: 'Altro', mailbox: 'altro@ordini.test' });
    const sub = await target.saveSubmission({
      id: 'own-sub', customerId: own.id, customerCode: 'C001', channel: 'rest', raw: Buffer.from('x'), meta: {}, singleOrder: true,
      sha256: 'x', receivedAt: new Date().toISOString(),
    });
    await target.registerOrders([{
      id: 'own-order', customerId: own.id, submissionId: sub.id, channel: 'rest', year: 2026, contentHash: 'h',
      registeredAt: new Date().toISOString(), order: orderJson('R-1'),
    }]);
    await assert.rejects(copySqliteToPostgres({ from: src.file, to: schema.url }), (e: unknown) => {
      assert.ok(e instanceof IntakeError && e.code === 'CONFLICT');
      assert.match(e.message, /nothing was copied/);
      assert.match(e.message, /customer C001 exists in the target with another id/);
      assert.match(e.message, /order C001\/R-1 is 2026-000001 in the source, but the target has C001\/R-1 as 2026-000001/);
      return true;
    });
    assert.deepEqual((await target.listCustomers()).map((c) => c.id), ['other-id']);
    assert.equal(await target.countArticles(), 0);
  }));

  void it('refuses a file that is not an order-intake database, or is missing', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-copy-'));
    const schema = await createSchema(testDatabaseUrl!, 'copy');
    try {
      await writeFile(path.join(dir, 'notes.txt'), 'hello');
      await assert.rejects(copySqliteToPostgres({ from: path.join(dir, 'missing.sqlite'), to: schema.url }), /no SQLite database/);
      await assert.rejects(copySqliteToPostgres({ from: path.join(dir, 'notes.txt'), to: schema.url }), /cannot open|not a database|not an order-intake/);
      // Data in a table this version does not copy would be lost on the switch: refused, nothing written.
      const file = path.join(dir, 'intake.sqlite');
      const store = await openSqliteStore(file);
      await store.migrate();
      await provisionCustomer(store, { code: 'C001', name: 'Cliente' }, 'ordini.test');
      await store.close();
      const raw = new Database(file);
      raw.exec(`CREATE TABLE later_feature (x TEXT) STRICT; INSERT INTO later_feature VALUES ('kept')`);
      raw.close();
      await assert.rejects(copySqliteToPostgres({ from: file, to: schema.url }), /holds data in later_feature.*nothing was copied/);
      const tables = await adminQuery<{ n: number }>(testDatabaseUrl!, 'SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1', [schema.name]);
      assert.equal(tables[0]!.n, 0, 'not even the schema was created');
    } finally {
      await schema.drop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
