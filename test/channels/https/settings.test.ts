// The HTTPS, proxy and metrics settings: defaults, what they need of each other, and clear refusals.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../../src/config.ts';

const CERT = { INTAKE_TLS_CERT: 'c.pem', INTAKE_TLS_KEY: 'k.pem' };

void describe('HTTPS, proxy and metrics settings', () => {
  void it('default to clear text, no redirect, no trusted proxy and no metrics', () => {
    const c = loadConfig({}, '/tmp');
    assert.equal(c.httpTls, false);
    assert.equal(c.httpRedirectPort, 'off');
    assert.deepEqual(c.trustProxy, []);
    assert.equal(c.metricsToken, undefined);
    assert.equal(c.metricsPort, 'off');
    assert.equal(c.metricsHost, '0.0.0.0');
  });

  void it('turn HTTPS on with the certificate, unless INTAKE_HTTP_TLS=off', () => {
    assert.equal(loadConfig(CERT, '/tmp').httpTls, true);
    assert.equal(loadConfig({ ...CERT, INTAKE_HTTP_TLS: 'off' }, '/tmp').httpTls, false);
    assert.equal(loadConfig({ ...CERT, INTAKE_HTTP_REDIRECT_PORT: '8081' }, '/tmp').httpRedirectPort, 8081);
    assert.equal(loadConfig({ INTAKE_HOST: '10.1.1.1', INTAKE_METRICS_PORT: '9464' }, '/tmp').metricsHost, '10.1.1.1');
    assert.equal(loadConfig({ INTAKE_METRICS_PORT: '9464', INTAKE_METRICS_HOST: '127.0.0.1' }, '/tmp').metricsHost, '127.0.0.1');
  });

  void it('refuse combinations that cannot work, naming the key', () => {
    assert.throws(() => loadConfig({ INTAKE_HTTP_TLS: 'on' }, '/tmp'), /INTAKE_HTTP_TLS=on needs INTAKE_TLS_CERT and INTAKE_TLS_KEY/);
    assert.throws(() => loadConfig({ ...CERT, INTAKE_HTTP_TLS: 'yes' }, '/tmp'), /INTAKE_HTTP_TLS must be "on" or "off"/);
    assert.throws(() => loadConfig({ INTAKE_HTTP_REDIRECT_PORT: '80' }, '/tmp'), /INTAKE_HTTP_REDIRECT_PORT needs HTTPS/);
    assert.throws(() => loadConfig({ ...CERT, INTAKE_HTTP_TLS: 'off', INTAKE_HTTP_REDIRECT_PORT: '80' }, '/tmp'), /INTAKE_HTTP_REDIRECT_PORT needs HTTPS/);
    assert.throws(() => loadConfig({ INTAKE_METRICS_PORT: 'nine' }, '/tmp'), /INTAKE_METRICS_PORT must be a port number/);
    assert.throws(() => loadConfig({ INTAKE_METRICS_TOKEN: 'x'.repeat(31) }, '/tmp'), /INTAKE_METRICS_TOKEN must be at least 32 characters/);
    assert.throws(() => loadConfig({ INTAKE_TRUST_PROXY: '10.0.0.0/33' }, '/tmp'), /INTAKE_TRUST_PROXY: "10\.0\.0\.0\/33": the prefix length must be 0 to 32/);
  });
});
