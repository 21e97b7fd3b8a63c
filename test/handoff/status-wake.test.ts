// A production status report wakes the hand-off at once, like a registration does: with the dispatcher's poll set to
// a minute, a webhook for ordine.stato_aggiornato still arrives within seconds. On PostgreSQL two instances share the
// store and a status is reported on each, so whichever holds the fan-out lease, one of the two reports reaches it
// only through the bell (LISTEN/NOTIFY). Before the status report rang the bell, these waited for the poll and failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
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

  void it('postgres: an event committed behind an older open transaction is delivered once that ends, not at the next poll', { skip: PG_SKIP }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'status_wake');
    const t = await startTestService({ ...SLOW_POLL, INTAKE_DATABASE_URL: schema.url });
    const older = new pg.Client({ connectionString: schema.url });
    const receiver = await startReceiver();
    try {
      const { secret } = await addWebhook(t.service.store, TEST_SECRET_KEY, { url: receiver.url, allowPrivate: true, events: 'ordine.registrato' });
      receiver.setSecret(secret);
      const c = await t.customer('C001');
      // Another writer's transaction, older than the order's: the order's event is committed but not readable
      // while it is open, so the round the order's commit kicks finds nothing to deliver.
      await older.connect();
      await older.query('BEGIN');
      await older.query('SELECT pg_current_xact_id()');
      // The hand-off's own question, watched: the round the order kicks must have found its event waiting before the
      // older transaction ends, or this test would not tell a look-again-soon from the next poll.
      const store = t.service.store;
      const ask = store.hasUnreadableEvents!.bind(store);
      let sawWaiting = false;
      store.hasUnreadableEvents = async () => {
        const waiting = await ask();
        sawWaiting ||= waiting;
        return waiting;
      };
      const sent = await post(t, '/api/v1/ordini', order('C001', 'BEHIND-1'), c.apiKey);
      assert.equal(sent.status, 201, JSON.stringify(sent.json));
      await waitFor(() => (sawWaiting ? true : undefined), WITHIN_MS, 'a hand-off round that found the event waiting');
      assert.equal(receiver.received.length, 0, 'nothing delivered while the event was not readable');
      await older.query('COMMIT');
      const [got] = await waitFor(() => (receiver.received.length > 0 ? receiver.received : undefined), WITHIN_MS,
        'the webhook once the older transaction ended, well before the one-minute poll');
      assert.equal((JSON.parse(got!.body) as { data: { id_ordine: string } }).data.id_ordine, sent.json.id_ordine);
    } finally {
      await older.end();
      await receiver.close();
      await t.close();
      await schema.drop();
    }
  });
});
