// INTAKE_OUTBOX=off, the benchmark's switch for measuring the outbox's cost: no event is written, everything else
// works as ever. On SQLite and, with INTAKE_TEST_DATABASE_URL, PostgreSQL (both registration paths).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, item } from './fixtures.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from './pg-schema.ts';

async function check(store: Store): Promise<void> {
  await store.migrate();
  const c = await addCustomer(store, 'C001');
  const sub = await addSubmission(store, c);
  const [one] = await store.registerOrders([item(c, sub, 'R1')]);
  const two = await store.registerOrders([item(c, sub, 'R2'), item(c, sub, 'R3')]);
  assert.deepEqual([one!.status, ...two.map((r) => r.status)], ['created', 'created', 'created']);
  await store.completeSubmission(sub, 'processed', { submissionId: sub, esito: 'errore', orders: [{ index: 0, esito: 'errore', message: ['x'] }] }, new Date().toISOString());
  assert.equal((await store.getOrderByRef(c.id, 'R2'))?.numero_ordine, two[0]!.numero_ordine);
  assert.deepEqual(await store.readEvents(null, 100), []);
}

void describe('the outbox switched off (benchmarks only)', () => {
  void it('INTAKE_OUTBOX is on unless set to off, and nothing else', () => {
    assert.equal(loadConfig({}).outbox, true);
    assert.equal(loadConfig({ INTAKE_OUTBOX: 'off' }).outbox, false);
    assert.throws(() => loadConfig({ INTAKE_OUTBOX: 'no' }), /INTAKE_OUTBOX must be on or off/);
  });

  void it('sqlite: registers and judges, writes no event', async () => {
    const store = await openSqliteStore(':memory:', { outbox: false });
    try {
      await check(store);
    } finally {
      await store.close();
    }
  });

  void it('postgres: registers and judges, writes no event', { skip: PG_SKIP }, async () => {
    const schema = await createSchema(testDatabaseUrl!);
    const store = await openPostgresStore(testDatabaseUrl!, { schema: schema.name, outbox: false });
    try {
      await check(store);
    } finally {
      await store.close();
      await schema.drop();
    }
  });
});
