// Which webhook URLs and addresses are refused (SSRF), and that the connection goes to the address checked.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import { checkWebhookUrl, resolveTarget } from '../../src/handoff/target.ts';

const refused = (re: RegExp) => (e: unknown) => e instanceof IntakeError && e.code === 'VALIDATION' && re.test(e.message);

void describe('webhook targets', () => {
  void it('refuses metadata, private, loopback and link-local addresses unless allowed', () => {
    assert.throws(() => checkWebhookUrl('https://169.254.169.254/latest/meta-data/', false), refused(/169\.254\.169\.254 is linkLocal/));
    assert.throws(() => checkWebhookUrl('https://10.0.0.8/hook', false), refused(/10\.0\.0\.8 is private/));
    assert.throws(() => checkWebhookUrl('https://192.168.1.10/hook', false), refused(/private/));
    assert.throws(() => checkWebhookUrl('https://[::ffff:10.0.0.1]/hook', false), refused(/private/));
    assert.throws(() => checkWebhookUrl('https://[fd00::1]/hook', false), refused(/uniqueLocal/));
    assert.throws(() => checkWebhookUrl('http://127.0.0.1:8080/hook', false), refused(/loopback/));
    assert.throws(() => checkWebhookUrl('http://localhost:8080/hook', false), refused(/loopback/));
    assert.equal(checkWebhookUrl('https://10.0.0.8/hook', true).hostname, '10.0.0.8');
    assert.equal(checkWebhookUrl('http://127.0.0.1:8080/hook', true).port, '8080');
    assert.equal(checkWebhookUrl('https://erp.example.com/hook', false).hostname, 'erp.example.com');
  });

  void it('refuses IPv6 addresses that embed or stand for a non-public one, in a URL and when resolved', async () => {
    const special = [
      ['::127.0.0.1', /ipv4Compatible/], ['::7f00:1', /ipv4Compatible/], ['::a00:1', /ipv4Compatible/],
      ['::a9fe:a9fe', /ipv4Compatible/], ['::8.8.8.8', /ipv4Compatible/], ['::ffff:169.254.169.254', /linkLocal/],
      ['::ffff:7f00:1', /loopback/], ['64:ff9b::a00:1', /rfc6052/], ['64:ff9b::169.254.169.254', /rfc6052/],
      ['2002:a00:1::1', /6to4/], ['2002:a9fe:a9fe::1', /6to4/], ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /teredo/],
      ['fc00::1', /uniqueLocal/], ['fd12:3456::1', /uniqueLocal/], ['fe80::1', /linkLocal/], ['ff02::1', /multicast/],
      ['::', /unspecified/], ['::1', /loopback/],
    ] as const;
    for (const [address, range] of special) {
      assert.throws(() => checkWebhookUrl(`https://[${address}]/hook`, false), refused(range), address);
      const resolved = async () => [{ address, family: 6 as const }];
      await assert.rejects(resolveTarget(new URL('https://erp.example.test/hook'), false, resolved), refused(range), address);
    }
    assert.equal(checkWebhookUrl('https://[2606:4700::1111]/hook', false).hostname, '[2606:4700::1111]');
    assert.equal(checkWebhookUrl('https://[::a00:1]/hook', true).hostname, '[::a00:1]', 'a private receiver once allowed');
  });

  void it('takes https only, http only to loopback, and no credentials in the URL', () => {
    assert.throws(() => checkWebhookUrl('http://erp.example.com/hook', true), refused(/only https/));
    assert.throws(() => checkWebhookUrl('ftp://erp.example.com/', true), refused(/only https/));
    assert.throws(() => checkWebhookUrl('https://user:pw@erp.example.com/', true), refused(/user name or password/));
    assert.throws(() => checkWebhookUrl('not a url', true), refused(/not a URL/));
    assert.throws(() => checkWebhookUrl('https://0.0.0.0/', true), refused(/unspecified/), 'never, even when allowed');
  });

  void it('checks every resolved address, and refuses http to a name that resolves elsewhere than loopback', async () => {
    const url = new URL('https://erp.example.test/hook');
    const both = async () => [{ address: '93.184.216.34', family: 4 as const }, { address: '169.254.169.254', family: 4 as const }];
    await assert.rejects(resolveTarget(url, false, both), refused(/169\.254\.169\.254/));
    assert.deepEqual(await resolveTarget(url, false, async () => [{ address: '93.184.216.34', family: 4 }]), { address: '93.184.216.34', family: 4 });
    const rebinding = new URL('http://localhost:9/hook');
    await assert.rejects(resolveTarget(rebinding, true, async () => [{ address: '10.0.0.1', family: 4 }]), refused(/only allowed to loopback/));
  });
});
