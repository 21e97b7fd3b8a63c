// The store contract, event retention: pruneEvents deletes old events in bounded batches, never one a delivery is
// still pending for nor one at or after a subscriber's cursor, and a feed cursor at or before what it deleted is
// CURSOR_EXPIRED (410: the reader resyncs) while a made-up one stays INVALID_CURSOR (400).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import { IntakeError } from '../../src/domain/errors.ts';
import type { OrderEvent } from '../../src/domain/order-events.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, item, withStore, type StoreFactory } from './fixtures.ts';
import { READABLE_WITHIN_MS } from './pg-schema.ts';
import { readWhen } from '../helpers/wait.ts';

const expired = (e: unknown): boolean => e instanceof IntakeError && e.code === 'CURSOR_EXPIRED' && e.http === 410
  && /Risincronizza/.test(e.messages.join(' '));
const invalid = (e: unknown): boolean => e instanceof IntakeError && e.code === 'INVALID_CURSOR' && e.http === 400;
/** Later than every event of the test (they are all at(10), in 2025): everything is past retention. */
const FUTURE = '2100-01-01T00:00:00.000Z';

/** The whole stream once `count` events are readable (on PostgreSQL other tests' transactions may delay it; a bound, not a wait). */
export async function settled(store: Store, count: number): Promise<OrderEvent[]> {
  return readWhen(() => store.readEvents(null, 1000), (got) => got.length >= count, READABLE_WITHIN_MS);
}

async function fourEvents(store: Store): Promise<OrderEvent[]> {
  const c = await addCustomer(store, 'C001');
  const sub = await addSubmission(store, c);
  for (const ref of ['R1', 'R2', 'R3', 'R4']) await store.registerOrders([item(c, sub, ref)]);
  const events = await settled(store, 4);
  assert.equal(events.length, 4);
  return events;
}

export function retentionContract(makeStore: StoreFactory): void {
  void describe('order event retention', () => {
    void it('deletes old events, keeping pending deliveries\' events and the fan-out cursor; expired cursors are 410', () => withStore(makeStore, async (store) => {
      // A webhook added before the events has been given events 1-3 (its cursor is on 3): 1 and 3 delivered, 2 still
      // being retried.
      const hook = await store.addSubscriber({ id: uuidv7(), kind: 'webhook', url: 'https://erp.example/hook', events: ['ordine.registrato'] });
      const [e1, e2, e3, e4] = await fourEvents(store);
      const queued = [e1!, e2!, e3!].map((e) => ({ id: uuidv7(), eventId: e.id, eventType: e.type, orderKey: String(e.data.id_ordine), body: '{}' }));
      assert.equal(await store.appendDeliveries(hook.id, undefined, e3!.cursor, queued), true);
      const claimed = await store.claimDeliveries('A', 60_000, 10);
      assert.equal(claimed.length, 3);
      const byEvent = new Map(claimed.map((d) => [d.eventId, d.id]));
      assert.deepEqual(await store.finishDeliveries('A', [
        { id: byEvent.get(e1!.id)!, result: { outcome: 'done', status: 204 } },
        { id: byEvent.get(e2!.id)!, result: { outcome: 'retry', retryInMs: 60_000, status: 503, error: 'HTTP 503' } },
        { id: byEvent.get(e3!.id)!, result: { outcome: 'done', status: 204 } },
      ]), []);

      assert.equal(await store.pruneEvents(at(5), 100), 0, 'nothing is older than the cut-off');
      assert.equal(await store.pruneEvents(FUTURE, 100), 1, 'only event 1: 2 is pending, 3 is the cursor, 4 not fanned out');
      assert.deepEqual((await store.readEvents(null, 100)).map((e) => e.id), [e2!.id, e3!.id, e4!.id]);
      await assert.rejects(store.readEvents(e1!.cursor, 100), expired, 'a reader still at event 1 must resync');
      assert.deepEqual((await store.readEvents(e2!.cursor, 100)).map((e) => e.id), [e3!.id, e4!.id], 'after what was deleted: reads on');

      // The retried delivery is given up: its event may go now; the watermark moves past it.
      assert.equal(await store.replayDeliveries({ subscriberId: hook.id, deliveryId: byEvent.get(e2!.id)! }), 1);
      const [again] = await store.claimDeliveries('A', 60_000, 10);
      assert.equal(again!.eventId, e2!.id);
      assert.deepEqual(await store.finishDeliveries('A', [{ id: again!.id, result: { outcome: 'failed', error: 'gave up' } }]), []);
      assert.equal(await store.pruneEvents(FUTURE, 100), 1);
      await assert.rejects(store.readEvents(e2!.cursor, 100), expired);
      assert.deepEqual((await store.readEvents(e3!.cursor, 100)).map((e) => e.id), [e4!.id], 'the fan-out cursor still reads');
      assert.equal(await store.pruneEvents(FUTURE, 100), 0, 'event 3 is the cursor, event 4 is not fanned out yet');
    }));

    void it('deletes in batches of the limit, oldest first, and tells a made-up cursor from an expired one', () => withStore(makeStore, async (store) => {
      const events = await fourEvents(store);
      assert.equal(await store.pruneEvents(FUTURE, 1), 1);
      assert.equal(await store.pruneEvents(FUTURE, 2), 2);
      assert.deepEqual((await store.readEvents(null, 100)).map((e) => e.id), [events[3]!.id]);
      for (const e of events.slice(0, 3)) await assert.rejects(store.readEvents(e.cursor, 10), expired);
      assert.deepEqual(await store.readEvents(events[3]!.cursor, 10), []);
      const made = store.kind === 'sqlite' ? '999999' : events[3]!.cursor.replace(/_\d+$/, '_999999');
      await assert.rejects(store.readEvents(made, 10), invalid, 'a cursor after everything kept was never an event');
      // Without any subscriber, the newest may go too; the stream then starts empty and numbering goes on.
      assert.equal(await store.pruneEvents(FUTURE, 10), 1);
      assert.deepEqual(await store.readEvents(null, 10), []);
      await assert.rejects(store.readEvents(events[3]!.cursor, 10), expired);
    }));
  });
}
