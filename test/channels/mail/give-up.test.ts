// A message given up after repeated failed attempts (MAIL_LIMITS.deriveAttempts) whose first file had already been
// judged and its order registered in an earlier attempt: the reply must give that file's outcome (its order number),
// never say that no order was registered. Otherwise the customer believes nothing went through.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import MailComposer from 'nodemailer/lib/mail-composer';
import { MAIL_LIMITS } from '../../../src/channels/mail/limits.ts';
import { order, waitFor, type TestCustomer } from '../../helpers/service.ts';
import { FAST_RETRY, received, startMail, startSink, type MailHarness, type Sink } from './helpers.ts';

void describe('a message given up after repeated failures', () => {
  let h: MailHarness;
  let sink: Sink;
  let c1: TestCustomer;

  before(async () => {
    sink = await startSink();
    // FAST_RETRY: the reply may be queued by the service's own pipeline, whose sender has no relay; this one polls.
    h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url }, retry: FAST_RETRY });
    c1 = await h.t.customer('C001');
  });
  after(async () => {
    await h?.close();
    await sink?.close();
  });

  void it('reports the files judged in an earlier attempt, with their order numbers', async () => {
    const store = h.t.service.store;
    const customer = (await store.getCustomerByCode('C001'))!;
    const raw = await new MailComposer({
      from: 'tentativi@cliente.it', to: c1.mailbox, subject: 'Due file', text: 'ordini',
      attachments: [
        { filename: 'primo.json', content: JSON.stringify(order('C001', 'GIVE-UP-1')) },
        { filename: 'secondo.json', content: JSON.stringify(order('C001', 'GIVE-UP-2')) },
      ],
    }).compile().build();
    const id = '0190a000-0000-7000-8000-0000000000aa';
    // Held (as by an instance deriving it) until the attempts below are counted.
    await store.saveMailMessages([{
      id, customerId: customer.id, source: 'smtp', envelopeFrom: 'tentativi@cliente.it', recipients: [c1.mailbox], raw,
      sha256: id.padEnd(64, '0'), receivedAt: new Date().toISOString(), claimMs: 1500,
    }]);
    // What the first attempts did before failing on the second file each time: the first file received, recorded
    // and judged (pipeline.ts, derive).
    const first = await h.t.service.intake.receive({
      principal: { customerId: customer.id, customerCode: customer.code }, channel: 'email', fileName: 'primo.json',
      raw: Buffer.from(JSON.stringify(order('C001', 'GIVE-UP-1'))), meta: { mail_id: id, mail_part: '0' }, singleOrder: false,
    });
    await store.addMailPart(id, 0, first.id);
    const outcome = await h.t.service.intake.process(first.id);
    const numero = outcome.orders[0]?.numero_ordine;
    assert.match(numero ?? '', /^\d{4}-\d{6}$/);
    for (let n = 0; n < MAIL_LIMITS.deriveAttempts; n++) await store.countMailAttempt(id);

    const m = await waitFor(async () => {
      const x = await store.getMailMessage(id);
      return x?.state === 'done' ? x : undefined;
    }, 20_000, 'the message to be given up');
    assert.match(m.result?.unreadable ?? '', /^attempts: /);
    const r = await received(sink, (x) => x.rcptTo.includes('tentativi@cliente.it'), 15_000, 'the reply');
    const text = r.parsed.text ?? '';
    assert.doesNotMatch(text, /nessun ordine è stato registrato/i, text);
    assert.match(text, new RegExp(`Ordine 1 \\(riferimento GIVE-UP-1\\): registrato con numero ${numero}`), text);
    assert.match(r.parsed.subject ?? '', /\[esito: ERRORE, 1 ordine accettato, 1 file non leggibil[ei]\]$/);
  });
});
