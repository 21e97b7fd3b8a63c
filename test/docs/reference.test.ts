// The operators' reference pages are generated from the code (scripts/docs/reference.ts); a committed page that
// differs from what the code gives now means a setting or a command changed without its documentation.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CLI_PAGE, ERRORS_PAGE, JMF_STATUS_PAGE, SETTINGS_PAGE, cliPage, errorsPage, jmfStatusPage, readSettings, settingsPage } from '../../scripts/docs/reference.ts';

void describe('generated reference pages', () => {
  it('docs/operators/settings.md is what src/config.ts documents (run `npm run docs`)', () => {
    assert.equal(readFileSync(SETTINGS_PAGE, 'utf8'), settingsPage());
  });

  it('docs/operators/cli.md is what the order-intake program defines (run `npm run docs`)', () => {
    assert.equal(readFileSync(CLI_PAGE, 'utf8'), cliPage());
  });

  it('docs/customers/connettori-stato-jmf.md is the JMF Status table of src/intake/connectors/jmf-status.ts (run `npm run docs`)', () => {
    assert.equal(readFileSync(JMF_STATUS_PAGE, 'utf8'), jmfStatusPage());
  });

  it('docs/customers/errors.md is the error catalog of src/domain/errors.ts (run `npm run docs`)', () => {
    assert.equal(readFileSync(ERRORS_PAGE, 'utf8'), errorsPage());
    assert.match(errorsPage({ SOME_CODE: { http: 418, smtp: 550, soapFault: 'Client', message: 'a | b' } }), /\| `SOME_CODE` \| 418 \| 550 \| Client \| a \\\| b \|/);
  });

  it('every INTAKE_ variable that loadConfig reads is documented on Config', () => {
    const source = readFileSync(new URL('../../src/config.ts', import.meta.url), 'utf8');
    const read = new Set([...source.matchAll(/\b(INTAKE_[A-Z0-9_]+)\b/g)].map((m) => m[1]!));
    const documented = new Set(readSettings().flatMap((s) => s.variable.split(' / ')));
    const missing = [...read].filter((v) => !documented.has(v));
    assert.deepEqual(missing, []);
  });

  it('a setting documented on Config appears in the page with its text', () => {
    const page = settingsPage(readSettings('interface Config {\n /** INTAKE_EXAMPLE: what it does. Default 7 */\n readonly x: number;\n}'));
    assert.match(page, /\| `INTAKE_EXAMPLE` \| what it does\. Default 7 \|/);
  });
});
