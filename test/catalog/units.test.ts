import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_UNITS, UNIT_CODE_PATTERN } from '../../src/catalog/units.ts';

void describe('DEFAULT_UNITS', () => {
  void it('has unique upper-case codes, each with an Italian description', () => {
    const codes = DEFAULT_UNITS.map((u) => u.code);
    assert.equal(new Set(codes).size, codes.length, 'no code twice');
    for (const u of DEFAULT_UNITS) {
      assert.match(u.code, UNIT_CODE_PATTERN);
      assert.equal(u.code, u.code.toUpperCase());
      assert.ok(u.description.trim().length > 0, u.code);
    }
  });

  void it('holds the Rec 20 codes ERPs send and the Italian abbreviations people type', () => {
    const codes = new Set(DEFAULT_UNITS.map((u) => u.code));
    for (const c of ['C62', 'H87', 'EA', 'KGM', 'MTR', 'MTK', 'LTR', 'SET', 'PR', 'RM', 'XBX', 'XCT', 'XPK', 'XRO', 'XST', 'XPX']) {
      assert.ok(codes.has(c), c);
    }
    for (const c of ['PZ', 'NR', 'KG', 'MT', 'LT', 'CF', 'RS', 'FG', 'MQ', 'MC', 'ML', 'CT', 'SC', 'RT', 'PL']) assert.ok(codes.has(c), c);
  });

  void it('lists no withdrawn two-letter Rec 20 packaging code with its old meaning', () => {
    // ST (sheet) and RO (roll) left Rec 20; XST and XRO replace them. CT stays only as the Italian "cartone".
    const codes = new Set(DEFAULT_UNITS.map((u) => u.code));
    for (const c of ['ST', 'RO', 'BX', 'PK', 'BG']) assert.ok(!codes.has(c), c);
  });
});
