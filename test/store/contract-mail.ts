// The store contract, e-mail part: received messages (SMTP and IMAP, stored once), parts derived from them,
// finishing a message with its reply, the reply outbox (claims, retries, give-up), and IMAP mailboxes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import type { Customer, Store } from '../../src/domain/store/store.ts';
import type { NewMailMessage, NewMailReply } from '../../src/domain/store/mail.ts';
import { addCustomer, addSubmission, at, withStore, type StoreFactory } from './fixtures.ts';
import { waitFor } from '../helpers/wait.ts';

function mail(customer: Customer, over: Partial<NewMailMessage> = {}): NewMailMessage {
  return {
    id: randomUUID(), customerId: customer.id, source: 'smtp', envelopeFrom: 'buyer@example.it', recipients: [customer.mailbox],
    messageId: `<${randomUUID()}@example.it>`, raw: Buffer.from('Subject: ordine\r\n\r\nciao\r\n'), sha256: 'abc',
    remote: '192.0.2.1', receivedAt: at(1), ...over,
  };
}

function reply(m: NewMailMessage, over: Partial<NewMailReply> = {}): NewMailReply {
  return {
    id: randomUUID(), mailId: m.id, customerId: m.customerId, recipient: 'buyer@example.it', subject: 'Re: ordine [esito: OK]',
    raw: Buffer.from('Subject: Re: ordine\r\n\r\nok\r\n'), ...over,
  };
}

const isCode = (code: IntakeError['code']) => (e: unknown) => e instanceof IntakeError && e.code === code;

/** Polls until `check` gives a value: time passing is observed (a short claim running out), never slept on. */
const until = <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 5_000) => waitFor(check, timeoutMs, what);

async function sealed(store: Store, customer: Customer, over: Record<string, unknown> = {}) {
  return store.setImapAccount({
    id: randomUUID(), customerId: customer.id, host: 'imap.example.it', port: 993, tls: true, username: 'ordini@example.it',
    passwordEnc: 'v1:aaa:bbb:ccc', folder: 'INBOX', processedFolder: 'Elaborati', ...over,
  });
}

export function mailContract(makeStore: StoreFactory): void {
  void describe('mail messages', () => {
    void it('stores SMTP messages with their bytes and envelope, one per customer, in one call', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const raw = Buffer.from([0x46, 0x72, 0x00, 0xff, 0x0d, 0x0a]);
      const ma = mail(a, { raw, envelopeFrom: '' });
      const mb = mail(b, { raw, receivedAt: at(2) });
      await store.saveMailMessages([ma, mb]);
      const got = await store.getMailMessage(ma.id);
      assert.deepEqual(got?.raw, raw, 'raw bytes come back unchanged, NUL included');
      assert.equal(got?.envelopeFrom, '', 'the null sender is kept apart from "unknown"');
      assert.deepEqual(got?.recipients, [a.mailbox]);
      assert.equal(got?.state, 'received');
      assert.equal(got?.receivedAt, at(1));
      assert.deepEqual((await store.listMailMessages({ customerId: b.id })).map((m) => [m.id, m.size]), [[mb.id, raw.length]]);
      assert.deepEqual((await store.listMailMessages({})).map((m) => m.id), [mb.id, ma.id], 'newest first');
      await assert.rejects(store.saveMailMessages([mail(a), { ...ma }]), isCode('CONFLICT'));
      assert.equal((await store.listMailMessages({ customerId: a.id })).length, 1, 'a failed call stores nothing');
      await assert.rejects(store.saveMailMessages([mail({ ...a, id: 'nobody' })]), isCode('NOT_FOUND'));
    }));

    void it('stores an IMAP message once per UID and per Message-ID of the account', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const imap = { accountId: 'acc-1', uidValidity: '4294967295', uid: 4294967295 };
      const first = { ...mail(a, { source: 'imap', envelopeFrom: undefined }), imap };
      assert.equal(await store.saveImapMessage(first), 'stored');
      assert.equal(await store.saveImapMessage({ ...first, id: randomUUID(), messageId: undefined }), 'known', 'same UID');
      assert.equal(await store.saveImapMessage({ ...first, id: randomUUID(), imap: { ...imap, uidValidity: '7', uid: 1 } }), 'known',
        'same Message-ID after the mailbox was rebuilt');
      const other = { ...mail(a, { source: 'imap', messageId: undefined }), imap: { ...imap, uid: 12 } };
      assert.equal(await store.saveImapMessage(other), 'stored', 'another UID without Message-ID is another message');
      assert.equal(await store.saveImapMessage({ ...first, id: randomUUID(), imap: { ...imap, accountId: 'acc-2' } }), 'stored',
        'another account is another mailbox');
      const got = await store.getMailMessage(first.id);
      assert.deepEqual(got?.imap, imap, 'UIDs up to 2^32-1 survive');
      assert.equal(got?.envelopeFrom, undefined);
      await assert.rejects(store.saveImapMessage({ ...other, id: randomUUID(), imap: { ...imap, uid: 0 } }), isCode('VALIDATION'));
    }));

    void it('claims received messages so that only one holder derives each', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const held = mail(a, { receivedAt: at(1), claimMs: 60_000 });
      const free = mail(a, { receivedAt: at(2) });
      const brief = mail(a, { receivedAt: at(3), claimMs: 1 });
      await store.saveMailMessages([held, free, brief]);
      const pending = await until(async () => {
        const ids = await store.pendingMailIds(10);
        return ids.includes(brief.id) ? ids : undefined;
      }, 'the 1 ms claim to run out');
      assert.deepEqual(pending, [free.id, brief.id], 'a message its receiver still holds is not pending');
      assert.equal(await store.claimMail(held.id, 1000), false);
      assert.equal(await store.claimMail(free.id, 60_000), true);
      assert.equal(await store.claimMail(free.id, 60_000), false, 'claimed once');
      assert.deepEqual(await store.pendingMailIds(10), [brief.id]);
      assert.equal(await store.claimMail(brief.id, 60_000), true, 'a claim that ran out can be taken');
      assert.equal(await store.claimMail('nope', 1000), false);
    }));

    void it('renews a holder\'s claims on messages like submission claims, and gives them back on request', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const saved = mail(a, { receivedAt: at(1), claimMs: 300, claimBy: 'inst-a' });
      const swept = mail(a, { receivedAt: at(2) });
      const done = mail(a, { receivedAt: at(3), claimMs: 60_000, claimBy: 'inst-a' });
      await store.saveMailMessages([saved, swept, done]);
      assert.equal(await store.claimMail(swept.id, 300, 'inst-a'), true);
      assert.equal(await store.finishMail(done.id, { esito: 'nessun_ordine', submissions: [] }), true);
      assert.deepEqual(await store.renewMailClaims('inst-b', [saved.id, swept.id], 60_000), [], 'only the holder renews');
      assert.deepEqual(await store.renewMailClaims('inst-a', [saved.id, swept.id, done.id, 'nope'], 60_000), [saved.id, swept.id],
        'a finished message is no longer held');
      // Renewed for a minute: still held well after the 300 ms they were taken for.
      const other = mail(a, { receivedAt: at(4), claimMs: 1 });
      await store.saveMailMessages([other]);
      await until(async () => ((await store.pendingMailIds(10)).includes(other.id) ? true : undefined), 'the 1 ms claim to run out');
      assert.deepEqual(await store.pendingMailIds(10), [other.id], 'renewed claims outlive their first lease');
      assert.equal(await store.releaseMailClaims('inst-b', [saved.id]), 0, 'another holder cannot give them back');
      assert.equal(await store.releaseMailClaims('inst-a', [saved.id]), 1);
      assert.deepEqual(await store.pendingMailIds(10), [saved.id, other.id], 'a message given back is pending at once');
      assert.equal(await store.claimMail(saved.id, 60_000, 'inst-b'), true);
      await assert.rejects(store.renewMailClaims('', [saved.id], 1000), isCode('VALIDATION'));
      await assert.rejects(store.releaseMailClaims('inst-a', [saved.id, 3 as unknown as string]), isCode('VALIDATION'));
    }));

    void it('records parts once and finds derived submissions not yet recorded', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const m = mail(a);
      await store.saveMailMessages([m]);
      const s1 = await addSubmission(store, a, { channel: 'email', meta: { mail_id: m.id, mail_part: '0' }, receivedAt: at(2) });
      const s2 = await addSubmission(store, a, { channel: 'email', meta: { mail_id: m.id, mail_part: '1' }, receivedAt: at(3) });
      await addSubmission(store, a, { channel: 'email', meta: { mail_id: 'other', mail_part: '0' }, receivedAt: at(3) });
      await addSubmission(store, b, { channel: 'email', meta: { mail_id: m.id, mail_part: '5' }, receivedAt: at(3) });
      assert.equal(await store.addMailPart(m.id, 0, s1), s1);
      assert.equal(await store.addMailPart(m.id, 0, s2), s1, 'the first record of a part wins');
      assert.deepEqual(await store.mailParts(m.id), [{ idx: 0, submissionId: s1 }]);
      assert.deepEqual(await store.findMailSubmissions(a.id, m.id, at(1)), [{ idx: 0, submissionId: s1 }, { idx: 1, submissionId: s2 }],
        'only this customer\'s submissions of this message');
      assert.deepEqual(await store.findMailSubmissions(a.id, m.id, at(3)), [{ idx: 1, submissionId: s2 }], 'received since');
      await assert.rejects(store.addMailPart(m.id, -1, s1), isCode('VALIDATION'));
    }));

    void it('finishes a message once, queueing its reply in the same step', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const m = mail(a, { claimMs: 60_000 });
      await store.saveMailMessages([m]);
      const r = reply(m);
      assert.equal(await store.finishMail(m.id, { esito: 'ok', submissions: ['s1'], replyId: r.id }, r), true);
      assert.equal(await store.finishMail(m.id, { esito: 'errore', submissions: [] }, reply(m)), false, 'already done');
      const got = await store.getMailMessage(m.id);
      assert.equal(got?.state, 'done');
      assert.deepEqual(got?.result, { esito: 'ok', submissions: ['s1'], replyId: r.id });
      assert.match(got?.doneAt ?? '', /^\d{4}-\d{2}-\d{2}T/);
      assert.deepEqual(await store.pendingMailIds(10), []);
      assert.equal(await store.claimMail(m.id, 1000), false, 'a finished message is not claimed');
      const replies = await store.listReplies({ customerId: a.id });
      assert.equal(replies.length, 1);
      assert.equal(replies[0]!.state, 'pending');
      assert.ok(!('raw' in replies[0]!));
      assert.deepEqual((await store.getReply(r.id))?.raw, r.raw);
      await assert.rejects(store.finishMail('nope', { esito: 'ok', submissions: [] }), isCode('NOT_FOUND'));
      const quiet = mail(a);
      await store.saveMailMessages([quiet]);
      assert.equal(await store.finishMail(quiet.id, { esito: 'ok', submissions: [], noReply: 'bounce' }), true);
      assert.equal((await store.listReplies({})).length, 1, 'no reply queued when none is given');
    }));
  });

  void describe('reply outbox', () => {
    void it('claims due replies once, retries them later, gives up, and sends again on request', () => withStore(makeStore, async (store, handle) => {
      const a = await addCustomer(store, 'A001');
      const m1 = mail(a, { receivedAt: at(1) });
      const m2 = mail(a, { receivedAt: at(2) });
      await store.saveMailMessages([m1, m2]);
      const r1 = reply(m1);
      const r2 = reply(m2);
      await store.finishMail(m1.id, { esito: 'ok', submissions: [] }, r1);
      await store.finishMail(m2.id, { esito: 'ok', submissions: [] }, r2);
      assert.equal(await store.nextReplyDueInMs(), 0, 'both are due now');

      // Two instances share a PostgreSQL database; SQLite serves one process, whose store object keeps the claims.
      const other = handle.another && store.kind === 'postgres' ? await handle.another() : store;
      try {
        const [x, y] = await Promise.all([store.claimDueReplies(60_000, 10), other.claimDueReplies(60_000, 10)]);
        const ids = [...x, ...y].map((r) => r.id).sort();
        assert.deepEqual(ids, [r1.id, r2.id].sort(), 'each reply handed out once across instances');
      } finally {
        if (other !== store) await other.close();
      }
      assert.deepEqual(await store.claimDueReplies(60_000, 10), [], 'taken replies are not due while the lease runs');
      const due = await store.nextReplyDueInMs();
      assert.ok(due !== undefined && due > 50_000 && due <= 60_000, `next due in about a minute, got ${due}`);

      await store.markReplyFailed(r1.id, 'connect ECONNREFUSED', 1);
      await store.markReplySent(r2.id);
      const again = await until(async () => {
        const list = await store.claimDueReplies(60_000, 10);
        return list.length ? list : undefined;
      }, 'the failed reply to be due again');
      assert.deepEqual(again.map((r) => [r.id, r.attempts, r.lastError]), [[r1.id, 2, 'connect ECONNREFUSED']]);
      assert.deepEqual(again[0]!.raw, r1.raw);
      await store.markReplyFailed(r1.id, '550 no such user');
      const failed = await store.listReplies({ state: 'failed' });
      assert.deepEqual(failed.map((r) => [r.id, r.lastError]), [[r1.id, '550 no such user']]);
      const sent = await store.getReply(r2.id);
      assert.equal(sent?.state, 'sent');
      assert.match(sent?.sentAt ?? '', /^\d{4}-/);
      assert.equal(await store.nextReplyDueInMs(), undefined, 'nothing pending');

      assert.equal(await store.retryReply(r2.id), false, 'a sent reply is not sent again');
      assert.equal(await store.retryReply('nope'), false);
      assert.equal(await store.retryReply(r1.id), true);
      assert.deepEqual((await store.claimDueReplies(1000, 10)).map((r) => r.id), [r1.id]);
      await assert.rejects(store.claimDueReplies(0, 10), isCode('VALIDATION'));
    }));
  });

  void describe('IMAP mailboxes', () => {
    void it('keeps one mailbox per customer, its UID state, and starts over when the mailbox changes', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const acc = await sealed(store, a);
      assert.equal(acc.lastUid, 0);
      assert.equal(acc.tls, true);
      assert.equal(acc.processedFolder, 'Elaborati');
      await sealed(store, b, { processedFolder: undefined, tls: false, port: 143 });
      await store.saveImapState(acc.id, { uidValidity: '42', lastUid: 4294967295 });
      let got = await store.getImapAccount(a.id);
      assert.equal(got?.uidValidity, '42');
      assert.equal(got?.lastUid, 4294967295);
      assert.match(got?.lastCheckedAt ?? '', /^\d{4}-/);
      await store.saveImapState(acc.id, { uidValidity: '42', lastUid: 7, lastError: 'LOGIN failed' });
      assert.equal((await store.getImapAccount(a.id))?.lastError, 'LOGIN failed');

      got = await sealed(store, a, { passwordEnc: 'v1:new:new:new', id: 'ignored' });
      assert.equal(got.id, acc.id, 'the same customer keeps its mailbox record');
      assert.equal(got.lastUid, 7, 'a new password does not forget what was seen');
      assert.equal(got.lastError, undefined);
      got = await sealed(store, a, { folder: 'Ordini' });
      assert.equal(got.lastUid, 0, 'another folder has other UIDs');
      assert.equal(got.uidValidity, undefined);

      const list = await store.listImapAccounts();
      const byCustomer = list.map((x) => [x.customerId, x.tls, x.processedFolder]).sort((x, y) => (x[0] === a.id ? -1 : y[0] === a.id ? 1 : 0));
      assert.deepEqual(byCustomer, [[a.id, true, 'Elaborati'], [b.id, false, undefined]]);
      assert.equal(await store.removeImapAccount(b.id), true);
      assert.equal(await store.removeImapAccount(b.id), false);
      assert.equal(await store.getImapAccount(b.id), undefined);
      await assert.rejects(sealed(store, a, { passwordEnc: 'hunter2' }), isCode('VALIDATION'));
      await assert.rejects(sealed(store, a, { processedFolder: 'Ordini', folder: 'Ordini' }), isCode('VALIDATION'));
      await assert.rejects(sealed(store, { ...a, id: 'nobody' }), isCode('NOT_FOUND'));
    }));
  });
}
