// The Italian of the reply e-mails, as a customer's mail program shows it: messages sent with swaks (a real SMTP
// client) to the service, replies captured by the test relay.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { execFile } from 'node:child_process';
import type { TestCustomer } from '../../helpers/service.ts';
import { received, startMail, startSink, type MailHarness, type Sink } from './helpers.ts';

void describe('reply wording', () => {
  let h: MailHarness;
  let sink: Sink;
  let c1: TestCustomer;

  before(async () => {
    sink = await startSink();
    h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url } });
    c1 = await h.t.customer('C001');
  });
  after(async () => {
    await h?.close();
    await sink?.close();
  });

  /** swaks runs beside the in-process server: asynchronously, or the server could not answer it. */
  function swaks(subject: string): Promise<void> {
    const args = ['--server', `127.0.0.1:${h.smtpPort}`, '--to', c1.mailbox, '--from', 'ufficio@cliente.it',
      '--header', `Subject: ${subject}`, '--body', 'Vorrei 500 biglietti da visita.', '--silent', '2'];
    return new Promise((resolve, reject) => {
      execFile('swaks', args, { timeout: 20_000 }, (err, stdout, stderr) => (err ? reject(new Error(`swaks: ${err.message} ${stderr}${stdout}`)) : resolve()));
    });
  }

  void it('a message without attachments is answered "nel Suo messaggio", with or without a subject', async () => {
    await swaks('Ordine senza allegato');
    const withSubject = await received(sink, (m) => m.parsed.subject?.startsWith('Re: Ordine senza allegato [') ?? false);
    assert.match(withSubject.parsed.text ?? '', /^nel Suo messaggio "Ordine senza allegato", ricevuto il /m);
    await swaks('');
    const without = await received(sink, (m) => m.parsed.subject?.startsWith('Re: il Suo messaggio [') ?? false);
    assert.match(without.parsed.text ?? '', /^nel Suo messaggio, ricevuto il /m);
    for (const text of [withSubject.parsed.text ?? '', without.parsed.text ?? '']) {
      assert.doesNotMatch(text, /\b(in|di|a|da|su) (il|lo|la|i|gli|le) /, 'articulated prepositions are written joined');
    }
  });
});
