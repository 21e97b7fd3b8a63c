// Subscribers fail independently (docs/development/handoff.md: "an ERP down for a day must not hold back the hot
// folder"; dispatcher.ts: "other endpoints keep their own slots"): a receiver that takes every request and never
// answers (a black-holed ERP: each attempt waits the whole timeout) must not stop another webhook's deliveries.
// The dispatcher holds at most MAX_HELD (256) deliveries; if the stuck endpoint's waiting deliveries take them all,
// nothing else is claimed until its attempts time out.
//
// The claim shares itself out per subscriber (ClaimOptions; dispatcher.ts PER_SUBSCRIBER_CLAIM): before, it handed out
// the earliest due deliveries whoever they were for, the stuck endpoint's backlog took every held slot until given
// back untried near the end of its claim, and the healthy webhook here got nothing at all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDispatcher } from '../../src/handoff/dispatcher.ts';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import { createLogger } from '../../src/log.ts';
import { waitFor } from '../helpers/service.ts';
import { memoryEvents, registeredOrder } from './memory-events.ts';
import { startReceiver } from './receiver.ts';
import { STORES, TEST_SECRET_KEY } from './stores.ts';

/** Longer than the test waits for the healthy endpoint: the stuck one frees no slot meanwhile. */
const TIMEOUT_MS = 16_000;
/** More events than the dispatcher holds at once (MAX_HELD), for each endpoint. */
const EVENTS = 600;

for (const [name, open] of STORES) {
  void describe(`hand-off isolation (${name})`, () => {
    void it('keeps delivering to a healthy webhook while another never answers', async () => {
      const opened = await open();
      const stuck = await startReceiver();
      const healthy = await startReceiver();
      stuck.answer = () => ({ status: 204, delayMs: 10 * TIMEOUT_MS });
      const a = await addWebhook(opened.store, TEST_SECRET_KEY, { url: stuck.url, allowPrivate: true });
      const b = await addWebhook(opened.store, TEST_SECRET_KEY, { url: healthy.url, allowPrivate: true });
      stuck.setSecret(a.secret);
      healthy.setSecret(b.secret);
      const events = memoryEvents();
      const dispatcher = startDispatcher({
        store: opened.store, events, log: createLogger('silent'), holder: 'test-isolation', secretKey: TEST_SECRET_KEY, agentVersion: 'test',
        options: { timeoutMs: TIMEOUT_MS, leaseMs: 3 * TIMEOUT_MS, pollMs: 20, retry: { firstMs: 1000, maxMs: 5000, giveUpMs: 600_000 } },
      });
      try {
        for (let i = 1; i <= EVENTS; i++) events.add('ordine.registrato', registeredOrder(i));
        const ids = new Set(events.events.map((e) => e.id));
        const delivered = () => new Set(healthy.received.filter((x) => ids.has(x.id)).map((x) => x.id)).size;
        await waitFor(() => (delivered() === EVENTS ? true : undefined), TIMEOUT_MS / 2, `all ${EVENTS} events at the healthy webhook`)
          .catch((e: Error) => {
            throw new Error(`${e.message}: it had ${delivered()}, while the stuck one held ${stuck.received.length} requests open`);
          });
        assert.ok(stuck.received.length <= 16, 'the stuck webhook gets no more requests at once than its slots');
      } finally {
        // The stuck receiver's connections are cut first, so its attempts end now rather than at the timeout.
        await stuck.close();
        await healthy.close();
        await dispatcher.close();
        await opened.cleanup();
      }
    });
  });
}
