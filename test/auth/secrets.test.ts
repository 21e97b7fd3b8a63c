import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  generateApiKey, generatePassword, hashApiKey, hashPassword, parseApiKey, randomBase62, safeEqual, verifyApiKey, verifyPassword,
} from '../../src/auth/secrets.ts';

void describe('API keys', () => {
  void it('have the documented format and parse back to their key id', () => {
    const { keyId, token } = generateApiKey();
    assert.match(keyId, /^[0-9A-Za-z]{12}$/);
    assert.match(token, /^oik_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    assert.ok(token.startsWith(`oik_${keyId}_`));
    assert.deepEqual(parseApiKey(token), { keyId });
  });

  void it('are different every time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => generateApiKey().token));
    assert.equal(tokens.size, 1000);
  });

  void it('refuse malformed tokens without throwing', () => {
    const { token } = generateApiKey();
    for (const bad of [undefined, '', 'oik_', token.slice(0, -1), `${token}x`, token.replace('oik_', 'xyz_'),
      token.replace(/_/g, '-'), `${token.slice(0, -1)}!`, 'x'.repeat(100_000)]) {
      assert.equal(parseApiKey(bad), undefined, String(bad).slice(0, 40));
    }
  });

  void it('are stored as sha256 of the whole token and verified against it', () => {
    const { token } = generateApiKey();
    const stored = hashApiKey(token);
    assert.match(stored, /^sha256:[0-9a-f]{64}$/);
    assert.ok(!stored.includes(token));
    assert.equal(verifyApiKey(token, stored), true);
    const other = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    assert.equal(verifyApiKey(other, stored), false);
    assert.equal(verifyApiKey(token, 'sha256:short'), false);
  });
});

void describe('random and comparison helpers', () => {
  void it('randomBase62 gives the asked length from the base62 alphabet', () => {
    for (const n of [1, 12, 32, 200]) assert.match(randomBase62(n), new RegExp(`^[0-9A-Za-z]{${n}}$`));
  });

  void it('randomBase62 uses the whole alphabet', () => {
    const seen = new Set(randomBase62(20_000));
    assert.equal(seen.size, 62);
  });

  void it('safeEqual compares content and length', () => {
    assert.equal(safeEqual('abc', 'abc'), true);
    assert.equal(safeEqual('abc', 'abd'), false);
    assert.equal(safeEqual('abc', 'abcd'), false);
    assert.equal(safeEqual('', ''), true);
  });
});

void describe('passwords', () => {
  void it('are 20 base62 characters', () => {
    assert.match(generatePassword(), /^[0-9A-Za-z]{20}$/);
  });

  void it('hash with scrypt in the documented format, salted', async () => {
    const pw = generatePassword();
    const a = await hashPassword(pw);
    const b = await hashPassword(pw);
    assert.match(a, /^scrypt\$16384\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    assert.notEqual(a, b, 'two hashes of one password differ by their salt');
    assert.ok(!a.includes(pw));
  });

  void it('verify the right password and refuse a wrong one', async () => {
    const stored = await hashPassword('Segreto123');
    assert.equal(await verifyPassword('Segreto123', stored), true);
    assert.equal(await verifyPassword('segreto123', stored), false);
    assert.equal(await verifyPassword('', stored), false);
    assert.equal(await verifyPassword('x'.repeat(5000), stored), false);
  });

  void it('never match (nor throw on) a malformed stored value', async () => {
    const good = await hashPassword('pw');
    const parts = good.split('$');
    for (const bad of ['', 'plain', 'scrypt$1$8$1$AAAA$BBBB', 'scrypt$16385$8$1$AAAA$BBBB', `scrypt$${1 << 30}$8$1$${parts[4]}$${parts[5]}`,
      `bcrypt$16384$8$1$${parts[4]}$${parts[5]}`, `scrypt$16384$999$1$${parts[4]}$${parts[5]}`, `scrypt$16384$8$1$$${parts[5]}`]) {
      assert.equal(await verifyPassword('pw', bad), false, bad);
    }
  });

  void it('refuse to hash an empty or oversized password', async () => {
    await assert.rejects(hashPassword(''), /1 to 1024 characters/);
    await assert.rejects(hashPassword('x'.repeat(1025)), /1 to 1024 characters/);
  });
});
