import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decimalNumber } from '../../../src/intake/formats/fields.ts';

void describe('quantity conversion', () => {
  void it('reads machine-written decimals (XML): one separator, dot or comma', () => {
    const cases: Array<[string, number | undefined]> = [
      ['12', 12], [' 12.5 ', 12.5], ['12,5', 12.5], ['-3', -3], ['+4', 4], ['1.000', 1], ['007', 7],
      ['', undefined], ['1e3', undefined], ['.5', undefined], ['5.', undefined], ['1.234,5', undefined],
      ['0x10', undefined], ['12 pz', undefined], ['Infinity', undefined], ['9'.repeat(400), undefined],
    ];
    for (const [text, expected] of cases) assert.equal(decimalNumber(text), expected, JSON.stringify(text));
  });
});
