// The hand-off bell on PostgreSQL (LISTEN/NOTIFY): an instance that commits events wakes the instance holding the
// fan-out lease, which delivers at once instead of at its next poll. Both dispatchers poll once a minute here, so a
// delivery within seconds can only come from the bell. Also: many deliveries, several orders with several events
// each, go out batched and in parallel yet in event order per order, each once, verified by standardwebhooks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FANOUT_LEASE, startDispatcher, type HandoffOptions } from '../../src/handoff/dispatcher.ts';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import { createLogger } from '../../src/log.ts';
import { waitFor } from '../helpers/service.ts';
import { memoryEvents, registeredOrder } from './memory-events.ts';
import { startReceiver } from './receiver.ts';
import { STORES, TEST_SECRET_KEY } from './stores.ts';

const SLOW_POLL: HandoffOptions = { timeoutMs: 2000, leaseMs: 5000, pollMs: 60_000, retry: { firstMs: 40, maxMs: 150, giveUpMs: 60_000 } };

for (const [name, open] of STORES) {
  void describe(`hand-off wake-ups and batches (${name})`, () => {
    if (name === 'postgres') {
      void it('wakes the fan-out holder on another instance through LISTEN/NOTIFY', async () => {
        const opened = await open();
        const other = await opened.another();
        const receiver = await startReceiver();
        const { secret } = await addWebhook(opened.store, TEST_SECRET_KEY, { url: receiver.url, allowPrivate: true });
        receiver.setSecret(secret);
        const events = memoryEvents();
        const log = createLogger('silent');
        const holderB = startDispatcher({ store: opened.store, events, log, holder: 'B', secretKey: TEST_SECRET_KEY, agentVersion: 't', options: SLOW_POLL });
        let committer: ReturnType<typeof startDispatcher> | undefined;
        try {
          // B takes the fan-out lease in its first round; A, started after, cannot.
          await waitFor(async () => ((await opened.store.acquireLease(FANOUT_LEASE, 'B', 30_000)) ? true : undefined), 10_000, 'B holds the fan-out lease');
          committer = startDispatcher({ store: other, events, log, holder: 'A', secretKey: TEST_SECRET_KEY, agentVersion: 't', options: SLOW_POLL });
          await new Promise((r) => setTimeout(r, 300)); // both have had their first round and now sleep for a minute
          const e = events.add('ordine.registrato', registeredOrder(1));
          const t0 = Date.now();
          committer.kick(); // what A's intake does after committing
          await waitFor(async () => (receiver.received.length > 0 ? true : undefined), 10_000, 'the event delivered');
          assert.ok(Date.now() - t0 < 10_000);
          assert.equal(receiver.received[0]!.id, e.id);
          assert.equal(receiver.received[0]!.verified, true);
        } finally {
          await committer?.close();
          await holderB.close();
          await receiver.close();
          await opened.cleanup();
        }
      });
    }

    void it('delivers a backlog in batches and in parallel, each event once and in order per order', async () => {
      const opened = await open();
      const receiver = await startReceiver();
      const { secret } = await addWebhook(opened.store, TEST_SECRET_KEY, { url: receiver.url, allowPrivate: true });
      receiver.setSecret(secret);
      let open1 = 0;
      let most = 0;
      receiver.answer = () => {
        most = Math.max(most, ++open1);
        setTimeout(() => open1--, 20);
        return { status: 204, delayMs: 20 };
      };
      const events = memoryEvents();
      // 100 orders with 3 events each, interleaved as production would report them.
      const ids: string[] = [];
      for (let n = 0; n < 100; n++) ids.push(String(events.add('ordine.registrato', registeredOrder(n)).data.id_ordine));
      for (let round = 0; round < 2; round++) {
        for (const id of ids) events.add('ordine.stato_aggiornato', registeredOrder(0, { id_ordine: id, stato_produzione: round === 0 ? 'in_lavorazione' : 'spedito' }));
      }
      const d = startDispatcher({
        store: opened.store, events, log: createLogger('silent'), holder: 'solo', secretKey: TEST_SECRET_KEY, agentVersion: 't',
        options: { ...SLOW_POLL, pollMs: 20 },
      });
      try {
        await waitFor(async () => (receiver.received.length >= 300 ? true : undefined), 30_000, '300 deliveries');
        const got = receiver.received.map((r) => JSON.parse(r.body) as { id: string; data: { id_ordine: string; stato_produzione?: string } });
        assert.equal(new Set(got.map((g) => g.id)).size, 300, 'each event once');
        assert.ok(receiver.received.every((r) => r.verified));
        const seen = new Map<string, string[]>();
        for (const g of got) seen.set(g.data.id_ordine, [...(seen.get(g.data.id_ordine) ?? []), g.data.stato_produzione ?? 'registrato']);
        for (const id of ids) assert.deepEqual(seen.get(id), ['registrato', 'in_lavorazione', 'spedito'], `order ${id} in order`);
        assert.ok(most > 1, `several requests open at once to the endpoint (at most ${most})`);
      } finally {
        await d.close();
        await receiver.close();
        await opened.cleanup();
      }
    });
  });
}
