import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  generateApiKey, generateConnectorKey, hashConnectorKey, parseApiKey, parseConnectorKey, verifyConnectorKey,
} from '../../src/auth/secrets.ts';

void describe('connector keys (service-x-key)', () => {
  void it('have their own prefix, a 12-character key id and a 32-character secret', () => {
    const { keyId, token } = generateConnectorKey();
    assert.match(token, /^oic_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    assert.equal(token.slice(4, 16), keyId);
    assert.deepEqual(parseConnectorKey(token), { keyId });
    assert.notEqual(generateConnectorKey().token, token);
  });

  void it('are stored as sha256 and verified against it', () => {
    const { token } = generateConnectorKey();
    const hash = hashConnectorKey(token);
    assert.match(hash, /^sha256:[0-9a-f]{64}$/);
    assert.equal(verifyConnectorKey(token, hash), true);
    assert.equal(verifyConnectorKey(`${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`, hash), false);
    assert.equal(verifyConnectorKey(token, 'sha256:short'), false);
  });

  void it('and API keys are malformed for each other', () => {
    const api = generateApiKey().token;
    const conn = generateConnectorKey().token;
    assert.equal(parseConnectorKey(api), undefined);
    assert.equal(parseApiKey(conn), undefined);
    assert.equal(parseConnectorKey(undefined), undefined);
    assert.equal(parseConnectorKey(`${conn}x`), undefined);
    assert.equal(parseConnectorKey(conn.replace('_', '-')), undefined);
  });
});
