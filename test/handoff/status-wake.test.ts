// A production status report wakes the hand-off at once, like a registration does: with the dispatcher's poll set to
// a minute, a webhook for ordine.stato_aggiornato still arrives within seconds. On PostgreSQL two instances share the
// store and a status is reported on each, so whichever holds the fan-out lease, one of the two reports reaches it
// only through the bell (LISTEN/NOTIFY). Before the status report rang the bell, these waited for the poll and failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import { order, startTestService, waitFor, type TestService } from '../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { startReceiver } from './receiver.ts';
import { TEST_SECRET_KEY } from './stores.ts';

/** Far longer than the waits below: an event found only by the poll would fail the test. */
const SLOW_POLL = { INTAKE_SECRET_KEY: TEST_SECRET_KEY, INTAKE_HANDOFF_POLL_MS: '60000' };
/** Generous for a loaded machine, far below the poll. */
const WITHIN_MS = 20_000;

async function post(t: TestService, path: string, body: unknown, key: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() as Record<string, unknown> };
}

async function statusWebhooks(instances: TestService[]): Promise<void> {
  const [first] = instances;
  const receiver = await startReceiver();
  try {
    const { secret } = await addWebhook(first!.service.store, TEST_SECRET_KEY, { url: receiver.url, allowPrivate: true, events: 'ordine.stato_aggiornato' });
    receiver.setSecret(secret);
    const c = await first!.customer('C001');
    const mis = (await addIntegration(first!.service.store, 'MIS')).api_key;
    const ids: string[] = [];
    for (const [i, t] of instances.entries()) {
      const sent = await post(t, '/api/v1/ordini', order('C001', `WAKE-${i}`), c.apiKey);
      assert.equal(sent.status, 201, JSON.stringify(sent.json));
      ids.push(String(sent.json.id_ordine));
    }
    for (const [i, t] of instances.entries()) {
      const r = await post(t, `/api/v1/ordini/${ids[i]}/stato`, { stato: 'in_lavorazione' }, mis);
      assert.equal(r.status, 200, JSON.stringify(r.json));
    }
    const got = await waitFor(() => (receiver.received.length >= ids.length ? receiver.received : undefined), WITHIN_MS,
      'the status webhooks, well before the one-minute poll');
    const bodies = got.map((r) => JSON.parse(r.body) as { type: string; data: { id_ordine: string; stato_produzione: string } });
    assert.ok(got.every((r) => r.verified), 'signatures verify');
    assert.deepEqual(bodies.map((b) => b.type), ids.map(() => 'ordine.stato_aggiornato'));
    assert.deepEqual(bodies.map((b) => b.data.id_ordine).sort(), [...ids].sort());
    assert.ok(bodies.every((b) => b.data.stato_produzione === 'in_lavorazione'));
  } finally {
    await receiver.close();
  }
}

void describe('a production status report wakes the hand-off', () => {
  void it('sqlite: the webhook arrives without waiting for the poll', async () => {
    const t = await startTestService(SLOW_POLL);
    try {
      await statusWebhooks([t]);
    } finally {
      await t.close();
    }
  });

  void it('postgres, two instances: a report on either reaches the fan-out at once', { skip: PG_SKIP }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'status_wake');
    const env = { ...SLOW_POLL, INTAKE_DATABASE_URL: schema.url };
    const a = await startTestService(env);
    const b = await startTestService(env);
    try {
      await statusWebhooks([a, b]);
    } finally {
      await b.close();
      await a.close();
      await schema.drop();
    }
  });
});
