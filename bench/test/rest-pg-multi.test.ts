import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countsInRun } from '../benchmarks/rest-pg-multi.ts';

test('every instance count is driven first, second and third equally often over three runs', () => {
  const runs = [1, 2, 3].map(countsInRun);
  assert.deepEqual(runs[0], [1, 2, 3], 'the first run keeps the natural order');
  for (const order of runs) assert.deepEqual([...order].sort(), [1, 2, 3], `each run drives every count once: ${order.join(',')}`);
  for (let position = 0; position < 3; position++) {
    assert.deepEqual(runs.map((o) => o[position]).sort(), [1, 2, 3], `position ${position + 1} holds each count once`);
  }
  assert.deepEqual(countsInRun(4), runs[0], 'the rotation repeats every three runs');
});
