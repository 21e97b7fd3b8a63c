// Sender checks of mail read by IMAP from a real Dovecot, on both stores: the provider's Authentication-Results is
// trusted only under the authserv-id configured for the mailbox. A message whose provider recorded SPF pass for an
// aligned domain passes DMARC and registers; the same claim written by anyone else (another authserv-id) counts for
// nothing, so a forged From of a p=reject domain is held, unregistered and unanswered.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ImapFlow } from 'imapflow';
import { v7 as uuidv7 } from 'uuid';
import { sealSecret } from '../../../src/auth/secret-box.ts';
import { order, waitFor } from '../../helpers/service.ts';
import { compose } from '../../helpers/dkim.ts';
import { startDnsServer, type DnsFixture } from '../../helpers/dns-server.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { runCli } from '../../cli/run.ts';
import { dovecotSkip, startDovecot, type Dovecot } from './dovecot.ts';
import { received, startMail, startSink, type MailHarness, type Sink } from './helpers.ts';

const KEY = randomBytes(32).toString('base64');
const missing = dovecotSkip();

async function append(d: Dovecot, raw: Buffer): Promise<void> {
  const c = new ImapFlow({ host: '127.0.0.1', port: d.port, secure: false, auth: { user: d.user, pass: d.password }, logger: false });
  await c.connect();
  try {
    await c.append('INBOX', raw);
  } finally {
    await c.logout();
  }
}

function suite(backend: 'sqlite' | 'postgres'): void {
  void describe(`IMAP sender checks (${backend})`, { skip: missing || (backend === 'postgres' ? PG_SKIP : false) }, () => {
    let d: Dovecot;
    let sink: Sink;
    let dns: DnsFixture;
    let h: MailHarness;
    let schema: Awaited<ReturnType<typeof createSchema>> | undefined;

    before(async () => {
      d = await startDovecot();
      sink = await startSink();
      dns = await startDnsServer({
        'cliente.test': 'v=spf1 ip4:192.0.2.10 -all', '_dmarc.cliente.test': 'v=DMARC1; p=reject',
        'bank.test': 'v=spf1 ip4:192.0.2.1 -all', '_dmarc.bank.test': 'v=DMARC1; p=reject',
      });
      schema = backend === 'postgres' ? await createSchema(testDatabaseUrl!, 'imaptrust') : undefined;
      h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url, INTAKE_SECRET_KEY: KEY }, dns, databaseUrl: schema?.url });
      await h.t.customer('C001');
      const store = h.t.service.store;
      const c = (await store.getCustomerByCode('C001'))!;
      await store.setImapAccount({
        id: uuidv7(), customerId: c.id, host: '127.0.0.1', port: d.port, tls: false, username: d.user,
        passwordEnc: sealSecret(KEY, d.password, c.id), folder: 'INBOX', processedFolder: 'Elaborati', authservId: 'mx.provider.test',
      });
    });
    after(async () => {
      await h?.close();
      await sink?.close();
      await dns?.close();
      await d?.stop();
      await schema?.drop();
    });

    const attach = (ref: string) => [{ filename: `${ref}.json`, content: JSON.stringify(order('C001', ref)), contentType: 'application/json' }];

    void it("trusts the configured provider's SPF result: aligned, DMARC passes, the order registers", async () => {
      await append(d, await compose({
        from: 'ordini@cliente.test', to: 'ordini@cliente-pec.test', subject: 'IMAP fidato', attachments: attach('IMAP-OK'),
        headers: { 'Authentication-Results': 'mx.provider.test; spf=pass smtp.mailfrom=ordini@cliente.test' },
      }));
      const m = await h.finished('C001', 'IMAP fidato', 20_000);
      assert.equal(m.auth?.spf.result, 'pass');
      assert.equal(m.auth?.spfFrom, 'mx.provider.test');
      assert.equal(m.auth?.dmarc.result, 'pass');
      assert.equal(m.result?.held, undefined);
      const c = (await h.t.service.store.getCustomerByCode('C001'))!;
      assert.ok(await h.t.service.store.getOrderByRef(c.id, 'IMAP-OK'));
      await received(sink, (x) => x.rcptTo.includes('ordini@cliente.test'), 15_000, 'the reply');
    });

    void it('ignores an Authentication-Results of any other name: the forged From is held, no reply', async () => {
      await append(d, await compose({
        from: 'ceo@bank.test', to: 'ordini@cliente-pec.test', subject: 'IMAP falso', attachments: attach('IMAP-FORGED'),
        headers: { 'Authentication-Results': 'mx.provider.test.evil.test; spf=pass smtp.mailfrom=ceo@bank.test' },
      }));
      const store = h.t.service.store;
      const c = (await store.getCustomerByCode('C001'))!;
      const hold = await waitFor(async () => (await store.listMailHolds({ customerId: c.id }))[0], 20_000, 'the message held');
      assert.equal(hold.reason, 'dmarc-fail');
      assert.equal(hold.auth?.spf.result, 'none', 'the other header counts for nothing');
      assert.equal(await store.getOrderByRef(c.id, 'IMAP-FORGED'), undefined);
      const outbox = await store.listReplies({ customerId: c.id });
      assert.ok(outbox.every((r) => r.mailId !== hold.mailId && r.recipient !== 'ceo@bank.test'), 'no reply for it');
    });

    void it('the operator names the trusted provider with customer imap set --authserv-id', async () => {
      const env = { INTAKE_SECRET_KEY: KEY, PASSWORD: d.password, ...(schema ? { INTAKE_DATABASE_URL: schema.url } : {}) };
      const set = await runCli(h.t.dataDir, ['customer', 'imap', 'set', '--code', 'C001', '--host', '127.0.0.1', '--port', String(d.port), '--no-tls',
        '--user', d.user, '--password-env', 'PASSWORD', '--authserv-id', 'mx.altro-provider.test', '--json'], env);
      assert.equal(set.code, 0, set.stderr);
      assert.equal((JSON.parse(set.stdout) as { trusted_authserv_id: string }).trusted_authserv_id, 'mx.altro-provider.test');
      const bad = await runCli(h.t.dataDir, ['customer', 'imap', 'set', '--code', 'C001', '--host', '127.0.0.1', '--port', String(d.port), '--no-tls',
        '--user', d.user, '--password-env', 'PASSWORD', '--authserv-id', 'due nomi', '--no-check'], env);
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /authserv-id must be a host name/);
    });
  });
}

suite('sqlite');
suite('postgres');
