// How the order pages compare two versions of an order's lines (src/channels/web/lifecycle.ts): matched by article
// and unit, an article ordered twice matched occurrence by occurrence, removed lines listed after the others.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareLines } from '../../../src/channels/web/lifecycle.ts';

const l = (codice_articolo: string, quantita: number, unita_misura = 'PZ') => ({ codice_articolo, quantita, unita_misura });

void describe('web: comparing versions of an order', () => {
  void it('marks lines changed, added and removed; a first version has nothing marked', () => {
    assert.deepEqual(compareLines(undefined, [l('A', 1)]), [{ ...l('A', 1), mark: 'same' }]);
    assert.deepEqual(compareLines([l('A', 500), l('B', 1000)], [l('A', 750), l('C', 3, 'RS')]), [
      { ...l('A', 750), mark: 'changed', before: 500 },
      { ...l('C', 3, 'RS'), mark: 'added' },
      { ...l('B', 1000), mark: 'removed' },
    ]);
  });

  void it('matches an article ordered twice occurrence by occurrence, and tells units apart', () => {
    assert.deepEqual(compareLines([l('A', 1), l('A', 2), l('A', 5, 'RS')], [l('A', 1), l('A', 3), l('A', 5, 'KG')]), [
      { ...l('A', 1), mark: 'same' },
      { ...l('A', 3), mark: 'changed', before: 2 },
      { ...l('A', 5, 'KG'), mark: 'added' },
      { ...l('A', 5, 'RS'), mark: 'removed' },
    ]);
  });
});
