// The notification settings and the notifier's view of an order, on SQLite and PostgreSQL: off without a row; the
// address kept, replaced or removed as asked; the subscriber made sure of at start when a customer is on (a store
// filled by `db copy` has settings but no subscriber); a notification queued once per id; who is written to.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { MAIL_SUBSCRIBER_ID, recipientOf, REQUEST_SUBSCRIBER_ID } from '../../src/handoff/notify.ts';
import { restoreMailSubscriber } from '../../src/handoff/notify-settings.ts';
import type { NotificationTarget } from '../../src/domain/store/notifications.ts';
import { STORES } from './stores.ts';

for (const [name, open] of STORES) {
  void describe(`notification settings (${name})`, () => {
    void it('are off without a row, keep or replace the address, and bring the subscriber back at start', async () => {
      const { store, cleanup } = await open();
      try {
        const c = (await provisionCustomer(store, { code: 'C001', name: 'Cliente' }, 'ordini.test')).customer;
        assert.deepEqual(await store.getNotifySettings(c.id), { enabled: false });
        assert.equal(await store.notificationsInUse(), false);
        assert.equal(await restoreMailSubscriber(store), false, 'nobody on: no subscriber');
        assert.equal(await store.getSubscriber(MAIL_SUBSCRIBER_ID), undefined);

        const on = await store.setNotifySettings(c.id, { enabled: true, address: 'Ufficio@Cliente.it' });
        assert.deepEqual([on.enabled, on.address], [true, 'ufficio@cliente.it']);
        assert.equal((await store.setNotifySettings(c.id, { enabled: true })).address, 'ufficio@cliente.it', 'kept');
        assert.equal((await store.setNotifySettings(c.id, { enabled: true, address: null })).address, undefined, 'removed');
        assert.equal(await store.notificationsInUse(), true);
        // As after `db copy`: a customer on, no subscriber yet.
        assert.equal(await restoreMailSubscriber(store), true);
        assert.equal(await restoreMailSubscriber(store), true, 'again: still one');
        assert.deepEqual((await store.listSubscribers({})).map((s) => [s.id, s.kind]).sort(), [[MAIL_SUBSCRIBER_ID, 'mail'], [REQUEST_SUBSCRIBER_ID, 'mail']]);

        const n = { id: '0193a000-0000-7000-8000-000000000001', customerId: c.id, orderId: 'o1', recipient: 'a@b.it', subject: 'S', raw: Buffer.from('x') };
        assert.equal(await store.queueNotification(n), true);
        assert.equal(await store.queueNotification({ ...n, subject: 'another' }), false, 'the same id is queued once');
        const r = await store.getReply(n.id);
        assert.deepEqual([r?.kind, r?.mailId, r?.orderId, r?.subject, r?.state], ['notification', undefined, 'o1', 'S', 'pending']);
      } finally {
        await cleanup();
      }
    });
  });
}

void describe('who a status notification is for', () => {
  const base: NotificationTarget = { orderId: 'o', customerId: 'c', mailbox: 'c001@ordini.test', channel: 'rest', settings: { enabled: true } };
  void it('follows the rules of docs/operators/notifications.md', () => {
    assert.deepEqual(recipientOf({ ...base, settings: { enabled: false, address: 'x@y.it' } }), { skip: 'notifications are off for this customer' });
    assert.match(JSON.stringify(recipientOf(base)), /came by rest, not by e-mail, and no notification address/);
    assert.deepEqual(recipientOf({ ...base, settings: { enabled: true, address: 'x@y.it' } }), { to: 'x@y.it' });
    const mail = { ...base, channel: 'email' as const, mail: { mailId: 'm', done: true, repliedTo: 'mario@cliente.it' } };
    assert.deepEqual(recipientOf({ ...mail, settings: { enabled: true, address: 'x@y.it' } }), { to: 'mario@cliente.it' }, 'the sender first');
    assert.ok('later' in recipientOf({ ...mail, mail: { mailId: 'm', done: false } }), 'the order e-mail is still being processed');
    const robot = { ...mail, mail: { mailId: 'm', done: true, noReply: 'automatic message (Auto-Submitted: auto-generated)' } };
    assert.match(JSON.stringify(recipientOf(robot)), /got no acknowledgement \(automatic message/);
    assert.deepEqual(recipientOf({ ...robot, settings: { enabled: true, address: 'x@y.it' } }), { to: 'x@y.it' });
  });
});
