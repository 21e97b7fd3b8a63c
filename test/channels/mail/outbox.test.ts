// The reply queue: a relay that is down at first (the reply arrives once it is up, across a restart too), a relay
// that refuses for good, and no relay at all (replies kept in the store). The relay is a real SMTP server on a port
// that the test closes and opens.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { order, waitFor } from '../../helpers/service.ts';
import { FAST_RETRY, freePort, received, startMail, startSink, type MailHarness } from './helpers.ts';

const attachment = (ref: string) => [{ filename: 'o.json', content: JSON.stringify(order('C001', ref)) }];

async function replyOf(h: MailHarness, subject: string) {
  const m = await h.finished('C001', subject);
  assert.ok(m.result?.replyId, 'a reply was queued');
  return waitFor(async () => h.t.service.store.getReply(m.result!.replyId!), 5_000, 'the reply');
}

void describe('reply queue', () => {
  void it('keeps retrying while the relay is down, and delivers once it comes up', async () => {
    const port = await freePort();
    const h = await startMail({ env: { INTAKE_SMTP_RELAY: `smtp://127.0.0.1:${port}` }, retry: FAST_RETRY });
    let sink: Awaited<ReturnType<typeof startSink>> | undefined;
    try {
      const c = await h.t.customer('C001');
      await h.send({ to: c.mailbox, subject: 'Relay spento', attachments: attachment('O-DOWN-1') });
      const r = await replyOf(h, 'Relay spento');
      const failing = await waitFor(async () => {
        const x = await h.t.service.store.getReply(r.id);
        return x && x.attempts >= 2 && x.lastError ? x : undefined;
      }, 10_000, 'two failed attempts');
      assert.equal(failing.state, 'pending', `a relay that is down is not a reason to give up (last error: ${failing.lastError})`);
      assert.match(failing.lastError ?? '', /ECONNREFUSED/);

      sink = await startSink(port);
      const got = await received(sink, (m) => /^Re: Relay spento/.test(m.parsed.subject ?? ''));
      assert.deepEqual(got.rcptTo, ['mario@cliente.it']);
      const sent = await waitFor(async () => {
        const x = await h.t.service.store.getReply(r.id);
        return x?.state === 'sent' ? x : undefined;
      }, 5_000, 'the reply marked sent');
      // >= 2, not 3: the second attempt may still be under way (claimed, the first error still recorded) when the sink
      // comes up, and then it is the one that delivers.
      assert.ok(sent.attempts >= 2, `delivered after retrying (attempts: ${sent.attempts})`);
      assert.equal(sink.messages.length, 1, 'sent once');
    } finally {
      await h.close();
      await sink?.close();
    }
  });

  void it('sends after a restart a reply that could not be sent before it', async () => {
    const port = await freePort();
    const h = await startMail({ env: { INTAKE_SMTP_RELAY: `smtp://127.0.0.1:${port}` }, retry: FAST_RETRY });
    const c = await h.t.customer('C001');
    await h.send({ to: c.mailbox, subject: 'Prima del riavvio', attachments: attachment('O-RESTART-1') });
    const r = await replyOf(h, 'Prima del riavvio');
    await h.stop();

    const sink = await startSink(port);
    const again = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY, dataDir: h.t.dataDir });
    try {
      const got = await received(sink, (m) => /^Re: Prima del riavvio/.test(m.parsed.subject ?? ''));
      assert.equal(got.parsed.messageId, (await again.t.service.store.getReply(r.id))?.raw.toString().match(/^Message-ID: (.*)$/m)?.[1]?.trim());
      await waitFor(async () => ((await again.t.service.store.getReply(r.id))?.state === 'sent' ? true : undefined), 5_000, 'sent');
    } finally {
      await again.close();
      await sink.close();
    }
  });

  void it('gives up on a reply the relay refuses for good, and sends it again on request', async () => {
    let refuse = true;
    const sink = await startSink(0, { refuse: () => refuse });
    const h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY });
    try {
      const c = await h.t.customer('C001');
      await h.send({ to: c.mailbox, subject: 'Rifiutata', attachments: attachment('O-REFUSED-1') });
      const r = await replyOf(h, 'Rifiutata');
      const failed = await waitFor(async () => {
        const x = await h.t.service.store.getReply(r.id);
        return x?.state === 'failed' ? x : undefined;
      }, 10_000, 'the reply given up');
      assert.equal(failed.attempts, 1, 'a 5xx answer is not retried');
      assert.match(failed.lastError ?? '', /550 5\.1\.1/);

      refuse = false;
      assert.equal(await h.t.service.store.retryReply(r.id), true);
      await received(sink, (m) => /^Re: Rifiutata/.test(m.parsed.subject ?? ''));
    } finally {
      await h.close();
      await sink.close();
    }
  });

  void it('keeps replies in the store when no relay is configured', async () => {
    const h = await startMail();
    try {
      const c = await h.t.customer('C001');
      await h.send({ to: c.mailbox, subject: 'Senza relay', attachments: attachment('O-KEPT-1') });
      const r = await replyOf(h, 'Senza relay');
      assert.equal(r.state, 'pending');
      assert.equal(r.attempts, 0, 'nothing tries to send it');
      assert.equal(r.recipient, 'mario@cliente.it');
      assert.match(r.subject, /^Re: Senza relay \[esito: OK, 1 ordine accettato\]$/);
      assert.match(r.raw.toString('utf8'), /Auto-Submitted: auto-replied/);
    } finally {
      await h.close();
    }
  });
});
