import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validate, version } from 'uuid';
import { uuidv7 } from '../../src/domain/uuid7.ts';

void describe('uuidv7 (pooled randomness)', () => {
  void it('makes valid, distinct, time-ordered version 7 UUIDs, in order within a millisecond too', () => {
    const before = Date.now();
    // More than one pool's worth (256 ids), so the refill is crossed.
    const ids = Array.from({ length: 1000 }, () => uuidv7());
    const after = Date.now();
    for (const id of ids) {
      assert.ok(validate(id), id);
      assert.equal(version(id), 7);
    }
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids, 'each id sorts after the one before it');
    const ms = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
    assert.ok(ms(ids[0]!) >= before && ms(ids[ids.length - 1]!) <= after + 1);
  });
});
