// Which write-thread operations count as large (src/store/sqlite/write-ops.ts isLargeOp): their batch gets the larger
// page cache. A large file's batch of orders, its attempts and its outcome do; a REST order, a small file and the
// other operations do not, so the REST path keeps the small cache.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLargeOp, LARGE_OP_ROWS } from '../../src/store/sqlite/write-ops.ts';

/** `n` register items of `lines` lines each (only what isLargeOp reads). */
const items = (n: number, lines: number) => Array.from({ length: n }, () => ({ order: { righe: Array.from({ length: lines }, () => ({})) } }));
const outcome = (n: number) => ({ orders: Array.from({ length: n }, () => ({})) });

void describe('SQLite write thread: large operations', () => {
  void it('counts an order, its lines and its event as rows of a registration', () => {
    // 100 orders of 8 lines: 1,000 rows. One row fewer is small.
    assert.equal(isLargeOp('registerOrders', [items(100, 8)]), true);
    assert.equal(isLargeOp('registerOrders', [[...items(99, 8), ...items(1, 7)]]), false);
    assert.equal(isLargeOp('registerOrders', [items(1000, 10)]), true, "a large file's batch");
    assert.equal(isLargeOp('saveSingleOrder', [[], { item: items(1, 3)[0] }, 'now']), false, 'a REST order');
  });

  void it(`takes attempts and outcomes of ${LARGE_OP_ROWS} orders or more as large`, () => {
    assert.equal(isLargeOp('recordAttempts', ['id', outcome(LARGE_OP_ROWS).orders]), true);
    assert.equal(isLargeOp('recordAttempts', ['id', outcome(LARGE_OP_ROWS - 1).orders]), false);
    assert.equal(isLargeOp('completeSubmission', ['id', 'processed', outcome(LARGE_OP_ROWS), 'now']), true);
    assert.equal(isLargeOp('completeSubmission', ['id', 'processed', outcome(1), 'now']), false);
  });

  void it('takes any other operation, or arguments of the wrong shape, as small', () => {
    assert.equal(isLargeOp('saveSubmission', [[]]), false);
    assert.equal(isLargeOp('acquireLease', ['n', 'h', 1, 0]), false);
    assert.equal(isLargeOp('registerOrders', [undefined]), false);
    assert.equal(isLargeOp('completeSubmission', ['id', 'processed', undefined, 'now']), false);
    assert.equal(isLargeOp('nonsense', []), false);
  });
});
