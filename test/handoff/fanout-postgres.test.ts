// A webhook receives every event committed after it was added (docs/operators/webhooks-and-export.md), also one
// whose transaction was already open when the webhook was added: on PostgreSQL an instance's registration can take
// its event time, then commit after an operator's `webhook add` on another machine. The interleaving is forced, as in
// test/store/events-postgres.test.ts: transaction A writes its event with the store's own statement and stays open
// while the webhook is added, then commits. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { fanOut } from '../../src/handoff/fanout.ts';
import { storeEventReader } from '../../src/handoff/reader.ts';
import { insertEventsQuery } from '../../src/store/postgres/events.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { addCustomer, addSubmission, item } from '../store/fixtures.ts';
import { createSchema, PG_SKIP, READABLE_WITHIN_MS, testDatabaseUrl } from '../store/pg-schema.ts';
import { waitFor } from '../helpers/service.ts';

void describe('PostgreSQL fan-out to a webhook added while an order commits', { skip: PG_SKIP }, () => {
  void it('delivers an event committed after the webhook was added, though its time is older', async () => {
    const schema = await createSchema(testDatabaseUrl!);
    const store = await openPostgresStore(testDatabaseUrl!, { schema: schema.name, max: 4 });
    const a = new pg.Client({ connectionString: schema.url });
    try {
      await store.migrate();
      await a.connect();
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      // History before the webhook: not for it (the feed is there for that).
      const [before] = await store.registerOrders([item(c, sub, 'BEFORE', { registeredAt: new Date().toISOString() })]);
      await waitFor(async () => ((await store.readEvents(null, 10)).length === 1 ? true : undefined), READABLE_WITHIN_MS, 'the first event');

      // A: an instance's registration, its event written (timed when the registration began, a moment ago) but not
      // yet committed.
      const late = { id: uuidv7(), type: 'ordine.registrato' as const, time: new Date(Date.now() - 1000).toISOString(), customerId: c.id,
        data: { id_ordine: uuidv7(), riferimento_ordine: 'LATE', codice_cliente: 'C001' } };
      await a.query('BEGIN');
      await a.query(...insertEventsQuery([late]));
      // Meanwhile the operator adds a webhook.
      const hook = await store.addSubscriber({ id: uuidv7(), kind: 'webhook', url: 'https://erp.example/hook', secretEnc: 'v1:x',
        events: ['ordine.registrato'] });
      await a.query('COMMIT');
      const [after] = await store.registerOrders([item(c, sub, 'AFTER', { registeredAt: new Date().toISOString() })]);

      const reader = storeEventReader(store);
      const ids = await waitFor(async () => {
        await fanOut(store, reader);
        const list = await store.listDeliveries({ subscriberId: hook.id });
        return list.some((d) => d.orderKey === after!.id_ordine) ? list.map((d) => d.eventId) : undefined;
      }, READABLE_WITHIN_MS, 'the order registered after the webhook fanned out');
      assert.ok(ids.includes(late.id), 'the event committed after the webhook was added is queued for it');
      const events = await store.readEvents(null, 10);
      const first = events.find((e) => e.data.id_ordine === before!.id_ordine)!;
      assert.ok(!ids.includes(first.id), 'the history before the webhook is not');
      assert.equal(ids.length, 2);
    } finally {
      await a.end().catch(() => undefined);
      await store.close();
      await schema.drop();
    }
  });
});
