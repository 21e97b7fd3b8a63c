/**
 * The mail benchmark's reply sink (a real SMTP server in its own process, a real nodemailer client) and the matching
 * of replies to accepted messages: a reply is counted once, a second reply to the same message and a reply to an
 * unknown one are reported, a message without a reply is missing.
 * Run: node scripts/run-tests.mjs bench/test
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { inReplyTo, tallyReplies } from '../mail/replies.ts';
import { startSink, type RunningSink } from '../mail/setup.ts';
import type { AcceptedMail, ReplySeen } from '../mail/protocol.ts';

describe('mail benchmark: reply sink', () => {
  let sink: RunningSink;
  before(async () => {
    sink = await startSink();
  });
  after(async () => {
    await sink.stop();
  });

  it('receives replies over SMTP as the service sends them (null sender, raw bytes) and keeps their In-Reply-To', async () => {
    const transport = nodemailer.createTransport({ url: sink.url });
    try {
      const body = `${'x'.repeat(70)}\r\n`.repeat(2000); // 144 KB: the end of DATA arrives in a later chunk
      for (const id of ['<a-1@bench.localhost>', '<a-2@bench.localhost>']) {
        const raw = Buffer.from(`From: ordini@ordini.localhost\r\nTo: c@cliente.example\r\nSubject: Re: ordine\r\n`
          + `In-Reply-To:\r\n ${id}\r\n\r\n${body}.leading dot\r\n`);
        await transport.sendMail({ envelope: { from: '', to: ['c@cliente.example'] }, raw });
      }
    } finally {
      transport.close();
    }
    assert.equal(await sink.count(), 2);
    const { replies, connections } = await sink.collect();
    assert.deepEqual(replies.map((r) => r.inReplyTo), ['<a-1@bench.localhost>', '<a-2@bench.localhost>']);
    assert.ok(replies.every((r) => r.bytes > 140_000 && r.receivedAt > Date.now() - 60_000 && r.receivedAt <= Date.now() + 1));
    assert.equal(connections, 2);
  });
});

describe('mail benchmark: matching replies', () => {
  const mail = (n: number, startedAt: number, inWindow = true): AcceptedMail => ({ messageId: `<m-${n}@b>`, startedAt, acceptedAt: startedAt + 5, inWindow });
  const reply = (n: number, receivedAt: number): ReplySeen => ({ inReplyTo: `<m-${n}@b>`, receivedAt, bytes: 100 });

  it('measures submission → first reply for messages of the window, and reports missing, duplicate and unknown replies', () => {
    const accepted = [mail(1, 1000, false), mail(2, 2000), mail(3, 3000), mail(4, 4000)];
    const replies = [reply(1, 1500), reply(2, 2100), reply(2, 2200), reply(3, 3300), reply(9, 3400), { receivedAt: 3500, bytes: 1 }];
    const t = tallyReplies(accepted, replies, { from: 2000, to: 3350 });
    assert.equal(t.replied, 3);
    assert.equal(t.missing, 1);
    assert.deepEqual(t.missingSample, ['<m-4@b>']);
    assert.equal(t.duplicates, 1);
    assert.equal(t.unknown, 2);
    assert.equal(t.latency.count, 2); // message 1 is outside the window, message 4 has no reply
    assert.equal(t.latency.max, 300);
    assert.equal(t.latency.p50, 200);
    assert.equal(t.repliesInWindow, 3);
    assert.equal(t.lastReplyAt, 3500);
  });

  it('reads In-Reply-To from the header section only, folded or not', () => {
    assert.equal(inReplyTo(Buffer.from('Subject: x\r\nIN-REPLY-TO: <a@b>\r\n\r\nbody')), '<a@b>');
    assert.equal(inReplyTo(Buffer.from('Subject: x\r\nIn-Reply-To:\r\n\t<c@d>\r\n\r\n')), '<c@d>');
    assert.equal(inReplyTo(Buffer.from('Subject: x\r\n\r\nIn-Reply-To: <e@f>\r\n')), undefined);
  });
});
