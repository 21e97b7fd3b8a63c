// Two instances of the service on one PostgreSQL database, each with its own SMTP server: every message is stored,
// judged and answered exactly once, whichever instance received it and whichever sends the replies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { order, waitFor } from '../../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { FAST_RETRY, received, startMail, startSink } from './helpers.ts';

void describe('e-mail on PostgreSQL', { skip: PG_SKIP }, () => {
  void it('answers each message once when two instances share the database', async () => {
    const schema = await createSchema(testDatabaseUrl!, 'mail');
    const sink = await startSink();
    const env = { INTAKE_SMTP_RELAY: sink.url };
    const a = await startMail({ databaseUrl: schema.url, env, retry: FAST_RETRY });
    const b = await startMail({ databaseUrl: schema.url, env, retry: FAST_RETRY });
    try {
      const c = await a.t.customer('C001');
      const subjects = Array.from({ length: 6 }, (_, i) => `Ordine PG ${i}`);
      await Promise.all(subjects.map((subject, i) => (i % 2 ? b : a).send({
        to: c.mailbox, subject, attachments: [{ filename: `o${i}.json`, content: JSON.stringify(order('C001', `PG-${i}`)) }],
      })));
      const store = a.t.service.store;
      await waitFor(async () => {
        const sent = await store.listReplies({ state: 'sent' });
        return sent.length === subjects.length ? true : undefined;
      }, 20_000, 'every reply sent');
      assert.deepEqual(sink.messages.map((m) => /^Re: (Ordine PG \d) \[esito: OK/.exec(m.parsed.subject ?? '')?.[1]).sort(), subjects,
        'one reply per message, none twice');
      const messages = await store.listMailMessages({ state: 'done' });
      assert.equal(messages.length, subjects.length);
      const customer = (await store.getCustomerByCode('C001'))!;
      const submissions = await store.listSubmissions({ customerId: customer.id });
      assert.equal(submissions.filter((s) => s.channel === 'email').length, subjects.length, 'each attachment received once');
      for (let i = 0; i < subjects.length; i++) assert.ok(await store.getOrderByRef(customer.id, `PG-${i}`));
    } finally {
      await a.close();
      await b.close();
      await sink.close();
      await schema.drop();
    }
  });

  void it('registers the order of a message whose long subject has an emoji where the kept label is cut', async () => {
    const schema = await createSchema(testDatabaseUrl!, 'mail');
    const sink = await startSink();
    const h = await startMail({ databaseUrl: schema.url, env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY });
    try {
      const c = await h.t.customer('C001');
      // The submission keeps the first 200 UTF-16 units of the subject: the 200th is the first half of 🚚.
      const subject = `${'Ordine urgente '.padEnd(199, '.')}🚚 consegna entro venerdì`;
      await h.send({ to: c.mailbox, subject, attachments: [{ filename: 'o.json', content: JSON.stringify(order('C001', 'PG-EMOJI')) }] });
      const reply = await received(sink, (m) => (m.parsed.subject ?? '').startsWith('Re: Ordine urgente'), 20_000);
      assert.match(reply.parsed.subject ?? '', /\[esito: OK, 1 ordine accettato\]$/);
      const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
      assert.ok(await h.t.service.store.getOrderByRef(customer.id, 'PG-EMOJI'), 'the order is registered');
    } finally {
      await h.close();
      await sink.close();
      await schema.drop();
    }
  });
});
