// The store contract, senders' trust part: the authentication results kept with a message, holds (held, released,
// discarded, retried: each decided once), senders' policies, and the trusted authserv-id of an IMAP mailbox.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import type { Customer } from '../../src/domain/store/store.ts';
import type { MailAuth } from '../../src/domain/store/mail-trust.ts';
import { addCustomer, at, withStore, type StoreFactory } from './fixtures.ts';

const isCode = (code: IntakeError['code']) => (e: unknown) => e instanceof IntakeError && e.code === code;

const AUTH: MailAuth = {
  header: 'Authentication-Results: intake.test; spf=fail smtp.mailfrom=bank.test; dmarc=fail header.from=bank.test',
  from: 'ceo@bank.test', spf: { result: 'fail', domain: 'bank.test' }, dkim: [], dmarc: { result: 'fail', domain: 'bank.test', policy: 'reject' },
  at: at(1),
};

async function received(store: Parameters<Parameters<typeof withStore>[1]>[0], c: Customer) {
  const id = randomUUID();
  await store.saveMailMessages([{
    id, customerId: c.id, source: 'smtp', envelopeFrom: 'ceo@bank.test', recipients: [c.mailbox], raw: Buffer.from('From: ceo@bank.test\r\n\r\nx\r\n'),
    sha256: 'abc', remote: '127.0.0.1', helo: 'mx.bank.test', receivedAt: at(1),
  }]);
  return id;
}

export function mailTrustContract(makeStore: StoreFactory): void {
  void describe('mail trust', () => {
    void it('keeps the HELO name and the authentication results with the message', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'A001');
      const id = await received(store, c);
      assert.equal((await store.getMailMessage(id))?.helo, 'mx.bank.test');
      await store.setMailAuth(id, AUTH);
      assert.deepEqual((await store.getMailMessage(id))?.auth, AUTH);
      await assert.rejects(store.setMailAuth(randomUUID(), AUTH), isCode('NOT_FOUND'));
    }));

    void it('holds a message once, finished without a reply; a hold is decided once', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'A001');
      const id = await received(store, c);
      await store.setMailAuth(id, AUTH);
      const result = { esito: 'nessun_ordine' as const, submissions: [], held: 'dmarc-fail', noReply: 'held: dmarc-fail' };
      assert.equal(await store.holdMail({ mailId: id, customerId: c.id, reason: 'dmarc-fail', sender: 'ceo@bank.test', detail: 'p=reject' }, result), true);
      assert.equal(await store.holdMail({ mailId: id, customerId: c.id, reason: 'dmarc-fail' }, result), false, 'no longer received');
      assert.equal((await store.getMailMessage(id))?.state, 'done');
      assert.deepEqual(await store.pendingMailIds(10), [], 'a held message is not derived');
      const [h] = await store.listMailHolds({ state: 'held' });
      assert.equal(h?.mailId, id);
      assert.equal(h?.sender, 'ceo@bank.test');
      assert.equal(h?.reason, 'dmarc-fail');
      assert.deepEqual(h?.auth, AUTH, 'listed with its authentication results');
      assert.deepEqual(await store.listMailHolds({ customerId: randomUUID() }), []);
      assert.equal(await store.decideMailHold(id, 'released', 'mario'), true);
      assert.equal(await store.decideMailHold(id, 'discarded', 'anna'), false, 'decided once');
      const m = await store.getMailMessage(id);
      assert.equal(m?.state, 'received', 'released: back to the pipeline');
      assert.equal(m?.result, undefined);
      assert.deepEqual(await store.pendingMailIds(10), [id]);
      const released = await store.getMailHold(id);
      assert.equal(released?.state, 'released');
      assert.equal(released?.decidedBy, 'mario');
      assert.ok(released?.decidedAt);
    }));

    void it('discards a hold (the message stays, finished) and finds DNS holds to retry', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'A001');
      const a = await received(store, c);
      const b = await received(store, c);
      const result = { esito: 'nessun_ordine' as const, submissions: [], held: 'x' };
      await store.holdMail({ mailId: a, customerId: c.id, reason: 'not-allowed' }, result);
      await store.holdMail({ mailId: b, customerId: c.id, reason: 'dns' }, result);
      const later = new Date(Date.now() + 60_000).toISOString();
      assert.deepEqual(await store.heldForRetry('dns', later, 10), [b]);
      assert.deepEqual(await store.heldForRetry('dns', '2000-01-01T00:00:00.000Z', 10), []);
      assert.equal(await store.decideMailHold(a, 'discarded', 'mario'), true);
      assert.equal((await store.getMailMessage(a))?.state, 'done', 'discarded: kept, finished');
      assert.equal(await store.decideMailHold(b, 'retried', 'dns-retry'), true);
      assert.equal((await store.getMailMessage(b))?.state, 'received');
      const notice = (id: string) => ({ id, mailId: b, customerId: c.id, recipient: 'ordini@cliente.it', subject: 'Messaggio trattenuto', raw: Buffer.from('x') });
      assert.equal(await store.holdMail({ mailId: b, customerId: c.id, reason: 'not-allowed' }, result, notice(randomUUID())), true, 'held again after a retry');
      assert.equal(await store.decideMailHold(b, 'retried', 'dns-retry'), true);
      assert.equal(await store.holdMail({ mailId: b, customerId: c.id, reason: 'dns' }, result, notice(randomUUID())), true);
      const queued = (await store.listReplies({ customerId: c.id })).filter((r) => r.mailId === b);
      assert.deepEqual(queued.map((r) => [r.recipient, r.subject]), [['ordini@cliente.it', 'Messaggio trattenuto']], 'the customer is told once');
      assert.equal((await store.getMailHold(b))?.state, 'held');
      assert.equal(await store.decideMailHold(randomUUID(), 'released', 'x'), false);
    }));

    void it('keeps a sender policy per customer; the default lets anyone order', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'A001');
      assert.deepEqual(await store.getMailPolicy(c.id), { mode: 'qualsiasi', allow: [], notifyHeld: false });
      const p = await store.setMailPolicy(c.id, { mode: 'elenco', allow: ['ordini@cliente.it', '@cliente.it'], notifyHeld: true });
      assert.equal(p.mode, 'elenco');
      assert.deepEqual(p.allow, ['ordini@cliente.it', '@cliente.it']);
      assert.equal(p.notifyHeld, true);
      assert.ok(p.updatedAt);
      const q = await store.setMailPolicy(c.id, { mode: 'autenticato', allow: ['@cliente.it'], notifyHeld: false });
      assert.deepEqual([q.mode, q.allow, q.notifyHeld], ['autenticato', ['@cliente.it'], false]);
      await assert.rejects(store.setMailPolicy(c.id, { mode: 'tutti' as never, allow: [], notifyHeld: false }), isCode('VALIDATION'));
      await assert.rejects(store.setMailPolicy(c.id, { mode: 'elenco', allow: ['not an address'], notifyHeld: false }), isCode('VALIDATION'));
      await assert.rejects(store.setMailPolicy(randomUUID(), { mode: 'elenco', allow: [], notifyHeld: false }), isCode('NOT_FOUND'));
    }));

    void it('keeps the trusted authserv-id of an IMAP mailbox', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'A001');
      const base = { id: randomUUID(), customerId: c.id, host: 'imap.example.it', port: 993, tls: true, username: 'u', passwordEnc: 'v1:a:b:c', folder: 'INBOX' };
      assert.equal((await store.setImapAccount(base)).authservId, undefined);
      assert.equal((await store.setImapAccount({ ...base, authservId: 'mx.provider.it' })).authservId, 'mx.provider.it');
      await assert.rejects(store.setImapAccount({ ...base, authservId: 'a b; c' }), isCode('VALIDATION'));
    }));
  });
}
