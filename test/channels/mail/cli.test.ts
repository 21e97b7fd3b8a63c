// The operator's e-mail commands, run as a real `order-intake` process against the data directory of a running
// service: the reply queue kept without a relay, the messages received, and a customer's IMAP mailbox (checked
// against a real Dovecot where one can run).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { order } from '../../helpers/service.ts';
import { runCli } from '../../cli/run.ts';
import { dovecotSkip, startDovecot, type Dovecot } from './dovecot.ts';
import { startMail, type MailHarness } from './helpers.ts';

const KEY = randomBytes(32).toString('hex');

void describe('order-intake e-mail commands', () => {
  let h: MailHarness;
  let mailbox: string;
  before(async () => {
    h = await startMail();
    mailbox = (await h.t.customer('C001')).mailbox;
    await h.send({ to: mailbox, subject: 'Per la CLI', attachments: [{ filename: 'o.json', content: JSON.stringify(order('C001', 'CLI-1')) }] });
    await h.finished('C001', 'Per la CLI');
  });
  after(() => h?.close());

  void it('lists the replies kept without a relay, and shows one byte for byte', async () => {
    const list = await runCli(h.t.dataDir, ['replies', 'list', '--state', 'pending', '--json']);
    assert.equal(list.code, 0, list.stderr);
    const replies = JSON.parse(list.stdout) as { id: string; recipient: string; subject: string; state: string }[];
    assert.equal(replies.length, 1);
    assert.equal(replies[0]!.recipient, 'mario@cliente.it');
    assert.match(replies[0]!.subject, /^Re: Per la CLI \[esito: OK/);
    const table = await runCli(h.t.dataDir, ['replies', 'list']);
    assert.match(table.stdout, /^ID +KIND +CREATED +TO +STATE/);
    assert.match(table.stdout, /\sreply +\S+ +mario@cliente\.it/, 'an acknowledgement is of kind reply (notifications: notification)');
    assert.match(table.stdout, /mario@cliente\.it +pending +0 +Re: Per la CLI/);

    const raw = await runCli(h.t.dataDir, ['replies', 'show', replies[0]!.id, '--raw']);
    assert.equal(raw.code, 0, raw.stderr);
    assert.deepEqual(raw.stdoutBytes, (await h.t.service.store.getReply(replies[0]!.id))?.raw);
    const missing = await runCli(h.t.dataDir, ['replies', 'retry', 'no-such-id']);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^error: no reply no-such-id waiting to be sent/);
  });

  void it('lists the messages received with what became of them', async () => {
    const r = await runCli(h.t.dataDir, ['mail', 'list', '--code', 'c001', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const [m] = JSON.parse(r.stdout) as { source: string; envelopeFrom: string; state: string; result: { esito: string } }[];
    assert.deepEqual([m?.source, m?.envelopeFrom, m?.state, m?.result.esito], ['smtp', 'mario@cliente.it', 'done', 'ok']);
  });

  void it('refuses to keep an IMAP password without INTAKE_SECRET_KEY on PostgreSQL, or given on the command line', async () => {
    // No server at this address: the refusal comes before connecting (SQLite would generate a key instead).
    const noKey = await runCli(h.t.dataDir, ['customer', 'imap', 'set', '--code', 'C001', '--host', 'imap.example.it', '--user', 'u',
      '--password-env', 'IMAP_PW', '--no-check'], { IMAP_PW: 'segreto', INTAKE_SECRET_KEY: '', INTAKE_DATABASE_URL: 'postgres://postgres@127.0.0.1:9/none' });
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /INTAKE_SECRET_KEY is not set: with PostgreSQL/);
    const inline = await runCli(h.t.dataDir, ['customer', 'imap', 'set', '--code', 'C001', '--host', 'h', '--user', 'u', '--password', 'x']);
    assert.equal(inline.code, 1);
    assert.match(inline.stderr, /unknown option '--password'/);
  });

  void describe('with a real IMAP server', { skip: dovecotSkip() }, () => {
    let d: Dovecot;
    before(async () => {
      d = await startDovecot();
    });
    after(() => d?.stop());

    void it('checks the login, keeps the password sealed, shows the mailbox and removes it', async () => {
      const env = { INTAKE_SECRET_KEY: KEY, IMAP_PW: d.password, WRONG_PW: 'sbagliata' };
      const args = ['customer', 'imap', 'set', '--code', 'C001', '--host', '127.0.0.1', '--port', String(d.port), '--no-tls', '--user', d.user];
      const wrong = await runCli(h.t.dataDir, [...args, '--password-env', 'WRONG_PW'], env);
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /cannot log in to 127\.0\.0\.1:\d+ and open "INBOX"/);

      const ok = await runCli(h.t.dataDir, [...args, '--password-env', 'IMAP_PW', '--json'], env);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal((JSON.parse(ok.stdout) as { processed_folder: string }).processed_folder, 'Elaborati');
      const c = (await h.t.service.store.getCustomerByCode('C001'))!;
      const stored = await h.t.service.store.getImapAccount(c.id);
      assert.match(stored?.passwordEnc ?? '', /^v1:/);
      assert.ok(!stored?.passwordEnc.includes(d.password), 'never in clear');

      const show = await runCli(h.t.dataDir, ['customer', 'imap', 'show', '--code', 'C001'], env);
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, /host: +127\.0\.0\.1/);
      assert.ok(!show.stdout.includes(d.password) && !show.stdout.includes('v1:'), 'the password is never shown');

      const removed = await runCli(h.t.dataDir, ['customer', 'imap', 'remove', '--code', 'C001'], env);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal(await h.t.service.store.getImapAccount(c.id), undefined);
    });
  });
});
