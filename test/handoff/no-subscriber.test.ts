// With no active subscriber the hand-off costs the store almost nothing (issue 16): a round lists the subscribers
// at most once a second and neither fans out nor claims, however often it polls or is kicked. Before, every poll
// (200 ms by default) listed them and ran a claim: 10 of an idle PostgreSQL instance's 11 commits a second. A webhook
// added meanwhile is still served, from its cursor, a second or so later, with nothing lost.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDispatcher, type HandoffOptions } from '../../src/handoff/dispatcher.ts';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import { createLogger } from '../../src/log.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { waitFor } from '../helpers/service.ts';
import { memoryEvents, registeredOrder } from './memory-events.ts';
import { startReceiver } from './receiver.ts';
import { STORES, TEST_SECRET_KEY } from './stores.ts';

/** The store, with counts of the calls a round makes. */
function counted(store: Store): { store: Store; calls: Record<string, number> } {
  const calls: Record<string, number> = { listSubscribers: 0, claimDeliveries: 0 };
  const watched = new Proxy(store, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function') return v;
      if (typeof prop === 'string' && prop in calls) {
        return (...args: unknown[]) => {
          calls[prop]!++;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return v.bind(target);
    },
  });
  return { store: watched, calls };
}

const FAST_POLL: HandoffOptions = { timeoutMs: 2000, leaseMs: 5000, pollMs: 20, retry: { firstMs: 40, maxMs: 150, giveUpMs: 60_000 } };

for (const [name, open] of STORES) {
  void describe(`hand-off with nobody subscribed (${name})`, () => {
    void it('asks the store at most once a second, then serves a webhook added meanwhile', async () => {
      const opened = await open();
      const { store, calls } = counted(opened.store);
      const events = memoryEvents();
      const d = startDispatcher({ store, events, log: createLogger('silent'), holder: 'solo', secretKey: TEST_SECRET_KEY, agentVersion: 't', options: FAST_POLL });
      const receiver = await startReceiver();
      try {
        // 1.5 s of 20 ms polls (75 rounds) and a kick every 10 ms, as under load.
        const started = Date.now();
        while (Date.now() - started < 1500) {
          d.kick();
          await new Promise((r) => setTimeout(r, 10));
        }
        assert.equal(calls.claimDeliveries, 0, 'no claim without a subscriber');
        assert.ok(calls.listSubscribers! <= 3, `subscribers listed ${calls.listSubscribers} times in 1.5 s`);

        const { secret } = await addWebhook(opened.store, TEST_SECRET_KEY, { url: receiver.url, allowPrivate: true });
        receiver.setSecret(secret);
        const e = events.add('ordine.registrato', registeredOrder(1));
        d.kick();
        const got = await waitFor(() => (receiver.received.length > 0 ? receiver.received : undefined), 15_000, 'the webhook added after the rounds that found none');
        assert.equal((JSON.parse(got[0]!.body) as { id: string }).id, e.id);
      } finally {
        await d.close();
        await receiver.close();
        await opened.cleanup();
      }
    });
  });
}
