// Who may order by e-mail, end to end over SMTP on both stores: real messages (DKIM-signed by nodemailer's signer,
// sent from 127.0.0.1, which the fixture DNS lists or not in SPF), the customer's policy set with the real CLI, held
// messages released and discarded with it, a DNS server that stops answering, and a restart in between.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { order, waitFor } from '../../helpers/service.ts';
import { runCli } from '../../cli/run.ts';
import { createMetrics } from '../../../src/metrics/metrics.ts';
import { startDnsServer, type DnsFixture } from '../../helpers/dns-server.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { withPostgresKey } from '../../helpers/secret-key.ts';
import { FAST_RETRY, startMail, startSink, type MailHarness, type Sink } from './helpers.ts';
import { dkimKey } from '../../helpers/dkim.ts';

const KEY = dkimKey();
const DKIM = { domainName: 'cliente.test', keySelector: 'sel', privateKey: KEY.privateKey };

function suite(backend: 'sqlite' | 'postgres'): void {
  void describe(`sender policies over SMTP (${backend})`, { skip: backend === 'postgres' ? PG_SKIP : false }, () => {
    let h: MailHarness;
    let sink: Sink;
    let dns: DnsFixture;
    let mailbox: string;
    let schema: Awaited<ReturnType<typeof createSchema>> | undefined;
    const metrics = createMetrics({ defaultMetrics: false });
    let env: Record<string, string>;
    const cli = (args: string[]) => runCli(h.t.dataDir, args, withPostgresKey({ ...(schema ? { INTAKE_DATABASE_URL: schema.url } : {}) }));

    before(async () => {
      dns = await startDnsServer({
        'cliente.test': 'v=spf1 ip4:127.0.0.1 -all',
        'sel._domainkey.cliente.test': KEY.record,
        '_dmarc.cliente.test': 'v=DMARC1; p=reject',
        'bank.test': 'v=spf1 ip4:192.0.2.1 -all',
        '_dmarc.bank.test': 'v=DMARC1; p=reject',
        'altro.test': 'v=spf1 ip4:127.0.0.1 -all',
      });
      sink = await startSink();
      schema = backend === 'postgres' ? await createSchema(testDatabaseUrl!, 'trust') : undefined;
      env = { INTAKE_SMTP_RELAY: sink.url, INTAKE_SWEEP_INTERVAL_MS: '200', INTAKE_MAIL_DNS_RETRY_SECONDS: '1' };
      h = await startMail({ env, dns, retry: FAST_RETRY, metrics, databaseUrl: schema?.url });
      mailbox = (await h.t.customer('C001')).mailbox;
    });
    after(async () => {
      await h?.close();
      await sink?.close();
      await dns?.close();
      await schema?.drop();
    });

    const store = () => h.t.service.store;
    const customerId = async () => (await store().getCustomerByCode('C001'))!.id;
    const attach = (ref: string) => [{ filename: `${ref}.json`, content: JSON.stringify(order('C001', ref)), contentType: 'application/json' }];
    const registered = async (ref: string) => store().getOrderByRef(await customerId(), ref);
    const heldFor = (subject: string) => waitFor(async () => {
      for (const hold of await store().listMailHolds({ customerId: await customerId() })) {
        const m = await store().getMailMessage(hold.mailId);
        if (m?.raw.toString('latin1').includes(`Subject: ${subject}`)) return hold;
      }
      return undefined;
    }, 20_000, `"${subject}" held`);

    void it('qualsiasi: a DKIM-signed order registers and is answered; the results are kept and shown', async () => {
      const r = await h.send({ from: 'ordini@cliente.test', to: mailbox, subject: 'Firmato', attachments: attach('T-DKIM'), dkim: DKIM });
      assert.match(r.response, /^250 /);
      const m = await h.finished('C001', 'Firmato');
      assert.equal(m.result?.esito, 'ok');
      assert.equal(m.auth?.spf.result, 'pass');
      assert.deepEqual(m.auth?.dkim, [{ result: 'pass', domain: 'cliente.test' }]);
      assert.equal(m.auth?.dmarc.result, 'pass');
      assert.match(m.auth?.header ?? '', /^Authentication-Results: intake\.test;/);
      assert.ok(await registered('T-DKIM'));
      await waitFor(() => (sink.messages.some((x) => x.rcptTo.includes('ordini@cliente.test')) ? true : undefined), 15_000, 'the reply');
      const submissionId = m.result!.submissions[0]!;
      const shown = await cli(['submissions', 'show', submissionId]);
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /Authentication-Results: intake\.test;\s+dkim=pass[\s\S]*spf=pass[\s\S]*dmarc=pass/);
    });

    void it('a forged From of a p=reject domain is held: nothing registered, no reply leaves; release registers it once', async () => {
      const r = await h.send({ from: 'ceo@bank.test', replyTo: 'vittima@terzi.test', to: mailbox, subject: 'Falso', attachments: attach('T-FORGED') });
      assert.match(r.response, /^250 /, 'accepted: nothing received is lost');
      const hold = await heldFor('Falso');
      assert.equal(hold.reason, 'dmarc-fail');
      assert.equal(hold.sender, 'ceo@bank.test');
      assert.equal(hold.auth?.dmarc.result, 'fail');
      assert.equal(await registered('T-FORGED'), undefined);
      const outbox = await store().listReplies({ customerId: await customerId() });
      assert.ok(outbox.every((x) => x.mailId !== hold.mailId), 'no reply queued for it');
      assert.ok(sink.messages.every((x) => !x.rcptTo.includes('ceo@bank.test') && !x.rcptTo.includes('vittima@terzi.test')), 'none sent');
      assert.match((await metrics.render()).body, /intake_mail_held_total\{reason="dmarc-fail"\} 1/);

      const list = await cli(['mail', 'held', 'list', '--json']);
      assert.equal(list.code, 0, list.stderr);
      const rows = JSON.parse(list.stdout) as { id: string; sender: string; customer: string; reason: string }[];
      assert.deepEqual(rows.map((x) => [x.id, x.sender, x.customer, x.reason]), [[hold.mailId, 'ceo@bank.test', 'C001', 'dmarc-fail']]);

      const released = await cli(['mail', 'held', 'release', hold.mailId]);
      assert.equal(released.code, 0, released.stderr);
      await waitFor(async () => (await registered('T-FORGED') ? true : undefined), 20_000, 'the released order registered');
      const again = await cli(['mail', 'held', 'release', hold.mailId]);
      assert.notEqual(again.code, 0, 'a hold is released once');
      await h.channels.idle();
      const subs = (await store().listSubmissions({ customerId: await customerId() })).filter((s) => s.meta.mail_id === hold.mailId);
      assert.equal(subs.length, 1, 'registered once');
      const audit = await store().listAudit({ limit: 10 });
      assert.ok(audit.some((a) => a.action === 'posta.rilascia' && a.objectId === hold.mailId), 'the release is in the audit log');
    });

    void it('elenco: an allowed sender orders; a sender outside the list is held and can be discarded', async () => {
      const set = await cli(['customer', 'mail-policy', 'C001', '--mode', 'elenco', '--allow', 'Ordini@Cliente.test', '--allow', '@altro.test', '--remove', '@altro.test',
        '--notify-held', 'on', '--json']);
      assert.equal(set.code, 0, set.stderr);
      const shown = JSON.parse(set.stdout) as Record<string, unknown>;
      assert.deepEqual(shown, { codice_cliente: 'C001', mode: 'elenco', allow: ['ordini@cliente.test'], notify_held: true, updated_at: shown.updated_at });
      await h.send({ from: 'ordini@cliente.test', to: mailbox, subject: 'In elenco', attachments: attach('T-ALLOWED') });
      const m = await h.finished('C001', 'In elenco');
      assert.equal(m.result?.held, undefined);
      assert.ok(await registered('T-ALLOWED'));

      await h.send({ from: 'estraneo@altro.test', to: mailbox, subject: 'Fuori elenco', attachments: attach('T-OUTSIDE') });
      const hold = await heldFor('Fuori elenco');
      assert.equal(hold.reason, 'not-allowed');
      assert.equal(await registered('T-OUTSIDE'), undefined);
      const discarded = await cli(['mail', 'held', 'discard', hold.mailId]);
      assert.equal(discarded.code, 0, discarded.stderr);
      assert.equal((await store().getMailHold(hold.mailId))?.state, 'discarded');
      assert.equal((await store().getMailMessage(hold.mailId))?.state, 'done', 'kept, finished');
      assert.ok(sink.messages.every((x) => !x.rcptTo.includes('estraneo@altro.test')), 'no reply to a sender outside the list');
      // The customer asked to be told: its registered address (the list's first) hears of it, in Italian.
      const notice = await waitFor(() => sink.messages.find((x) => /^Messaggio trattenuto da estraneo@altro\.test/.test(x.parsed.subject ?? '')), 15_000, 'the held notice');
      assert.deepEqual(notice.rcptTo, ['ordini@cliente.test']);
      assert.match(notice.parsed.text ?? '', /è stato trattenuto: il mittente non è nell'elenco dei mittenti autorizzati/);
      const back = await cli(['customer', 'mail-policy', 'C001', '--mode', 'qualsiasi', '--notify-held', 'off']);
      assert.equal(back.code, 0, back.stderr);
    });

    void it('a DNS server that does not answer: held, kept across a restart, checked again and registered', async () => {
      dns.silent = true;
      try {
        await h.send({ from: 'ordini@cliente.test', to: mailbox, subject: 'Senza DNS', attachments: attach('T-NODNS') });
        const hold = await heldFor('Senza DNS');
        assert.equal(hold.reason, 'dns');
        assert.equal(await registered('T-NODNS'), undefined);
        // Stopped while held and DNS is down: nothing is lost.
        await h.stop();
      } finally {
        dns.silent = false;
      }
      h = await startMail({ env, dns, retry: FAST_RETRY, metrics, dataDir: h.t.dataDir, databaseUrl: schema?.url });
      await waitFor(async () => (await registered('T-NODNS') ? true : undefined), 20_000, 'the order registered once DNS answers');
      await waitFor(() => (sink.messages.some((x) => /Senza DNS/.test(x.parsed.subject ?? '')) ? true : undefined), 15_000, 'its reply');
    });
  });
}

suite('sqlite');
suite('postgres');
