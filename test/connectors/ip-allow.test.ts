import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allows, parseAllowList, parseCidr, MAX_ALLOW_ENTRIES } from '../../src/connectors/ip-allow.ts';

void describe('connector allow lists', () => {
  void it('parses CIDR blocks and single addresses into canonical address/prefix', () => {
    assert.equal(parseCidr('10.0.0.0/8'), '10.0.0.0/8');
    assert.equal(parseCidr(' 192.0.2.7 '), '192.0.2.7/32');
    assert.equal(parseCidr('2001:DB8::/32'), '2001:db8::/32');
    assert.equal(parseCidr('::1'), '::1/128');
    assert.deepEqual(parseAllowList('10.0.0.0/8, 192.0.2.7,10.0.0.0/8'), ['10.0.0.0/8', '192.0.2.7/32']);
    assert.deepEqual(parseAllowList(undefined), []);
    assert.deepEqual(parseAllowList(''), []);
  });

  void it('refuses what is not an address or has a bad prefix, naming every bad entry', () => {
    assert.throws(() => parseCidr('10.0.0/8'), /not an IP address/);
    assert.throws(() => parseCidr('10.0.0.0/33'), /0 to 32/);
    assert.throws(() => parseCidr('::/129'), /0 to 128/);
    assert.throws(() => parseCidr('10.0.0.0/8/9'), /not an IP address/);
    assert.throws(() => parseCidr('10.0.0.0/x'), /prefix/);
    assert.throws(() => parseAllowList('host.example.com,10.0.0.0/99'), (e: unknown) => /host\.example\.com/.test((e as Error).message) && /0 to 32/.test((e as Error).message));
    assert.throws(() => parseAllowList(Array.from({ length: MAX_ALLOW_ENTRIES + 1 }, (_, i) => `10.0.${i}.0/24`)), /at most/);
  });

  void it('allows any address with an empty list, and only listed networks otherwise', () => {
    assert.equal(allows([], '203.0.113.9'), true);
    assert.equal(allows([], undefined), true);
    const list = ['10.0.0.0/8', '192.0.2.7/32', '2001:db8::/32'];
    assert.equal(allows(list, '10.20.30.40'), true);
    assert.equal(allows(list, '11.0.0.1'), false);
    assert.equal(allows(list, '192.0.2.7'), true);
    assert.equal(allows(list, '192.0.2.8'), false);
    assert.equal(allows(list, '2001:db8:1::5'), true);
    assert.equal(allows(list, '2001:db9::5'), false);
    assert.equal(allows(list, undefined), false);
    assert.equal(allows(list, 'not-an-ip'), false);
  });

  void it('checks an IPv4 client seen on a dual-stack socket as its IPv4 address', () => {
    assert.equal(allows(['127.0.0.0/8'], '::ffff:127.0.0.1'), true);
    assert.equal(allows(['10.0.0.0/8'], '::ffff:127.0.0.1'), false);
  });
});
