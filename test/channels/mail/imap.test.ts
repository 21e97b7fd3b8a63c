// IMAP mailbox polling against a real Dovecot: messages appended with an IMAP client are stored, judged, answered and
// moved (or flagged) once, across a restart of the service, and a message left behind by a crash between storing
// and moving is moved without being processed again.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer';
import { v7 as uuidv7 } from 'uuid';
import { sealSecret } from '../../../src/auth/secret-box.ts';
import { STORED_FLAG } from '../../../src/channels/mail/imap.ts';
import type { Store } from '../../../src/domain/store/store.ts';
import { order, waitFor } from '../../helpers/service.ts';
import { dovecotSkip, startDovecot, type Dovecot } from './dovecot.ts';
import { received, startMail, startSink, type MailHarness, type Sink } from './helpers.ts';

const KEY = randomBytes(32).toString('base64');
const missing = dovecotSkip();

function message(subject: string, ref: string, messageId = `<${ref}@cliente.it>`): Promise<Buffer> {
  return new MailComposer({
    from: 'Ufficio acquisti <acquisti@cliente.it>', to: 'ordini@cliente-pec.it', subject, messageId,
    attachments: [{ filename: 'ordine.json', content: JSON.stringify(order('C001', ref)) }],
  }).compile().build();
}

async function withImap<T>(d: Dovecot, fn: (c: ImapFlow) => Promise<T>): Promise<T> {
  const c = new ImapFlow({ host: '127.0.0.1', port: d.port, secure: false, auth: { user: d.user, pass: d.password }, logger: false });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.logout();
  }
}

async function subjectsIn(d: Dovecot, folder: string): Promise<{ subject: string; flags: string[] }[]> {
  return withImap(d, async (c) => {
    const box = await c.mailboxOpen(folder).catch(() => undefined);
    if (!box || box.exists === 0) return [];
    const list = await c.fetchAll('1:*', { envelope: true, flags: true });
    return list.map((m) => ({ subject: m.envelope?.subject ?? '', flags: [...(m.flags ?? [])] }));
  });
}

async function configure(store: Store, d: Dovecot, processedFolder?: string): Promise<void> {
  const c = (await store.getCustomerByCode('C001'))!;
  await store.setImapAccount({
    id: uuidv7(), customerId: c.id, host: '127.0.0.1', port: d.port, tls: false, username: d.user,
    passwordEnc: sealSecret(KEY, d.password, c.id), folder: 'INBOX', processedFolder,
  });
}

async function doneCount(h: MailHarness): Promise<number> {
  return (await h.t.service.store.listMailMessages({ state: 'done' })).length;
}

void describe('IMAP mailbox', { skip: missing }, () => {
  let d: Dovecot;
  let sink: Sink;
  before(async () => {
    d = await startDovecot();
    sink = await startSink();
  });
  after(async () => {
    await sink?.close();
    await d?.stop();
  });

  const env = () => ({ INTAKE_SMTP_RELAY: sink.url, INTAKE_SECRET_KEY: KEY });

  void it('stores, answers and moves each message once, across a restart and a crash before the move', async () => {
    const h = await startMail({ env: env() });
    await h.t.customer('C001');
    await configure(h.t.service.store, d, 'Elaborati');
    await withImap(d, async (c) => c.append('INBOX', await message('Ordine IMAP 1', 'I-1')));
    const r1 = await received(sink, (m) => /^Re: Ordine IMAP 1 \[esito: OK/.test(m.parsed.subject ?? ''));
    assert.deepEqual(r1.rcptTo, ['acquisti@cliente.it']);
    await waitFor(async () => ((await subjectsIn(d, 'Elaborati')).length === 1 ? true : undefined), 10_000, 'the message moved');
    assert.deepEqual(await subjectsIn(d, 'INBOX'), []);
    const m1 = await h.finished('C001', 'Ordine IMAP 1');
    assert.equal(m1.source, 'imap');
    assert.equal(m1.imap?.uid, 1);
    const sub = await h.t.service.store.getSubmission(m1.result!.submissions[0]!);
    assert.equal(sub?.channel, 'imap');
    await h.stop();

    // While the service is down: a new message, and the first one back in the inbox, as a crash between storing
    // it and moving it would have left it.
    await withImap(d, async (c) => {
      await c.append('INBOX', await message('Ordine IMAP 2', 'I-2'));
      await c.append('INBOX', await message('Ordine IMAP 1', 'I-1'));
    });
    const again = await startMail({ env: env(), dataDir: h.t.dataDir });
    try {
      await received(sink, (m) => /^Re: Ordine IMAP 2 \[esito: OK/.test(m.parsed.subject ?? ''));
      await waitFor(async () => ((await subjectsIn(d, 'INBOX')).length === 0 ? true : undefined), 10_000, 'the inbox emptied');
      assert.deepEqual((await subjectsIn(d, 'Elaborati')).map((m) => m.subject).sort(), ['Ordine IMAP 1', 'Ordine IMAP 1', 'Ordine IMAP 2']);
      assert.equal(await doneCount(again), 2, 'the message seen before was not stored again');
      assert.equal(sink.messages.filter((m) => /^Re: Ordine IMAP 1/.test(m.parsed.subject ?? '')).length, 1, 'and not answered again');
      const account = await again.t.service.store.getImapAccount((await again.t.service.store.getCustomerByCode('C001'))!.id);
      assert.equal(account?.lastUid, 3);
      assert.equal(account?.lastError, undefined);
    } finally {
      await again.close();
    }
  });

  void it('flags stored messages when there is no processed folder, and reports a wrong password', async () => {
    const h = await startMail({ env: env() });
    try {
      await h.t.customer('C001');
      await withImap(d, async (c) => {
        await c.mailboxOpen('INBOX');
        await c.messageDelete('1:*').catch(() => undefined);
      });
      const store = h.t.service.store;
      const c = (await store.getCustomerByCode('C001'))!;
      await store.setImapAccount({
        id: uuidv7(), customerId: c.id, host: '127.0.0.1', port: d.port, tls: false, username: d.user,
        passwordEnc: sealSecret(KEY, 'sbagliata', c.id), folder: 'INBOX',
      });
      const failing = await waitFor(async () => (await store.getImapAccount(c.id))?.lastError, 15_000, 'the login error recorded');
      assert.match(failing, /auth|login|fail/i);

      await configure(store, d);
      await withImap(d, async (x) => x.append('INBOX', await message('Ordine da segnare', 'I-FLAG-1')));
      await received(sink, (m) => /^Re: Ordine da segnare \[esito: OK/.test(m.parsed.subject ?? ''), 20_000);
      const inbox = await waitFor(async () => {
        const list = await subjectsIn(d, 'INBOX');
        return list.length === 1 && list[0]!.flags.includes(STORED_FLAG) ? list : undefined;
      }, 10_000, 'the message flagged');
      assert.ok(inbox[0]!.flags.includes('\\Seen'));
      assert.equal((await store.getImapAccount(c.id))?.lastError, undefined, 'the error is cleared once it works');
    } finally {
      await h.close();
    }
  });
});
