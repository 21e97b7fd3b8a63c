// SPF, DKIM and DMARC of real messages (signed by nodemailer's DKIM signer) against the fixture DNS server, and the
// verdicts of the three sender policies on them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createAuthenticator, createDnsResolve, judgeSender, trustedSpf } from '../../../src/channels/mail/trust.ts';
import type { MailPolicy } from '../../../src/domain/store/mail-trust.ts';
import { startDnsServer, type DnsFixture } from '../../helpers/dns-server.ts';
import { compose, dkimKey } from '../../helpers/dkim.ts';

void describe('sender authentication and policies', () => {
  let dns: DnsFixture;
  const key = dkimKey();
  before(async () => {
    dns = await startDnsServer({
      'cliente.test': 'v=spf1 ip4:127.0.0.1 -all',
      'sel._domainkey.cliente.test': key.record,
      '_dmarc.cliente.test': 'v=DMARC1; p=reject',
      'bank.test': 'v=spf1 ip4:192.0.2.1 -all',
      '_dmarc.bank.test': 'v=DMARC1; p=reject',
      'nodmarc.test': 'v=spf1 -all',
    });
  });
  after(() => dns?.close());

  const auth = () => createAuthenticator({ authservId: 'intake.test', resolve: createDnsResolve([dns.address], 500) });
  const policy = (over: Partial<MailPolicy>): MailPolicy => ({ mode: 'qualsiasi', allow: [], notifyHeld: false, ...over });

  void it('DKIM-signed and SPF-covered mail passes DMARC', async () => {
    const raw = await compose({ from: 'ordini@cliente.test', to: 'x@ordini.test', dkim: { domainName: 'cliente.test', keySelector: 'sel', privateKey: key.privateKey } });
    const a = await auth().authenticate({ raw, ip: '127.0.0.1', helo: 'mx.cliente.test', sender: 'ordini@cliente.test' });
    assert.equal(a.spf.result, 'pass');
    assert.deepEqual(a.dkim, [{ result: 'pass', domain: 'cliente.test' }]);
    assert.equal(a.dmarc.result, 'pass');
    assert.equal(a.from, 'ordini@cliente.test');
    assert.match(a.header, /^Authentication-Results: intake\.test;\r\n dkim=pass/);
    assert.match(a.header, /spf=pass/);
    assert.match(a.header, /dmarc=pass/);
    assert.deepEqual(judgeSender(policy({ mode: 'autenticato', allow: ['@cliente.test'] }), a, 'ordini@cliente.test'), { ok: true, replyTo: 'ordini@cliente.test' });
  });

  void it('a forged From of a p=reject domain fails DMARC and is held under every policy', async () => {
    const raw = await compose({ from: 'ceo@bank.test', to: 'x@ordini.test', replyTo: 'victim@elsewhere.test' });
    const a = await auth().authenticate({ raw, ip: '127.0.0.1', helo: 'evil.test', sender: 'ceo@bank.test' });
    assert.equal(a.spf.result, 'fail', 'bank.test does not list 127.0.0.1');
    assert.equal(a.dmarc.result, 'fail');
    assert.equal(a.dmarc.policy, 'reject');
    for (const mode of ['qualsiasi', 'elenco'] as const) {
      const v = judgeSender(policy({ mode, allow: ['@bank.test'] }), a, 'victim@elsewhere.test');
      assert.equal(v.ok ? 'ok' : v.reason, 'dmarc-fail', mode);
    }
    const v = judgeSender(policy({ mode: 'autenticato', allow: ['@bank.test'] }), a);
    assert.equal(v.ok ? 'ok' : v.reason, 'not-authenticated');
  });

  void it('SPF passes or fails by the connecting address', async () => {
    const raw = await compose({ from: 'ordini@cliente.test', to: 'x@ordini.test' });
    const ok = await auth().authenticate({ raw, ip: '127.0.0.1', helo: 'mx.cliente.test', sender: 'ordini@cliente.test' });
    const ko = await auth().authenticate({ raw, ip: '198.51.100.7', helo: 'mx.cliente.test', sender: 'ordini@cliente.test' });
    assert.equal(ok.spf.result, 'pass');
    assert.equal(ok.dmarc.result, 'pass', 'aligned SPF alone passes DMARC');
    assert.equal(ko.spf.result, 'fail');
    assert.equal(ko.dmarc.result, 'fail');
  });

  void it('elenco: a sender outside the list is held; inside it, a Reply-To outside the list gets no reply', async () => {
    const raw = await compose({ from: 'chiunque@nodmarc.test', to: 'x@ordini.test' });
    const a = await auth().authenticate({ raw, ip: '127.0.0.1', helo: 'h.test', sender: 'chiunque@nodmarc.test' });
    assert.equal(a.dmarc.result, 'none');
    assert.deepEqual(judgeSender(policy({}), a, 'chiunque@nodmarc.test'), { ok: true });
    const v = judgeSender(policy({ mode: 'elenco', allow: ['ordini@nodmarc.test'] }), a);
    assert.equal(v.ok ? 'ok' : v.reason, 'not-allowed');
    assert.deepEqual(judgeSender(policy({ mode: 'elenco', allow: ['@nodmarc.test'] }), a, 'altro@fuori.test'), { ok: true, replyTo: 'chiunque@nodmarc.test' });
  });

  void it('a DNS server that does not answer makes the results temporary: held as dns', async () => {
    const raw = await compose({ from: 'ordini@cliente.test', to: 'x@ordini.test' });
    dns.silent = true;
    try {
      const a = await auth().authenticate({ raw, ip: '127.0.0.1', helo: 'mx.cliente.test', sender: 'ordini@cliente.test' });
      assert.equal(a.temporary, true);
      const v = judgeSender(policy({}), a);
      assert.equal(v.ok ? 'ok' : v.reason, 'dns');
    } finally {
      dns.silent = false;
    }
  });

  void it('IMAP: SPF only from the configured authserv-id, never from another', async () => {
    const raw = await compose({
      from: 'ordini@cliente.test', to: 'x@ordini.test',
      headers: { 'Authentication-Results': 'mx.provider.test; spf=pass smtp.mailfrom=ordini@cliente.test' },
    });
    assert.deepEqual(trustedSpf(raw, 'mx.provider.test'), { result: 'pass', domain: 'cliente.test' });
    const trusted = await auth().authenticate({ raw, trustedAuthservId: 'mx.provider.test' });
    assert.equal(trusted.spf.result, 'pass');
    assert.equal(trusted.dmarc.result, 'pass');
    const other = await auth().authenticate({ raw, trustedAuthservId: 'mx.other.test' });
    assert.equal(other.spf.result, 'none');
    assert.equal(other.dmarc.result, 'fail');
  });
});
