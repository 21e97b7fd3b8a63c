// The two settings of several instances (INTAKE_CLAIM_LEASE_MS, INTAKE_SWEEP_INTERVAL_MS): defaults, bounds, and a
// clear refusal naming the key. That the service uses them is shown by instances.test.ts, whose takeover of a killed
// instance's work would not finish in time with the defaults.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';

void describe('claim and sweep settings', () => {
  void it('default to a 30 s lease and a 5 s sweep', () => {
    const c = loadConfig({}, '/tmp');
    assert.equal(c.claimLeaseMs, 30_000);
    assert.equal(c.sweepIntervalMs, 5000);
  });

  void it('take whole milliseconds within their bounds', () => {
    const c = loadConfig({ INTAKE_CLAIM_LEASE_MS: ' 1000 ', INTAKE_SWEEP_INTERVAL_MS: '100' }, '/tmp');
    assert.equal(c.claimLeaseMs, 1000);
    assert.equal(c.sweepIntervalMs, 100);
    assert.equal(loadConfig({ INTAKE_CLAIM_LEASE_MS: '3600000', INTAKE_SWEEP_INTERVAL_MS: '3600000' }, '/tmp').claimLeaseMs, 3_600_000);
  });

  void it('refuse what is too short, too long or not a number, naming the key', () => {
    for (const [key, value] of [
      ['INTAKE_CLAIM_LEASE_MS', '999'], ['INTAKE_CLAIM_LEASE_MS', '3600001'], ['INTAKE_CLAIM_LEASE_MS', '30s'], ['INTAKE_CLAIM_LEASE_MS', '1500.5'],
      ['INTAKE_SWEEP_INTERVAL_MS', '99'], ['INTAKE_SWEEP_INTERVAL_MS', '-5'], ['INTAKE_SWEEP_INTERVAL_MS', 'often'],
    ] as const) {
      assert.throws(() => loadConfig({ [key]: value }, '/tmp'), new RegExp(`^.*${key} must be a whole number of milliseconds from \\d+ to 3600000, got "${value.replace('.', '\\.')}"`), `${key}=${value}`);
    }
  });
});
