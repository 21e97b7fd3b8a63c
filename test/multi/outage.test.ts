// PostgreSQL going away under a running service (through a TCP relay the test controls): /healthz turns 503 and
// names the database, no order is acknowledged while nothing can be committed, and when the database is back the
// lost connections are replaced and the service works again, with nothing half-registered. Skipped, visibly,
// without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { order, startTestService, waitFor, type TestService } from '../helpers/service.ts';
import { createSchema, SKIP_NO_PG, testDatabaseUrl } from '../store/pg-schema.ts';
import { startProxy } from './proxy.ts';

async function health(t: TestService): Promise<{ status: number; body: { status: string; store: string } }> {
  const res = await fetch(`${t.url}/healthz`);
  return { status: res.status, body: (await res.json()) as { status: string; store: string } };
}

async function post(t: TestService, key: string, ref: string, async = false): Promise<number> {
  const res = await fetch(`${t.url}/api/v1/ordini`, {
    method: 'POST', body: JSON.stringify(order('C001', ref)),
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...(async ? { prefer: 'respond-async' } : {}) },
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  return res.status;
}

async function stateOf(t: TestService, key: string, ref: string): Promise<number> {
  const res = await fetch(`${t.url}/api/v1/ordini?riferimento_ordine=${ref}`, { headers: { 'x-api-key': key } });
  await res.arrayBuffer();
  return res.status;
}

void describe('PostgreSQL outage under a running service', { skip: testDatabaseUrl ? false : SKIP_NO_PG }, () => {
  void it('is unready and acknowledges nothing while the database is away, and recovers when it is back', async () => {
    const pgUrl = new URL(testDatabaseUrl!);
    const proxy = await startProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    const schema = await createSchema(testDatabaseUrl!, 'outage');
    let t: TestService | undefined;
    try {
      t = await startTestService({ INTAKE_DATABASE_URL: proxy.url(schema.url) });
      const c = await t.customer('C001');
      assert.equal(await post(t, c.apiKey, 'BEFORE'), 201);
      assert.deepEqual(await health(t), { status: 200, body: { status: 'ok', store: 'postgres' } });

      await proxy.cut();
      assert.deepEqual(await health(t), { status: 503, body: { status: 'unavailable', store: 'postgres' } });
      const during = await post(t, c.apiKey, 'DURING');
      assert.ok(during >= 500, `no acknowledgement while the database is away (got ${during})`);
      const duringAsync = await post(t, c.apiKey, 'DURING-ASYNC', true);
      assert.ok(duringAsync >= 500, `no 202 either (got ${duringAsync})`);

      await proxy.restore();
      await waitFor(async () => ((await health(t!)).status === 200 ? true : undefined), 15_000, 'readiness after the database is back');
      assert.equal(await stateOf(t, c.apiKey, 'DURING'), 404, 'what was refused was not registered');
      assert.equal(await stateOf(t, c.apiKey, 'DURING-ASYNC'), 404);
      assert.equal(await post(t, c.apiKey, 'DURING'), 201, 'the customer sends it again and it is registered');
      assert.equal(await post(t, c.apiKey, 'AFTER'), 201);
      assert.equal(await stateOf(t, c.apiKey, 'BEFORE'), 200);
    } finally {
      await proxy.restore();
      await t?.close();
      await proxy.close();
      await schema.drop();
    }
  });

  void it('answers 503 promptly when the database stops answering without closing the connection', async () => {
    const pgUrl = new URL(testDatabaseUrl!);
    const proxy = await startProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    const schema = await createSchema(testDatabaseUrl!, 'outage');
    let t: TestService | undefined;
    try {
      t = await startTestService({ INTAKE_DATABASE_URL: proxy.url(schema.url) });
      assert.equal((await health(t)).status, 200);
      proxy.stall();
      const started = Date.now();
      assert.deepEqual(await health(t), { status: 503, body: { status: 'unavailable', store: 'postgres' } });
      assert.ok(Date.now() - started < 10_000, 'the probe is not held until a TCP timeout');
      await proxy.restore();
      await waitFor(async () => ((await health(t!)).status === 200 ? true : undefined), 15_000, 'readiness after the stall');
    } finally {
      await proxy.restore();
      await t?.close();
      await proxy.close();
      await schema.drop();
    }
  });
});
