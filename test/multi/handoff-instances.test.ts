// Three `order-intake serve` processes on one PostgreSQL database delivering to one webhook receiver; one instance is
// killed with SIGKILL while deliveries are under way. Afterwards every registered order's event has been received
// (verified with standardwebhooks), no event was ever being delivered by two instances at the same time, and every
// delivery is recorded as done. Short leases so that the takeover does not take a minute. Skipped, visibly, without
// INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { spawnServe, stopServe, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir, waitFor } from '../helpers/service.ts';
import { startReceiver } from '../handoff/receiver.ts';
import { TEST_SECRET_KEY } from '../handoff/stores.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { seedStore } from './seed.ts';

const SETTINGS = {
  INTAKE_SECRET_KEY: TEST_SECRET_KEY, INTAKE_HANDOFF_POLL_MS: '50', INTAKE_WEBHOOK_TIMEOUT_MS: '2000', INTAKE_HANDOFF_LEASE_MS: '3000',
  INTAKE_HANDOFF_RETRY: '100,500,600000',
};
const ORDERS = 60;

void describe('webhooks from several instances on one PostgreSQL', { skip: PG_SKIP }, () => {
  void it('delivers every event, one instance at a time, when one of three is SIGKILLed mid-delivery', { timeout: 240_000 }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'multi_hook');
    const receiver = await startReceiver();
    // Each answer takes a while, so the victim is sure to be in the middle of some when it dies.
    receiver.answer = () => ({ status: 200, delayMs: 300 });
    const spans = new Map<string, { start: number; end?: number }[]>();
    const answer = receiver.answer;
    receiver.answer = (r) => {
      const list = spans.get(r.id) ?? [];
      const span: { start: number; end?: number } = { start: Date.now() };
      list.push(span);
      spans.set(r.id, list);
      const a = answer(r);
      setTimeout(() => { span.end = Date.now(); }, a.delayMs ?? 0).unref();
      return a;
    };
    const instances: ServeProcess[] = [];
    const dirs: string[] = [];
    try {
      const store = await openPostgresStore(schema.url);
      let apiKey: string;
      try {
        apiKey = (await seedStore(store))[0]!.apiKey;
        receiver.setSecret((await addWebhook(store, TEST_SECRET_KEY, { url: receiver.url, allowPrivate: true })).secret);
      } finally {
        await store.close();
      }
      for (let k = 0; k < 3; k++) {
        const dir = tempDir('intake-multi-hook-');
        dirs.push(dir);
        instances.push(await spawnServe(dir, { INTAKE_DATABASE_URL: schema.url, ...SETTINGS }, 60_000));
      }
      const victim = instances[2]!;
      const ids = await Promise.all(Array.from({ length: ORDERS }, async (_, k) => {
        const res = await fetch(`http://127.0.0.1:${instances[k % 3]!.httpPort}/api/v1/ordini`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(order('C001', `W-${k}`)),
        });
        assert.equal(res.status, 201);
        return ((await res.json()) as { id_ordine: string }).id_ordine;
      }));
      await waitFor(() => (receiver.received.length >= 10 ? true : undefined), 30_000, 'deliveries under way');
      victim.proc.kill('SIGKILL');
      await victim.exited;

      const delivered = () => new Set(receiver.received.filter((r) => r.verified)
        .map((r) => (JSON.parse(r.body) as { data: { id_ordine: string } }).data.id_ordine));
      await waitFor(() => (ids.every((id) => delivered().has(id)) ? true : undefined), 120_000, 'every order delivered');
      await waitFor(async () => {
        const [row] = await adminQuery<{ n: number }>(testDatabaseUrl!, `SELECT count(*)::int AS n FROM ${schema.name}.handoff_deliveries WHERE state <> 'done'`);
        return row!.n === 0 ? true : undefined;
      }, 30_000, 'every delivery recorded as done');
      const [total] = await adminQuery<{ n: number }>(testDatabaseUrl!, `SELECT count(*)::int AS n FROM ${schema.name}.handoff_deliveries`);
      assert.equal(total!.n, ORDERS, 'one delivery per event, whichever instance fanned out');
      // Each request is held 300 ms by the receiver (also the victim's, whose answer then goes nowhere); the next
      // attempt at the same event must start after that, not alongside it.
      for (const [id, list] of spans) {
        const sorted = [...list].sort((a, b) => a.start - b.start);
        for (let i = 1; i < sorted.length; i++) {
          assert.ok(sorted[i]!.start >= (sorted[i - 1]!.end ?? sorted[i - 1]!.start + 300), `event ${id} was being delivered twice at once`);
        }
      }
      const repeated = [...spans.values()].filter((l) => l.length > 1).length;
      assert.ok(repeated <= 16, `only the victim's in-flight deliveries are repeated (${repeated})`);
    } finally {
      for (const i of instances) await stopServe(i, 'SIGKILL');
      await receiver.close();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await schema.drop();
    }
  });
});
