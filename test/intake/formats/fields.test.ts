import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decimalNumber, spreadsheetNumber } from '../../../src/intake/formats/fields.ts';

void describe('quantity conversion', () => {
  void it('reads machine-written decimals (XML): one separator, dot or comma', () => {
    const cases: Array<[string, number | undefined]> = [
      ['12', 12], [' 12.5 ', 12.5], ['12,5', 12.5], ['-3', -3], ['+4', 4], ['1.000', 1], ['007', 7],
      ['', undefined], ['1e3', undefined], ['.5', undefined], ['5.', undefined], ['1.234,5', undefined],
      ['0x10', undefined], ['12 pz', undefined], ['Infinity', undefined], ['9'.repeat(400), undefined],
    ];
    for (const [text, expected] of cases) assert.equal(decimalNumber(text), expected, JSON.stringify(text));
  });

  void it('reads spreadsheet numbers (CSV), refusing to guess between thousands and decimals', () => {
    const cases: Array<[string, number | undefined]> = [
      ['12', 12], ['1,5', 1.5], ['1.5', 1.5], ['12,25', 12.25], ['-2,5', -2.5], [' 3 ', 3],
      ['1.234,5', 1234.5], ['1.234.567', 1234567], ['1.234.567,89', 1234567.89],
      ['1,234.5', 1234.5], ['1,234,567', 1234567],
      ['0,250', 0.25], ['0.250', 0.25],
      ['1.000', undefined], ['2,500', undefined], ['12.34.5', undefined], ['1.23,4', undefined],
      ['', undefined], ['dodici', undefined], ['1,5 kg', undefined], ['1e3', undefined],
    ];
    for (const [text, expected] of cases) assert.equal(spreadsheetNumber(text), expected, JSON.stringify(text));
  });
});
