// The sender checks' settings: DNS servers as ip or ip:port, the authserv-id, and clear refusals of anything else.
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.ts';

void describe('sender check settings', () => {
  void it('takes ip, ip:port and [ipv6]:port, comma-separated; unset means the system resolver', () => {
    assert.deepEqual(loadConfig({ INTAKE_DNS_SERVERS: '127.0.0.1:5353, 192.0.2.1,[::1]:53,2001:db8::1' }).dnsServers,
      ['127.0.0.1:5353', '192.0.2.1', '[::1]:53', '2001:db8::1']);
    assert.equal(loadConfig({}).dnsServers, undefined);
    assert.equal(loadConfig({}).dnsTimeoutMs, 3000);
    assert.equal(loadConfig({}).mailDnsRetrySeconds, 300);
  });

  void it('refuses what is not an address, naming it', () => {
    for (const bad of ['dns.example.it', '127.0.0.1:99999', '300.1.1.1', '2001:db8::1:53x']) {
      assert.throws(() => loadConfig({ INTAKE_DNS_SERVERS: bad }), (e: unknown) => e instanceof ConfigError && e.message.includes(`"${bad}"`), bad);
    }
  });

  void it('names its Authentication-Results after the host unless told otherwise', () => {
    assert.equal(loadConfig({}).mailAuthservId, hostname());
    assert.equal(loadConfig({ INTAKE_MAIL_AUTHSERV_ID: 'mx.ordini.example.it' }).mailAuthservId, 'mx.ordini.example.it');
    assert.throws(() => loadConfig({ INTAKE_MAIL_AUTHSERV_ID: 'a b;c' }), ConfigError);
  });
});
