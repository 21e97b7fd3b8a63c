// Peppol settings read once (src/config.ts: INTAKE_PEPPOL_ID, INTAKE_PEPPOL_UNITS) and identifiers as operators type
// them (src/customers/peppol-ids.ts); bad values stop the start with the setting's name, never later.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { parsePeppolId } from '../../src/customers/peppol-ids.ts';
import { unitOf } from '../../src/intake/formats/ubl/units.ts';

void describe('Peppol settings', () => {
  void it('reads INTAKE_PEPPOL_ID and INTAKE_PEPPOL_UNITS; unset: no seller check, no mapping', () => {
    const c = loadConfig({ INTAKE_PEPPOL_ID: ' iso6523-actorid-upis::0211:it09876543210 ', INTAKE_PEPPOL_UNITS: 'c62=pz, XBX = SC' });
    assert.deepEqual(c.peppolId, { scheme: '0211', identifier: 'IT09876543210' });
    assert.deepEqual([...c.peppolUnits], [['C62', 'PZ'], ['XBX', 'SC']]);
    const none = loadConfig({});
    assert.equal(none.peppolId, undefined);
    assert.equal(none.peppolUnits.size, 0);
  });

  void it('refuses a malformed identifier or unit pair, naming the setting', () => {
    assert.throws(() => loadConfig({ INTAKE_PEPPOL_ID: 'IT09876543210' }), (e: unknown) => e instanceof ConfigError && /INTAKE_PEPPOL_ID: .*scheme:value/.test(e.message));
    assert.throws(() => loadConfig({ INTAKE_PEPPOL_UNITS: 'C62:PZ' }), (e: unknown) => e instanceof ConfigError && /INTAKE_PEPPOL_UNITS: "C62:PZ" must be CODE=UNIT/.test(e.message));
  });

  void it('identifiers: four-digit scheme, a value of at most 50 characters without spaces', () => {
    assert.deepEqual(parsePeppolId('9906:ufabc1'), { scheme: '9906', identifier: 'UFABC1' });
    for (const bad of ['99:X', '0211:', '0211:IT 123', `0211:${'X'.repeat(51)}`, 'abcd:X']) assert.throws(() => parsePeppolId(bad), /Peppol identifier|characters without spaces/, bad);
  });

  void it('units: the operator\'s mapping, else the built-in reading of old codes, else the code as written', () => {
    const operator = new Map([['C62', 'PZ']]);
    assert.equal(unitOf('c62', operator), 'PZ');
    assert.equal(unitOf('PK', operator), 'XPK');
    assert.equal(unitOf('KGM', operator), 'KGM');
  });
});
