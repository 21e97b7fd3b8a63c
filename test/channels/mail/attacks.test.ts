// The SMTP server under the attacks of issue 19 (items 6, 7, 8), each made for real over TCP on the loopback:
// idle connections that fill the slots, mailbox guessing, and messages the parser cannot read.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MAIL_LIMITS } from '../../../src/channels/mail/limits.ts';
import { order, waitFor, type TestCustomer } from '../../helpers/service.ts';
import { flood, loopbacks } from '../../helpers/flood.ts';
import { converse, received, startMail, startSink, type MailHarness, type Sink } from './helpers.ts';

/** Messages the parser gives up on, and the refusal SMTP answers them with at DATA time. */
const POISON: [string, () => string, RegExp][] = [
  ['1,000 nested multiparts', () => {
    let s = 'From: a@cliente.it\r\nSubject: nested\r\nMIME-Version: 1.0\r\n';
    for (let i = 0; i < 1000; i++) s += `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`;
    s += 'Content-Type: text/plain\r\n\r\nciao\r\n';
    for (let i = 999; i >= 0; i--) s += `--b${i}--\r\n`;
    return s;
  }, /^554 5\.6\.0 Message refused: more than 50 nested/],
  // The MIME parser reads a header name up to the colon, trimmed: a blank before the colon hides nothing.
  ['1,000 nested multiparts written "Content-Type : multipart/mixed"', () => {
    let s = 'From: a@cliente.it\r\nSubject: nested\r\nMIME-Version: 1.0\r\n';
    for (let i = 0; i < 1000; i++) s += `Content-Type${i % 2 ? ' ' : '\t'}: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n`;
    s += 'Content-Type : text/plain\r\n\r\nciao\r\n';
    for (let i = 999; i >= 0; i--) s += `--b${i}--\r\n`;
    return s;
  }, /^554 5\.6\.0 Message refused: more than 50 nested/],
  ['a 2 MB header', () => `From: a@cliente.it\r\nSubject: big\r\nX-Big: ${'a'.repeat(2 * 1024 * 1024)}\r\n\r\nciao\r\n`, /^552 5\.3\.4 Message refused: its header section is/],
  ['100,000 headers', () => {
    let s = 'From: a@cliente.it\r\nSubject: many\r\n';
    for (let i = 0; i < 100_000; i++) s += `X-H: ${i}\r\n`;
    return `${s}\r\nciao\r\n`;
  }, /^552 5\.3\.4 Message refused: its header section is/],
];

void describe('SMTP under attack', () => {
  let h: MailHarness;
  let c1: TestCustomer;

  before(async () => {
    h = await startMail({ recipientLimits: { free: 3, perConnection: 10, delayMs: 20, delayMaxMs: 100, memoryMs: 60_000 } });
    c1 = await h.t.customer('C001');
  });
  after(async () => {
    await h?.close();
  });

  const sendOrder = (ref: string) => h.send({
    to: c1.mailbox, subject: ref, text: 'ordine',
    attachments: [{ filename: 'ordine.json', content: JSON.stringify(order('C001', ref)), contentType: 'application/json' }],
  });

  void it('50 idle connections from one address cost that address its slots, not the customer his', async () => {
    const f = await flood(h.smtpPort, ['127.0.0.2'], 50);
    try {
      assert.equal(f.open().length, MAIL_LIMITS.smtpWaitingPerAddress, 'only the per-address share stays open');
      assert.ok(f.closed().every((s) => s.text.includes('421 4.7.0 Too many connections from your address')), 'the others are told why');
      const r = await sendOrder('R-FLOOD-1');
      assert.match(r.response, /^250 /);
    } finally {
      f.destroy();
    }
  });

  void it('idle connections from many addresses: the oldest waiting one gives way, the customer is served', async () => {
    const f = await flood(h.smtpPort, loopbacks(10, 8), 10);
    try {
      const open = f.open().length;
      assert.ok(open <= MAIL_LIMITS.smtpClients - MAIL_LIMITS.smtpReservedForTrusted, `waiting connections stay within their share (${open} open)`);
      assert.ok(f.closed().some((s) => /421 4\.7\.0 Connection closed to make room/.test(s.text)), 'the oldest were closed to make room');
      const r = await sendOrder('R-FLOOD-2');
      assert.match(r.response, /^250 /);
    } finally {
      f.destroy();
    }
  });

  void it('mailbox guessing: the connection is closed after a few unknown recipients', async () => {
    const socket = connect({ port: h.smtpPort, host: '127.0.0.1', localAddress: '127.0.0.40' });
    let text = '';
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await waitFor(() => (text.startsWith('220') ? true : undefined), 5000, 'greeting');
    socket.write('EHLO guesser.test\r\nMAIL FROM:<g@guesser.test>\r\n');
    await waitFor(() => (/250 .*\r\n[\s\S]*250 .*Accepted/.test(text) || /\r\n250 [^\r]*\r\n250 /.test(text) ? true : undefined), 5000, 'MAIL FROM accepted');
    // 3,000 guesses pipelined, as the attack sent them (4,400 a second before this fix).
    const guesses = Array.from({ length: 3000 }, (_, i) => `RCPT TO:<c001-${String(i).padStart(6, 'a')}@ordini.test>\r\n`).join('');
    socket.write(guesses);
    await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('the guesser was never disconnected')), 20_000))]);
    const refusals = text.match(/^550 /gm)?.length ?? 0;
    assert.equal(refusals, 9, 'nine unknown recipients refused one by one');
    assert.match(text, /421 4\.7\.0 Too many unknown recipients/);
  });

  void it('new mailboxes carry 80 random bits', () => {
    assert.match(c1.mailbox, /^c001-[a-z2-7]{16}@ordini\.test$/);
  });

  for (const [name, make, expected] of POISON) {

    void it(`refused at DATA time, never acknowledged: ${name}`, async () => {
      const replies = await converse(h.smtpPort, [
        'EHLO cliente.it\r\n', 'MAIL FROM:<a@cliente.it>\r\n', `RCPT TO:<${c1.mailbox}>\r\n`, 'DATA\r\n', `${make()}\r\n.\r\n`,
      ], 20_000);
      assert.match(replies.at(-1) ?? '', expected);
      const customer = await h.t.service.store.getCustomerByCode('C001');
      const stored = await h.t.service.store.listMailMessages({ customerId: customer!.id });
      assert.ok(stored.every((m) => m.size < 1024 * 1024), 'nothing of it was stored');
      const outbox = await h.t.service.store.listReplies({ customerId: customer!.id });
      assert.ok(outbox.every((r) => r.recipient !== 'a@cliente.it'), 'no reply to the sender');
    });
  }
});

void describe('poison messages that got in anyway (IMAP, or stored before the DATA checks)', () => {
  let h: MailHarness;
  let sink: Sink;
  let c1: TestCustomer;

  before(async () => {
    sink = await startSink();
    h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url, INTAKE_SWEEP_INTERVAL_MS: '200' } });
    c1 = await h.t.customer('C001');
  });
  after(async () => {
    await h?.close();
    await sink?.close();
  });

  const store = () => h.t.service.store;
  async function keep(id: string, raw: string, claimMs?: number): Promise<void> {
    const customer = await store().getCustomerByCode('C001');
    await store().saveMailMessages([{
      id, customerId: customer!.id, source: 'imap', recipients: [c1.mailbox], raw: Buffer.from(raw), sha256: id.padEnd(64, '0'),
      receivedAt: new Date().toISOString(), claimMs,
    }]);
  }

  for (const [i, [name, make]] of POISON.entries()) {
    void it(`finished with a reply that says it could not be read: ${name}`, async () => {
      const id = `0190a000-0000-7000-8000-00000000000${i}`;
      await keep(id, make().replace('From: a@cliente.it', `From: a${i}@cliente.it`));
      const m = await waitFor(async () => {
        const x = await store().getMailMessage(id);
        return x?.state === 'done' ? x : undefined;
      }, 20_000, 'the poison message to be finished');
      assert.equal(m.result?.esito, 'errore');
      assert.match(m.result?.unreadable ?? '', /^structure: /);
      assert.equal(m.attempts, 1, 'given up at the first attempt: the same bytes fail the same way every time');
      const r = await received(sink, (x) => x.rcptTo.includes(`a${i}@cliente.it`), 15_000, 'the reply');
      assert.match(r.parsed.subject ?? '', /\[esito: ERRORE, messaggio non leggibile\]/);
      assert.match(r.parsed.text ?? '', /non è stato possibile leggere il Suo messaggio/);
      assert.match(r.parsed.text ?? '', /struttura del messaggio supera i limiti/);
    });
  }

  void it('a message whose reading keeps failing is given up after a bounded number of attempts', async () => {
    const id = '0190a000-0000-7000-8000-0000000000ff';
    // Held (as by an instance that took it and then crashed) until the three attempts below are counted.
    await keep(id, 'From: ripetuto@cliente.it\r\nSubject: ordine\r\n\r\nciao\r\n', 1500);
    // Three attempts that ended without finishing it (a crash each time, say): the next one gives up.
    for (let n = 0; n < 3; n++) await store().countMailAttempt(id);
    const m = await waitFor(async () => {
      const x = await store().getMailMessage(id);
      return x?.state === 'done' ? x : undefined;
    }, 20_000, 'the message to be finished');
    assert.match(m.result?.unreadable ?? '', /^attempts: /);
    assert.equal(m.attempts, 4);
    const r = await received(sink, (x) => x.rcptTo.includes('ripetuto@cliente.it'), 15_000, 'the reply');
    assert.match(r.parsed.text ?? '', /ripetuti tentativi/);
  });
});
