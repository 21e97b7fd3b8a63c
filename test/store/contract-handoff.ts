// The store contract, hand-off part: subscribers, the fan-out's cursor moved with its deliveries in one step, claims
// on deliveries (one holder at a time, per-order sequence), results recorded only by the holder, replay
// (see src/domain/store/handoff.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { OrderEventType } from '../../src/domain/order-events.ts';
import type { NewDelivery, NewSubscriber } from '../../src/domain/store/handoff.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { settled } from './contract-retention.ts';
import { addCustomer, addSubmission, item, withStore, type StoreFactory } from './fixtures.ts';
import { waitFor } from '../helpers/wait.ts';

function webhook(over: Partial<NewSubscriber> = {}): NewSubscriber {
  return { id: randomUUID(), kind: 'webhook', url: 'https://erp.example/hook', secretEnc: 'v1:sealed', events: ['ordine.registrato'], ...over };
}

function delivery(order: string, type: OrderEventType = 'ordine.registrato'): NewDelivery {
  const eventId = randomUUID();
  return { id: randomUUID(), eventId, eventType: type, orderKey: order, body: JSON.stringify({ id: eventId, type, data: { id_ordine: order } }) };
}

async function queued(store: Store, list: NewDelivery[], over: Partial<NewSubscriber> = {}): Promise<string> {
  const s = await store.addSubscriber(webhook(over));
  assert.equal(await store.appendDeliveries(s.id, undefined, 'c1', list), true);
  return s.id;
}

export function handoffContract(makeStore: StoreFactory): void {
  void describe('hand-off subscribers and deliveries', () => {
    void it('adds, lists, disables and removes subscribers', () => withStore(makeStore, async (store) => {
      const w = await store.addSubscriber(webhook({ allowPrivate: true, events: ['ordine.registrato', 'ordine.rifiutato'] }));
      assert.equal(w.kind, 'webhook');
      assert.equal(w.allowPrivate, true);
      assert.equal(w.state, 'active');
      assert.equal(w.cursor, undefined);
      assert.deepEqual(w.events, ['ordine.registrato', 'ordine.rifiutato']);
      const e = await store.addSubscriber({ id: randomUUID(), kind: 'export', dir: '/srv/hot', format: 'xjdf', events: ['ordine.registrato'] });
      assert.deepEqual((await store.listSubscribers({ kind: 'export' })).map((s) => s.id), [e.id]);
      assert.equal((await store.listSubscribers({})).length, 2);
      assert.equal(await store.setSubscriberState(w.id, 'disabled', 'HTTP 410'), true);
      assert.equal((await store.getSubscriber(w.id))?.disabledReason, 'HTTP 410');
      assert.equal(await store.setSubscriberState('nope', 'disabled'), false);
      assert.equal(await store.removeSubscriber(e.id), true);
      assert.equal(await store.removeSubscriber(e.id), false);
      assert.equal(await store.getSubscriber(e.id), undefined);
    }));

    void it("keeps the connector a callback is bound to (migration 037)", () => withStore(makeStore, async (store) => {
      const owner = await addCustomer(store, 'C001');
      await store.createSite({ code: 'VR', name: 'Verona' });
      const keyId = randomUUID().replace(/-/g, '').slice(0, 12);
      const c = await store.createConnector({
        id: randomUUID(), customerId: owner.id, name: 'Shop', format: 'xjdf', sites: ['VR'], allowIps: [],
        key: { credentialId: randomUUID(), keyId, secretHash: `sha256:${keyId}` },
      });
      const cb = await store.addSubscriber(webhook({ connectorId: c.id, events: ['ordine.richiesta_esito'] }));
      const plain = await store.addSubscriber(webhook());
      assert.equal(cb.connectorId, c.id);
      assert.equal((await store.getSubscriber(cb.id))?.connectorId, c.id);
      assert.equal(plain.connectorId, undefined);
      assert.deepEqual((await store.listSubscribers({ kind: 'webhook' })).map((s) => [s.id, s.connectorId]).sort(),
        [[cb.id, c.id], [plain.id, undefined]].sort());
    }));

    void it('moves the cursor with the deliveries, and only from where the caller read', () => withStore(makeStore, async (store) => {
      const s = await store.addSubscriber(webhook());
      const first = [delivery('o1'), delivery('o2')];
      assert.equal(await store.appendDeliveries(s.id, undefined, 'c2', first), true);
      assert.equal((await store.getSubscriber(s.id))?.cursor, 'c2');
      // A second fan-out that read from the old cursor writes nothing.
      assert.equal(await store.appendDeliveries(s.id, undefined, 'c3', [delivery('o3')]), false);
      assert.equal(await store.appendDeliveries(s.id, 'c2', 'c3', [delivery('o3'), { ...first[0]!, id: randomUUID() }]), true);
      const list = await store.listDeliveries({ subscriberId: s.id });
      assert.deepEqual(list.map((d) => d.orderKey), ['o3', 'o2', 'o1'], 'newest first, the repeated event queued once');
      assert.deepEqual(list.map((d) => d.seq), [3, 2, 1]);
      assert.ok(list.every((d) => d.state === 'pending' && d.attempts === 0));
      assert.equal(await store.appendDeliveries('missing', undefined, 'c1', []), false);
    }));

    void it('shares a claim out per subscriber: a backlog queued first does not take it all', () => withStore(makeStore, async (store) => {
      // The first endpoint's five deliveries were due first (a receiver that never answers piles them up).
      const backlog = await queued(store, ['a1', 'a2', 'a3', 'a4', 'a5'].map((o) => delivery(o)));
      const other = await queued(store, [delivery('b1'), delivery('b2')]);
      const got = await store.claimDeliveries('A', 60_000, 10, { perSubscriber: 2 });
      assert.deepEqual(got.map((d) => d.orderKey).sort(), ['a1', 'a2', 'b1', 'b2'], 'two of each, the earliest due of each');
      // A subscriber the holder holds enough of gets none; the rest go on in order.
      const next = await store.claimDeliveries('A', 60_000, 10, { perSubscriber: 2, skip: [other] });
      assert.deepEqual(next.map((d) => d.orderKey), ['a3', 'a4']);
      assert.deepEqual((await store.claimDeliveries('A', 60_000, 10, { skip: [backlog] })).map((d) => d.orderKey), []);
      assert.deepEqual((await store.claimDeliveries('A', 60_000, 10)).map((d) => d.orderKey), ['a5'], 'without a share, the limit alone');
      await assert.rejects(store.claimDeliveries('A', 60_000, 10, { perSubscriber: 0 }), /positive whole number/);
    }));

    void it('claims a delivery for one holder at a time and counts the attempt', () => withStore(makeStore, async (store) => {
      await queued(store, [delivery('o1'), delivery('o2')]);
      const a = await store.claimDeliveries('A', 60_000, 10);
      assert.equal(a.length, 2);
      assert.ok(a.every((d) => d.attempts === 1 && d.body.includes('id_ordine')));
      assert.deepEqual(await store.claimDeliveries('B', 60_000, 10), [], 'held by A');
      assert.equal(await store.finishDelivery(a[0]!.id, 'B', { outcome: 'done' }), false, 'B does not hold it');
      assert.equal(await store.finishDelivery(a[0]!.id, 'A', { outcome: 'done', status: 204 }), true);
      assert.equal(await store.finishDelivery(a[0]!.id, 'A', { outcome: 'done' }), false, 'already finished');
      const done = await store.getDelivery(a[0]!.id);
      assert.equal(done?.state, 'done');
      assert.equal(done?.lastStatus, 204);
      assert.ok(done?.finishedAt);
    }));

    void it('takes over a delivery whose lease ran out', () => withStore(makeStore, async (store) => {
      await queued(store, [delivery('o1')]);
      const [a] = await store.claimDeliveries('A', 1, 10);
      // A's lease of 1 ms runs out by itself; B claims as soon as it has.
      const b = await waitFor(async () => (await store.claimDeliveries('B', 60_000, 10))[0], 5_000, 'the delivery claimed again once A\'s lease ran out');
      assert.equal(b.id, a?.id);
      assert.equal(b.attempts, 2);
      assert.equal(await store.finishDelivery(a!.id, 'A', { outcome: 'done' }), false, 'A lost it');
      assert.equal(await store.finishDelivery(b.id, 'B', { outcome: 'done' }), true);
    }));

    void it('keeps the deliveries of one order in sequence, and retries later', () => withStore(makeStore, async (store) => {
      const first = delivery('o1');
      const second = delivery('o1', 'ordine.stato_aggiornato');
      const other = delivery('o2');
      await queued(store, [first, second, other], { events: ['ordine.registrato', 'ordine.stato_aggiornato'] });
      const claimed = await store.claimDeliveries('A', 60_000, 10);
      assert.deepEqual(claimed.map((d) => d.id).sort(), [first.id, other.id].sort(), 'the second of o1 waits for the first');
      assert.equal(await store.finishDelivery(first.id, 'A', { outcome: 'retry', retryInMs: 60_000, status: 503, error: 'HTTP 503' }), true);
      assert.deepEqual(await store.claimDeliveries('A', 60_000, 10), [], 'o1 still pending: its second event waits; the first is not due');
      const again = await store.getDelivery(first.id);
      assert.equal(again?.state, 'pending');
      assert.equal(again?.lastError, 'HTTP 503');
      assert.ok(Date.parse(again!.nextAttemptAt) > Date.now() + 30_000);
      const due = await store.nextDeliveryDueInMs();
      assert.ok(due !== undefined && due > 30_000, `next due in ${due}`);
      // Given up: the order's next event may go.
      assert.equal(await store.replayDeliveries({ subscriberId: again!.subscriberId, deliveryId: first.id }), 1);
      const [retried] = await store.claimDeliveries('A', 60_000, 10);
      assert.equal(retried?.id, first.id);
      assert.equal(await store.finishDelivery(first.id, 'A', { outcome: 'failed', error: 'gave up' }), true);
      assert.deepEqual((await store.claimDeliveries('A', 60_000, 10)).map((d) => d.id), [second.id]);
    }));

    void it('does not hand out deliveries of a disabled subscriber, and replays failed ones', () => withStore(makeStore, async (store) => {
      const d = delivery('o1');
      const id = await queued(store, [d, delivery('o2')]);
      const [one] = await store.claimDeliveries('A', 60_000, 1);
      assert.equal(await store.finishDelivery(one!.id, 'A', { outcome: 'failed', status: 410, error: 'gone' }), true);
      await store.setSubscriberState(id, 'disabled', 'gone');
      assert.deepEqual(await store.claimDeliveries('A', 60_000, 10), []);
      assert.equal(await store.nextDeliveryDueInMs(), undefined);
      await store.setSubscriberState(id, 'active');
      assert.equal(await store.replayDeliveries({ subscriberId: id, state: 'failed' }), 1);
      const failed = await store.listDeliveries({ subscriberId: id, state: 'failed' });
      assert.deepEqual(failed, []);
      assert.equal((await store.claimDeliveries('A', 60_000, 10)).length, 2);
      assert.equal(await store.removeSubscriber(id), true);
      assert.equal(await store.getDelivery(d.id), undefined, 'deliveries go with their subscriber');
    }));

    void it('replaying a delivery under way does not hand it to a second holder', () => withStore(makeStore, async (store) => {
      // `webhook replay ID --delivery D` takes a delivery in any state: an operator may replay the one a slow
      // receiver is holding up while its attempt is still open. One attempt at a time per delivery all the same.
      const d = delivery('o1');
      const id = await queued(store, [d]);
      const [a] = await store.claimDeliveries('A', 60_000, 10);
      assert.equal(a?.id, d.id);
      assert.equal(await store.replayDeliveries({ subscriberId: id, deliveryId: d.id }), 1);
      assert.deepEqual(await store.claimDeliveries('B', 60_000, 10), [], 'A\'s attempt is still open');
      assert.equal(await store.finishDelivery(d.id, 'A', { outcome: 'done', status: 204 }), true, 'A\'s result is recorded');
      assert.equal((await store.getDelivery(d.id))?.state, 'done');
    }));

    void it('never hands one delivery to two stores on the same database at once', () => withStore(makeStore, async (store, handle) => {
      // :memory: has no second store; every other backend does.
      if (!handle.another) return;
      const second = await handle.another();
      try {
        await queued(store, Array.from({ length: 40 }, (_, i) => delivery(`o${i}`)));
        const [a, b] = await Promise.all([store.claimDeliveries('A', 60_000, 25), second.claimDeliveries('B', 60_000, 25)]);
        const ids = [...a, ...b].map((d) => d.id);
        assert.equal(new Set(ids).size, ids.length, 'no delivery claimed twice');
        assert.equal(ids.length, 40);
      } finally {
        await second.close();
      }
    }));

    void it('starts a new subscriber at the end of the stream, never on an expired cursor', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      await store.registerOrders([item(c, sub, 'R1')]);
      await store.registerOrders([item(c, sub, 'R2')]);
      const events = await settled(store, 2);
      assert.equal((await store.addSubscriber(webhook())).cursor, events[1]!.cursor, 'the events before it are history');
      // Everything deleted by retention (no subscriber holds it back: remove the one just added).
      for (const s of await store.listSubscribers({})) await store.removeSubscriber(s.id);
      assert.equal(await store.pruneEvents('2100-01-01T00:00:00.000Z', 10), 2);
      assert.equal((await store.addSubscriber(webhook())).cursor, undefined, 'an expired cursor would stop its fan-out for good');
    }));
  });
}
