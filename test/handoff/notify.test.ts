// E-mail notifications of production status changes, end to end on SQLite and PostgreSQL: the real service and its
// e-mail channel (SMTP in on port 0, the reply sender out to a real smtp-server sink standing in for the relay),
// orders received by e-mail and by an API channel, status reports written with their outbox events, the hand-off
// subscriber of kind mail turning the events into notifications. Off by default (a customer not switched on gets
// nothing); an order by e-mail is notified to the address its acknowledgement went to, threaded under it; another
// order to the customer's notification address; a note cannot add a header. On PostgreSQL two instances share the
// store: every notification is sent exactly once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAIL_SUBSCRIBER_ID } from '../../src/handoff/notify.ts';
import { setNotifications, showNotifications } from '../../src/handoff/notify-settings.ts';
import { updateProductionState } from '../../src/handoff/production.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { order, waitFor } from '../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { FAST_RETRY, startMail, startSink, type MailHarness, type Sink } from '../channels/mail/helpers.ts';

async function byApi(h: MailHarness, code: string, ref: string): Promise<string> {
  const c = (await h.t.service.store.getCustomerByCode(code))!;
  const { outcome } = await h.t.service.intake.submit({
    principal: { customerId: c.id, customerCode: c.code }, channel: 'rest', mediaType: 'application/json',
    raw: Buffer.from(JSON.stringify(order(code, ref))), singleOrder: true,
  });
  assert.equal(outcome.esito, 'ok', JSON.stringify(outcome));
  return outcome.orders[0]!.id_ordine!;
}

async function byMail(h: MailHarness, mailbox: string, ref: string): Promise<{ id: string; messageId: string }> {
  const subject = `Ordine ${ref}`;
  const messageId = `<${ref.toLowerCase()}@cliente.it>`;
  await h.send({ to: mailbox, subject, messageId, attachments: [{ filename: 'o.json', content: JSON.stringify(order('C001', ref)) }] });
  await h.finished('C001', subject);
  const c = (await h.t.service.store.getCustomerByCode('C001'))!;
  return { id: (await h.t.service.store.getOrderByRef(c.id, ref))!.id_ordine, messageId };
}

function report(store: Store, orderId: string, stato: 'in_lavorazione' | 'spedito', nota?: string) {
  return updateProductionState({ store }, { orderId, stato, nota, integration: 'MIS' });
}

async function notifies(h: MailHarness, sink: Sink, others: MailHarness[] = []): Promise<void> {
  const store = h.t.service.store;
  const c1 = await h.t.customer('C001');
  await h.t.customer('C002');
  assert.deepEqual((await showNotifications(store, 'C001')).settings, { enabled: false }, 'off until an operator turns it on');
  await assert.rejects(setNotifications(store, 'C001', { enabled: true, address: 'a@b.it\r\nBcc: x@y.it' }), /not one e-mail address/);
  const on = await setNotifications(store, 'C001', { enabled: true, address: 'Produzione@Cliente.IT' });
  assert.equal(on.settings.address, 'produzione@cliente.it');

  const mailed = await byMail(h, c1.mailbox, 'MAIL-1');
  const rest = await byApi(h, 'C001', 'REST-1');
  const quiet = await byApi(h, 'C002', 'QUIET-1');
  // Reported through every instance: whichever claims a delivery, it is queued and sent once.
  const via = [h, ...others];
  await report(via[0 % via.length]!.t.service.store, mailed.id, 'in_lavorazione', 'In stampa sulla macchina 2\r\nBcc: spia@esempio.it');
  await report(via[1 % via.length]!.t.service.store, rest, 'spedito', 'BRT 123456');
  await report(via[0]!.t.service.store, quiet, 'in_lavorazione');

  const first = await waitFor(() => sink.messages.find((m) => /^Ordine \d.*MAIL-1/.test(m.parsed.subject ?? '')), 20_000, 'the notification of the e-mail order');
  assert.deepEqual(first.rcptTo, ['mario@cliente.it'], 'the address that sent the order (and received its acknowledgement), nobody else');
  assert.equal(first.mailFrom, '', 'null sender, as the replies');
  assert.match(first.parsed.subject ?? '', /^Ordine \d{4}-\d{6} \(rif\. MAIL-1\): in lavorazione$/);
  assert.equal(first.parsed.inReplyTo, mailed.messageId, 'threaded under the order e-mail');
  assert.equal(first.parsed.headers.get('auto-submitted'), 'auto-generated');
  assert.equal(first.parsed.headers.get('bcc'), undefined, 'the note added no header');
  const text = first.parsed.text ?? '';
  assert.match(text, /L'ordine \d{4}-\d{6} \(Suo riferimento MAIL-1\) è in lavorazione\./);
  assert.match(text, /Aggiornamento del \d{2}\/\d{2}\/\d{4} \d{2}:\d{2} \(ora di Roma\)\./);
  assert.match(text, /Nota: In stampa sulla macchina 2 Bcc: spia@esempio\.it\n/, 'the note on one line');

  const second = await waitFor(() => sink.messages.find((m) => /^Ordine \d.*REST-1/.test(m.parsed.subject ?? '')), 20_000, 'the notification of the API order');
  assert.deepEqual(second.rcptTo, ['produzione@cliente.it'], 'an order not sent by e-mail goes to the notification address');
  assert.match(second.parsed.text ?? '', /è stato spedito\.[\s\S]*Nota: BRT 123456/);

  // C002 was never switched on: its delivery is made (and done) without an e-mail. Waited for by count: on
  // PostgreSQL an event is fanned out only once every transaction that was writing before it has ended, so "none
  // pending" alone can be true before the third delivery exists.
  const done = await waitFor(async () => {
    const list = await store.listDeliveries({ subscriberId: MAIL_SUBSCRIBER_ID });
    return list.length >= 3 && list.every((d) => d.state === 'done') ? list : undefined;
  }, 20_000, 'every notification delivery made');
  assert.equal(done.length, 3, 'one delivery per status event');
  const queued = (await store.listReplies({ limit: 100 })).filter((r) => r.kind === 'notification');
  assert.deepEqual(queued.map((r) => r.orderId).sort(), [mailed.id, rest].sort(), 'nothing queued for a customer that is off');
  await waitFor(async () => ((await store.listReplies({ state: 'sent', limit: 100 })).filter((r) => r.kind === 'notification').length === 2 ? true : undefined),
    10_000, 'both notifications marked sent');
  const notifications = sink.messages.filter((m) => /^Ordine \d/.test(m.parsed.subject ?? ''));
  assert.equal(notifications.length, 2, 'each notification sent once');

  // Turned off: the next report sends nothing.
  await setNotifications(store, 'C001', { enabled: false });
  await report(store, rest, 'spedito');
  await report(store, mailed.id, 'spedito');
  await waitFor(async () => ((await store.listDeliveries({ subscriberId: MAIL_SUBSCRIBER_ID })).filter((d) => d.state === 'done').length === 4 ? true : undefined),
    20_000, 'the delivery of the last report made');
  assert.equal((await store.listReplies({ limit: 100 })).filter((r) => r.kind === 'notification').length, 2, 'nothing queued once off');
}

void describe('e-mail notifications of production status', () => {
  void it('sqlite', async () => {
    const sink = await startSink();
    const h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY });
    try {
      await notifies(h, sink);
    } finally {
      await h.close();
      await sink.close();
    }
  });

  void it('postgres, two instances: each notification sent once', { skip: PG_SKIP }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'notify');
    const sink = await startSink();
    const env = { INTAKE_SMTP_RELAY: sink.url };
    const a = await startMail({ databaseUrl: schema.url, env, retry: FAST_RETRY });
    const b = await startMail({ databaseUrl: schema.url, env, retry: FAST_RETRY });
    try {
      await notifies(a, sink, [b]);
    } finally {
      await a.close();
      await b.close();
      await sink.close();
      await schema.drop();
    }
  });
});
