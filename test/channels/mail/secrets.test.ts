// Sealed IMAP passwords (AES-256-GCM with INTAKE_SECRET_KEY) and the e-mail settings' validation.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { openSecret, sealSecret } from '../../../src/auth/secret-box.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { IntakeError } from '../../../src/domain/errors.ts';

const key = randomBytes(32).toString('base64');

void describe('sealed IMAP passwords', () => {
  void it('opens what it sealed, and never shows the password in what it stores', () => {
    const sealed = sealSecret(key, 'pàssword-di-prova', 'customer-1');
    assert.match(sealed, /^v1:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    assert.ok(!sealed.includes('password'));
    assert.notEqual(sealSecret(key, 'pàssword-di-prova', 'customer-1'), sealed, 'a fresh IV every time');
    assert.equal(openSecret(key, sealed, 'customer-1'), 'pàssword-di-prova');
  });

  void it('does not open with another key, for another customer, or once tampered with', () => {
    const sealed = sealSecret(key, 'segreto', 'customer-1');
    const other = randomBytes(32).toString('hex');
    const refused = (e: unknown) => e instanceof IntakeError && /cannot be opened/.test(e.message);
    assert.throws(() => openSecret(other, sealed, 'customer-1'), refused);
    assert.throws(() => openSecret(key, sealed, 'customer-2'), refused, 'bound to its customer');
    const [v, iv, tag, data] = sealed.split(':');
    const flipped = Buffer.from(data!, 'base64');
    flipped[0]! ^= 1;
    assert.throws(() => openSecret(key, [v, iv, tag, flipped.toString('base64')].join(':'), 'customer-1'), refused);
    assert.throws(() => openSecret(key, 'segreto', 'customer-1'), /not in a known sealed format/);
    // A missing key is the operator's setting, not a fault of the service: a ConfigError, no protocol status.
    assert.throws(() => sealSecret(undefined, 'x', 'c'), (e: unknown) => e instanceof ConfigError && /INTAKE_SECRET_KEY is not set/.test(e.message));
  });
});

void describe('e-mail settings', () => {
  void it('has sound defaults and refuses bad values with the key\'s name', () => {
    const c = loadConfig({});
    assert.equal(c.maxMailBytes, 25 * 1024 * 1024);
    assert.equal(c.imapPollSeconds, 60);
    assert.equal(c.secretKey, undefined);
    assert.equal(loadConfig({ INTAKE_SECRET_KEY: key }).secretKey, key);
    assert.equal(loadConfig({ INTAKE_SECRET_KEY: 'ab'.repeat(32) }).secretKey, 'ab'.repeat(32));
    assert.throws(() => loadConfig({ INTAKE_SECRET_KEY: 'troppo-corta' }), /INTAKE_SECRET_KEY must be 32 bytes/);
    assert.throws(() => loadConfig({ INTAKE_SECRET_KEY: randomBytes(16).toString('base64') }), /INTAKE_SECRET_KEY/);
    assert.throws(() => loadConfig({ INTAKE_MAX_MAIL_BYTES: '-1' }), /INTAKE_MAX_MAIL_BYTES/);
    assert.throws(() => loadConfig({ INTAKE_IMAP_POLL_SECONDS: '0' }), /INTAKE_IMAP_POLL_SECONDS must be a whole number of seconds from 1 to 3600/);
  });
});
