// The memory budget shared by uploads being stored and judged (issue 19, item 11): what fits runs, what does not
// waits its turn in order, a job larger than the whole budget runs alone, and a wait that lasts too long ends in a
// refusal rather than for ever.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createMemoryBudget } from '../../src/channels/memory-budget.ts';

void it('admits what fits, queues the rest first come first served, and gives room back on release', async () => {
  const b = createMemoryBudget(100);
  const a = await b.acquire(60, 1000);
  assert.ok(a);
  const order: string[] = [];
  const big = b.acquire(50, 10_000).then((r) => { order.push('big'); return r; });
  const small = b.acquire(10, 10_000).then((r) => { order.push('small'); return r; });
  assert.equal(b.waiting(), 2, 'the small job does not overtake the big one waiting before it');
  a();
  const [rBig, rSmall] = await Promise.all([big, small]);
  assert.deepEqual(order, ['big', 'small']);
  assert.equal(b.inUse(), 60);
  rBig!();
  rSmall!();
  rSmall!();
  assert.equal(b.inUse(), 0, 'a release counts once');
  assert.equal(b.peak(), 60, 'the most ever taken at once: 60, then 50 + 10');
});

void it('a job larger than the whole budget runs, alone', async () => {
  const b = createMemoryBudget(100);
  const huge = await b.acquire(1000, 1000);
  assert.ok(huge);
  const next = b.acquire(1, 10_000);
  assert.equal(b.waiting(), 1);
  huge();
  assert.ok(await next);
});

void it('a job that waits too long is refused, and leaves the queue', async () => {
  const b = createMemoryBudget(100);
  const held = await b.acquire(100, 1000);
  assert.equal(await b.acquire(1, 20), undefined);
  assert.equal(b.waiting(), 0);
  held!();
  assert.equal(b.inUse(), 0);
});
