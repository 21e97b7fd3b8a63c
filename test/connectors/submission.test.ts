// The site rule of decodeConnectorSubmission (src/intake/connectors/submission.ts): path, else payload, else the
// key's only site; a payload naming a site the key lacks, or another site than the path, refuses the whole file.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import { chooseSite } from '../../src/intake/connectors/submission.ts';

const isCode = (code: IntakeError['code']) => (e: unknown) => e instanceof IntakeError && e.code === code;

void describe('connector submission site', () => {
  void it('takes the path site, then the payload site, then the only bound site', () => {
    assert.equal(chooseSite({ site: 'VR', sites: ['VR', 'MI'] }, undefined), 'VR');
    assert.equal(chooseSite({ site: 'VR', sites: ['VR', 'MI'] }, 'vr'), 'VR');
    assert.equal(chooseSite({ sites: ['VR', 'MI'] }, ' mi '), 'MI');
    assert.equal(chooseSite({ sites: ['VR'] }, undefined), 'VR');
    assert.equal(chooseSite({ sites: ['VR'] }, ''), 'VR');
  });

  void it('refuses a payload site the key is not bound to, or one that contradicts the path', () => {
    assert.throws(() => chooseSite({ sites: ['VR'] }, 'TO'), isCode('FORBIDDEN_SITE'));
    assert.throws(() => chooseSite({ site: 'VR', sites: ['VR', 'MI'] }, 'MI'), isCode('FORBIDDEN_SITE'));
  });

  void it('asks for the site when the key has several and nothing names one', () => {
    assert.throws(() => chooseSite({ sites: ['VR', 'MI'] }, undefined), isCode('SITE_REQUIRED'));
    assert.throws(() => chooseSite({}, undefined), isCode('SITE_REQUIRED'));
  });
});
