import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { skipUnlessPresent } from './required.ts';

void describe('skipUnlessPresent', () => {
  it('runs the test when nothing is missing', () => {
    assert.equal(skipUnlessPresent(undefined, { CI: 'true' }), false);
  });
  it('skips with the reason on a developer machine', () => {
    assert.equal(skipUnlessPresent('dovecot is not installed', {}), 'dovecot is not installed');
  });
  it('fails in CI instead of skipping', () => {
    assert.throws(() => skipUnlessPresent('dovecot is not installed', { CI: 'true' }), /CI must run this test.*dovecot is not installed/);
  });
});
