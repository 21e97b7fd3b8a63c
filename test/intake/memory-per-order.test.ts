/**
 * Memory per upload must not grow with the file again (issue 19 item 11, issue 16 target 6). Not a timing test: a
 * child process (--expose-gc) sends a CSV file of 12,000 orders through the whole intake path on SQLite and reads
 * the memory still reachable after forced collections, between two batches 9,000 orders apart and when the outcome
 * is recorded. What judging keeps per order (its entry in the outcome and in the file's own identity check) is
 * bounded per order; everything else (the batch, the CSV parser's state, the raw file) must not grow at all.
 *
 * Before the fix judging kept about 750 bytes per order (a hidden class per outcome object, dictionary-mode outcomes,
 * the CSV plan kept whole): 100,000 orders held 75 MiB at the end and peaked at 650 MiB with the rest.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { nodeArgs } from '../helpers/node-args.ts';

/**
 * Bytes judging may keep per order: its identity for the file's repeat check (a reference in a Map, 32 bytes of hash).
 * Measured about 270 while every order's outcome was kept until the end (2f9beed), about 0–100 since a file of more
 * than one batch has its attempts written batch by batch (issue 16, target 6; the noise of a forced collection is
 * some tens of bytes per order here).
 */
const MAX_BYTES_PER_ORDER = 150;

interface ChildResult {
  orders: number; accepted: number; bytes: number; before: number; atOutcome: number;
  ordersApart: number; atFirst: number; atLast: number;
}

void describe('memory of one large upload', () => {
  void it('keeps a bounded amount per order while judging, and holds the raw file once', async () => {
    const { stdout } = await promisify(execFile)(process.execPath,
      ['--expose-gc', ...nodeArgs(path.join(import.meta.dirname, 'memory-per-order-child.ts')), '12000'],
      { cwd: path.join(import.meta.dirname, '../..'), timeout: 180_000, maxBuffer: 1024 * 1024 });
    const r = JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildResult;
    assert.equal(r.orders, 12_000);
    assert.equal(r.accepted, 12_000);
    const perOrder = (r.atLast - r.atFirst) / r.ordersApart;
    assert.ok(perOrder < MAX_BYTES_PER_ORDER, `judging kept ${perOrder.toFixed(0)} bytes per order (bound ${MAX_BYTES_PER_ORDER})`);
    // When the outcome is recorded: the raw file once (the channel's Buffer), the outcome, and little else.
    const held = r.atOutcome - r.before;
    assert.ok(held < r.orders * MAX_BYTES_PER_ORDER, `${(held / 2 ** 20).toFixed(1)} MiB more held when the outcome is recorded than before the upload`);
  });
});
