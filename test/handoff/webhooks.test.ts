// Webhook deliveries end to end on both stores: the dispatcher (fan-out, claims, attempts) against a real receiver
// that verifies signatures with the standardwebhooks package. Retries, timeouts, 410, redirects, unreachable
// receivers, refused addresses and per-order sequence, each observed on the receiver and in the store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDispatcher, type Dispatcher, type HandoffOptions } from '../../src/handoff/dispatcher.ts';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import { createLogger } from '../../src/log.ts';
import type { Subscriber } from '../../src/domain/store/handoff.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { waitFor } from '../helpers/service.ts';
import { memoryEvents, registeredOrder, type MemoryEvents } from './memory-events.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { STORES, TEST_SECRET_KEY } from './stores.ts';

const FAST: HandoffOptions = { timeoutMs: 400, leaseMs: 1500, pollMs: 20, retry: { firstMs: 40, maxMs: 150, giveUpMs: 60_000 } };

interface Rig {
  store: Store;
  events: MemoryEvents;
  receiver: Receiver;
  webhook: Subscriber;
  secret: string;
  dispatcher: Dispatcher;
}

async function rig(store: Store, opts: Partial<HandoffOptions> = {},
  hook: { url?: string | ((r: Receiver) => string); events?: string; allowPrivate?: boolean } = {}): Promise<Rig> {
  const receiver = await startReceiver();
  const url = typeof hook.url === 'function' ? hook.url(receiver) : hook.url ?? receiver.url;
  const { webhook, secret } = await addWebhook(store, TEST_SECRET_KEY, { url, allowPrivate: hook.allowPrivate ?? true, events: hook.events });
  receiver.setSecret(secret);
  const events = memoryEvents();
  const dispatcher = startDispatcher({
    store, events, log: createLogger('silent'), holder: `test-${webhook.id}`, secretKey: TEST_SECRET_KEY, agentVersion: 'test',
    options: { ...FAST, ...opts },
  });
  return { store, events, receiver, webhook, secret, dispatcher };
}

async function deliveryOf(r: Rig, eventId: string) {
  return (await r.store.listDeliveries({ subscriberId: r.webhook.id, limit: 1000 })).find((d) => d.eventId === eventId);
}

for (const [name, open] of STORES) {
  void describe(`webhooks (${name})`, () => {
    async function run(fn: (store: Store) => Promise<Rig>, check: (r: Rig) => Promise<void>): Promise<void> {
      const opened = await open();
      let r: Rig | undefined;
      try {
        r = await fn(opened.store);
        await check(r);
      } finally {
        await r?.dispatcher.close();
        await r?.receiver.close();
        await opened.cleanup();
      }
    }

    void it('delivers each subscribed event once, signed, with the event id as webhook-id', () => run((s) => rig(s, {}, { events: 'ordine.registrato' }), async (r) => {
      const e1 = r.events.add('ordine.registrato', registeredOrder(1));
      r.events.add('ordine.rifiutato', { stato: 'rifiutato', codice_cliente: 'C001', riferimento_ordine: 'X' });
      const e3 = r.events.add('ordine.registrato', registeredOrder(2));
      await waitFor(() => (r.receiver.received.length >= 2 ? true : undefined), 10_000, 'two deliveries');
      await waitFor(async () => ((await deliveryOf(r, e3.id))?.state === 'done' ? true : undefined), 5000, 'recorded as done');
      assert.deepEqual(r.receiver.received.map((x) => x.id), [e1.id, e3.id], 'only ordine.registrato, in order');
      assert.ok(r.receiver.received.every((x) => x.verified), 'standardwebhooks verifies every signature');
      const body = JSON.parse(r.receiver.received[0]!.body) as Record<string, unknown>;
      assert.deepEqual(body, { id: e1.id, type: e1.type, time: e1.time, cursor: e1.cursor, data: e1.data });
      assert.ok(Math.abs(Number(r.receiver.received[0]!.timestamp) - Date.now() / 1000) < 60);
      const d = await deliveryOf(r, e1.id);
      assert.equal(d?.attempts, 1);
      assert.equal(d?.lastStatus, 204);
    }));

    void it('retries after a 5xx with the same webhook-id and body, then finishes', () => run((s) => rig(s), async (r) => {
      let calls = 0;
      r.receiver.answer = () => ({ status: ++calls <= 2 ? 503 : 200 });
      const e = r.events.add('ordine.registrato', registeredOrder(1));
      const d = await waitFor(async () => {
        const x = await deliveryOf(r, e.id);
        return x?.state === 'done' ? x : undefined;
      }, 10_000, 'delivered after retries');
      assert.equal(d.attempts, 3);
      assert.equal(d.lastStatus, 200);
      assert.equal(r.receiver.received.length, 3);
      assert.deepEqual(new Set(r.receiver.received.map((x) => x.id)), new Set([e.id]));
      assert.equal(new Set(r.receiver.received.map((x) => x.body)).size, 1, 'the same body every time');
    }));

    void it('gives up on a slow receiver at the timeout and tries again', () => run((s) => rig(s), async (r) => {
      let slow = true;
      r.receiver.answer = () => ({ status: 200, delayMs: slow ? 3000 : 0 });
      const e = r.events.add('ordine.registrato', registeredOrder(1));
      const timedOut = await waitFor(async () => {
        const x = await deliveryOf(r, e.id);
        return x?.lastError?.includes('no answer within 400 ms') ? x : undefined;
      }, 10_000, 'a timed-out attempt');
      assert.equal(timedOut.state, 'pending');
      slow = false;
      await waitFor(async () => ((await deliveryOf(r, e.id))?.state === 'done' ? true : undefined), 10_000, 'delivered once fast');
    }));

    void it('bounds the name lookup by the timeout too, so an attempt never outlasts its claim', () => {
      // The host is resolved at every attempt (the SSRF check). A resolver that hangs for longer than the claim
      // (system DNS retries can take tens of seconds) must not keep the attempt alive past it: once the claim runs
      // out the delivery is claimed again, and the late first attempt would then post it a second time, beside the
      // new one (one attempt at a time per delivery, docs/operators/webhooks-and-export.md).
      let lookups = 0;
      let slowDone = false;
      const resolve = async () => {
        if (++lookups === 1) {
          await new Promise((r) => setTimeout(r, FAST.leaseMs + 300));
          slowDone = true;
        }
        return [{ address: '127.0.0.1', family: 4 as const }];
      };
      return run((s) => rig(s, { resolve }, { url: (receiver) => `http://localhost:${receiver.port}/hook` }), async (r) => {
        const e = r.events.add('ordine.registrato', registeredOrder(1));
        const done = await waitFor(async () => {
          const x = await deliveryOf(r, e.id);
          return x?.state === 'done' ? x : undefined;
        }, 10_000, 'delivered');
        // Every attempt has ended once the dispatcher is closed (close waits for them): nothing more can arrive.
        await waitFor(async () => (slowDone ? true : undefined), 10_000, 'the slow lookup returned');
        await r.dispatcher.close();
        assert.equal(r.receiver.received.filter((x) => x.id === e.id).length, 1,
          `posted once (${done.attempts} attempts); the lookup that outlasted the claim must not lead to a post`);
      });
    });

    void it('disables the webhook when the receiver answers 410', () => run((s) => rig(s), async (r) => {
      r.receiver.answer = () => ({ status: 410 });
      const e = r.events.add('ordine.registrato', registeredOrder(1));
      await waitFor(async () => ((await r.store.getSubscriber(r.webhook.id))?.state === 'disabled' ? true : undefined), 10_000, 'disabled');
      // The result is recorded with the next batch of results, a moment after the webhook is disabled.
      const d = await waitFor(async () => {
        const found = await deliveryOf(r, e.id);
        return found?.state === 'pending' ? undefined : found;
      }, 10_000, 'the delivery finished');
      assert.equal(d?.state, 'failed');
      assert.equal(d?.lastStatus, 410);
      assert.match((await r.store.getSubscriber(r.webhook.id))!.disabledReason!, /410/);
      const seen = r.receiver.received.length;
      r.events.add('ordine.registrato', registeredOrder(2));
      // The dispatcher polls every 20 ms: 20 rounds later, nothing more went to the disabled endpoint.
      await new Promise((res) => setTimeout(res, 400));
      assert.equal(r.receiver.received.length, seen);
      assert.equal(seen, 1);
    }));

    void it('keeps retrying an unreachable receiver, then fails and keeps the delivery; replay sends it', () => run(async (s) => {
      const closed = await startReceiver();
      const url = closed.url;
      await closed.close();
      return rig(s, { retry: { firstMs: 40, maxMs: 100, giveUpMs: 600 } }, { url });
    }, async (r) => {
      const e = r.events.add('ordine.registrato', registeredOrder(1));
      const failed = await waitFor(async () => {
        const x = await deliveryOf(r, e.id);
        return x?.state === 'failed' ? x : undefined;
      }, 10_000, 'given up');
      assert.match(failed.lastError!, /ECONNREFUSED/);
      assert.ok(failed.attempts >= 2, `attempts ${failed.attempts}`);
      assert.equal(r.receiver.received.length, 0);
      assert.equal(await r.store.replayDeliveries({ subscriberId: r.webhook.id, state: 'failed' }), 1);
      await waitFor(async () => ((await deliveryOf(r, e.id))!.attempts > failed.attempts ? true : undefined), 10_000, 'attempted again after replay');
    }));

    void it('does not follow a redirect', () => run((s) => rig(s), async (r) => {
      r.receiver.answer = (x) => (x.path === '/hook' ? { status: 302, headers: { location: `http://127.0.0.1:${r.receiver.port}/elsewhere` } } : { status: 200 });
      const e = r.events.add('ordine.registrato', registeredOrder(1));
      const d = await waitFor(async () => {
        const x = await deliveryOf(r, e.id);
        return x && x.attempts >= 2 && x.state === 'pending' ? x : undefined;
      }, 10_000, 'two refused attempts');
      assert.equal(d.lastStatus, 302);
      assert.match(d.lastError!, /redirect .* not followed/);
      assert.ok(r.receiver.received.every((x) => x.path === '/hook'), 'the redirect target was never called');
    }));

    // A private address, and an IPv4-compatible IPv6 one (::/96, which address libraries take for public unicast).
    for (const { address, family, said } of [
      { address: '10.1.2.3', family: 4 as const, said: /10\.1\.2\.3 is private/ },
      { address: '::a9fe:a9fe', family: 6 as const, said: /::a9fe:a9fe is ipv4Compatible/ },
    ]) {
      void it(`refuses ${address}, found at delivery time, without connecting`, () => run(
        (s) => rig(s, { resolve: async () => [{ address, family }] }, { url: 'https://erp.example.test/hook', allowPrivate: false }),
        async (r) => {
          const e = r.events.add('ordine.registrato', registeredOrder(1));
          const d = await waitFor(async () => {
            const x = await deliveryOf(r, e.id);
            return x?.lastError ? x : undefined;
          }, 10_000, 'a refused attempt');
          assert.match(d.lastError!, said);
          assert.equal(d.state, 'pending');
          assert.equal(d.lastStatus, undefined, 'no HTTP exchange happened');
        },
      ));
    }

    void it('delivers the events of one order in order, a later one waiting for a retried earlier one', () => run((s) => rig(s), async (r) => {
      const order = registeredOrder(1);
      let first = true;
      // Only the order's own registration fails once: the other order's may go out first (order is per order).
      r.receiver.answer = (x) => {
        if (x.id === reg.id && first) {
          first = false;
          return { status: 500 };
        }
        return { status: 200 };
      };
      const reg = r.events.add('ordine.registrato', order);
      const upd = r.events.add('ordine.stato_aggiornato', { ...order, stato_produzione: 'in_lavorazione' });
      const other = r.events.add('ordine.registrato', registeredOrder(2));
      await waitFor(async () => ((await deliveryOf(r, upd.id))?.state === 'done' ? true : undefined), 10_000, 'all delivered');
      const ids = r.receiver.received.map((x) => x.id);
      assert.deepEqual(ids.filter((id) => id !== other.id), [reg.id, reg.id, upd.id], 'the update only after the registration succeeded');
    }));
  });
}
