// Event retention run by the dispatcher (the fan-out holder's sweep), on both stores: events older than the
// retention period go, younger ones stay. What may never go (pending deliveries, events not yet fanned out) is
// proven in the store contract (test/store/contract-retention.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startDispatcher } from '../../src/handoff/dispatcher.ts';
import { storeEventReader } from '../../src/handoff/reader.ts';
import { createLogger } from '../../src/log.ts';
import { waitFor } from '../helpers/service.ts';
import { addCustomer, addSubmission, item } from '../store/fixtures.ts';
import { STORES, TEST_SECRET_KEY } from './stores.ts';

const DAY = 24 * 60 * 60_000;

for (const [name, open] of STORES) {
  void describe(`event retention (${name})`, () => {
    void it('deletes events past the retention period in its sweep and keeps the younger ones', async () => {
      const opened = await open();
      const { store } = opened;
      try {
        const c = await addCustomer(store, 'C001');
        const sub = await addSubmission(store, c);
        const old = new Date(Date.now() - 100 * DAY).toISOString();
        const young = new Date(Date.now() - 10 * DAY).toISOString();
        await store.registerOrders([item(c, sub, 'OLD-1', { registeredAt: old }), item(c, sub, 'OLD-2', { registeredAt: old })]);
        await store.registerOrders([item(c, sub, 'YOUNG-1', { registeredAt: young })]);
        await waitFor(async () => ((await store.readEvents(null, 10)).length === 3 ? true : undefined), 15_000, 'three events readable');
        const d = startDispatcher({
          store, events: storeEventReader(store), log: createLogger('silent'), holder: 'retention-test', secretKey: TEST_SECRET_KEY, agentVersion: 'test',
          options: { timeoutMs: 400, leaseMs: 1500, pollMs: 20, retry: { firstMs: 40, maxMs: 150, giveUpMs: 60_000 }, retentionMs: 90 * DAY, pruneIntervalMs: 20 },
        });
        try {
          const left = await waitFor(async () => {
            const e = await store.readEvents(null, 10);
            return e.length === 1 ? e : undefined;
          }, 15_000, 'the old events deleted');
          assert.equal(left[0]!.data.riferimento_ordine, 'YOUNG-1');
        } finally {
          await d.close();
        }
        assert.equal((await store.readEvents(null, 10)).length, 1, 'the young one is kept');
      } finally {
        await opened.cleanup();
      }
    });
  });
}
