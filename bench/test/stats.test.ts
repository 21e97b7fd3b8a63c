/** The summaries the benchmark tables print: quantiles by linear interpolation, NaN runs left out. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { latencySummary, quantileSorted, summarise } from '../lib/stats.ts';

describe('stats', () => {
  it('quantiles interpolate between ranks', () => {
    const s = [10, 20, 30, 40];
    assert.equal(quantileSorted(s, 0), 10);
    assert.equal(quantileSorted(s, 1), 40);
    assert.equal(quantileSorted(s, 0.5), 25);
    assert.equal(quantileSorted(s, 0.25), 17.5);
    assert.ok(Number.isNaN(quantileSorted([], 0.5)));
  });

  it('summarise gives median, range and IQR, and leaves out runs that measured nothing', () => {
    const r = summarise([5, 1, NaN, 3, 2, 4]);
    assert.deepEqual(r, { median: 3, min: 1, max: 5, q1: 2, q3: 4, n: 5 });
  });

  it('latencySummary sorts and reports the tail', () => {
    const samples = Float64Array.from({ length: 1000 }, (_, i) => 1000 - i);
    const l = latencySummary(samples);
    assert.equal(l.count, 1000);
    assert.equal(l.max, 1000);
    assert.ok(Math.abs(l.p50 - 500.5) < 1e-9);
    assert.ok(Math.abs(l.p99 - 990.01) < 1e-9);
    assert.equal(l.mean, 500.5);
  });
});
