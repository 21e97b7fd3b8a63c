// The hand-off inside the real service, on both stores: an order sent by REST reaches a real webhook receiver
// (signature verified with standardwebhooks) and a hot folder as an XJDF ticket; a refused order is delivered as
// ordine.rifiutato; a `serve` killed with SIGKILL in the middle of a delivery delivers it again after restart, with
// the same webhook-id; SIGTERM stops it cleanly.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { addExport, addWebhook } from '../../src/handoff/subscribers.ts';
import { openStore } from '../../src/store/open.ts';
import { spawnServe, stopServe } from '../helpers/child.ts';
import { order, startTestService, tempDir, TEST_ARTICLES, waitFor } from '../helpers/service.ts';
import { createSchema, testDatabaseUrl } from '../store/pg-schema.ts';
import { startReceiver } from './receiver.ts';
import { TEST_SECRET_KEY } from './stores.ts';
import { XJDF_XSD } from '../helpers/shared.ts';

interface Engine {
  name: string;
  /** Extra settings selecting the store, and how to remove it. */
  setup(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

const ENGINES: Engine[] = [{ name: 'sqlite', setup: async () => ({ env: {}, drop: async () => undefined }) }];
if (testDatabaseUrl) {
  ENGINES.push({
    name: 'postgres',
    setup: async () => {
      const schema = await createSchema(testDatabaseUrl!, 'handoff_svc');
      return { env: { INTAKE_DATABASE_URL: schema.url }, drop: () => schema.drop() };
    },
  });
}

/**
 * The delivery claim of the kill -9 test: long enough over the webhook timeout (6 s) for the held first attempt to be
 * the killed process's only one, short enough that the test does not sit out a minute.
 */
const LEASE_MS = 8000;
const FAST = { INTAKE_SECRET_KEY: TEST_SECRET_KEY, INTAKE_HANDOFF_POLL_MS: '50', INTAKE_HANDOFF_RETRY: '100,500,600000' };

async function postOrder(url: string, apiKey: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${url}/api/v1/ordini`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() as Record<string, unknown> };
}

for (const engine of ENGINES) {
  void describe(`hand-off in the service (${engine.name})`, () => {
    void it('delivers a REST order to a webhook and a hot folder, and a refused one as ordine.rifiutato', async () => {
      const db = await engine.setup();
      const receiver = await startReceiver();
      const hot = tempDir('intake-hot-');
      const t = await startTestService({ ...FAST, ...db.env });
      try {
        const { secret } = await addWebhook(t.service.store, TEST_SECRET_KEY, { url: receiver.url, allowPrivate: true });
        receiver.setSecret(secret);
        await addExport(t.service.store, { dir: hot, format: 'xjdf' });
        const c = await t.customer('C001');
        const ok = await postOrder(t.url, c.apiKey, order('C001', 'ODA-1'));
        assert.equal(ok.status, 201);
        const bad = await postOrder(t.url, c.apiKey, order('C001', 'ODA-2', { righe: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] }));
        assert.equal(bad.status, 400);
        await waitFor(() => (receiver.received.length >= 2 ? true : undefined), 15_000, 'two webhook deliveries');
        const bodies = receiver.received.map((r) => JSON.parse(r.body) as { id: string; type: string; data: Record<string, unknown> });
        assert.ok(receiver.received.every((r) => r.verified), 'signatures verify');
        // Events of different orders may arrive in either order (up to 16 deliveries to one endpoint at once:
        // docs/operators/webhooks-and-export.md); under load the refusal's came first (CI, 2026-11-27).
        assert.deepEqual(bodies.map((b) => b.type).sort(), ['ordine.registrato', 'ordine.rifiutato']);
        const at = bodies.findIndex((b) => b.type === 'ordine.registrato');
        const registered = bodies[at]!;
        const refused = bodies.find((b) => b.type === 'ordine.rifiutato')!;
        assert.equal(registered.data.id_ordine, ok.json.id_ordine);
        assert.equal(registered.data.numero_ordine, ok.json.numero_ordine);
        assert.equal(receiver.received[at]!.id, registered.id, 'webhook-id is the event id');
        assert.equal(refused.data.riferimento_ordine, 'ODA-2');
        const file = await waitFor(() => readdirSync(hot).find((f) => f.endsWith('.xjdf')), 10_000, 'the XJDF file');
        assert.equal(file, `${String(ok.json.numero_ordine)}_${registered.id}.xjdf`);
        execFileSync('xmllint', ['--noout', '--schema', XJDF_XSD, path.join(hot, file)], { stdio: 'pipe' });
      } finally {
        await t.close();
        await receiver.close();
        rmSync(hot, { recursive: true, force: true });
        await db.drop();
      }
    });

    void it('delivers again, with the same webhook-id, after a kill -9 during the delivery; SIGTERM stops cleanly', async () => {
      const db = await engine.setup();
      const dataDir = tempDir('intake-handoff-kill-');
      mkdirSync(dataDir, { recursive: true });
      const receiver = await startReceiver();
      // The first attempt is held open until the process that made it is killed.
      let hold = true;
      receiver.answer = () => ({ status: 200, delayMs: hold ? 60_000 : 0 });
      const env = { ...FAST, ...db.env, INTAKE_WEBHOOK_TIMEOUT_MS: '6000', INTAKE_HANDOFF_LEASE_MS: String(LEASE_MS) };
      let apiKey: string;
      const store = await openStore({ dataDir, databaseUrl: db.env.INTAKE_DATABASE_URL });
      try {
        await store.upsertArticles(TEST_ARTICLES);
        apiKey = (await provisionCustomer(store, { code: 'C001', name: 'Cliente' }, 'ordini.test')).apiKey;
        const { secret } = await addWebhook(store, TEST_SECRET_KEY, { url: receiver.url, allowPrivate: true });
        receiver.setSecret(secret);
      } finally {
        await store.close();
      }
      let serve = await spawnServe(dataDir, env, 60_000);
      try {
        const ok = await postOrder(`http://127.0.0.1:${serve.httpPort}`, apiKey, order('C001', 'ODA-K'));
        assert.equal(ok.status, 201);
        await waitFor(() => (receiver.received.length === 1 ? true : undefined), 15_000, 'the first attempt');
        await stopServe(serve, 'SIGKILL');
        hold = false;
        serve = await spawnServe(dataDir, env, 60_000);
        await waitFor(() => (receiver.received.length >= 2 ? true : undefined), 60_000, 'the delivery made again');
        const [first, second] = receiver.received;
        // The dead instance claimed the delivery just before its attempt arrived (a loopback connection later), so
        // its lease ran until about first.at + LEASE_MS; the margin covers that gap on a loaded machine.
        assert.ok(second!.at - first!.at >= LEASE_MS - 1500, `taken over only once the dead instance's lease had passed (${second!.at - first!.at} ms)`);
        assert.equal(second!.id, first!.id, 'same webhook-id');
        assert.equal(second!.body, first!.body, 'same body');
        assert.ok(second!.verified);
        assert.equal((JSON.parse(second!.body) as { data: { id_ordine: string } }).data.id_ordine, ok.json.id_ordine);
        assert.equal(await stopServe(serve, 'SIGTERM'), 0, 'a clean stop');
        assert.equal(receiver.received.length, 2, 'delivered twice in all: once lost with the killed process, once for good');
      } finally {
        await stopServe(serve, 'SIGKILL');
        await receiver.close();
        rmSync(dataDir, { recursive: true, force: true });
        await db.drop();
      }
    });
  });
}
