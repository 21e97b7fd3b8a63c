/**
 * The send loop of the SMTP and SOAP clients: the closed loop never has more than its concurrency in flight, the
 * open loop sends on its schedule whatever the server does, and skips (counts as missed) past its bound of
 * outstanding sends instead of piling them up.
 * Run: node scripts/run-tests.mjs bench/test
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runLoop } from '../lib/loop.ts';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('runLoop', () => {
  it('closed loop: at most `concurrency` in flight, each next send leaving when one ends', async () => {
    let inFlight = 0;
    let peak = 0;
    const res = await runLoop({ mode: 'closed', concurrency: 3, rate: 0, warmupSec: 0, durationSec: 0.3 }, async () => {
      peak = Math.max(peak, ++inFlight);
      await wait(10);
      inFlight--;
    });
    assert.equal(peak, 3);
    assert.equal(inFlight, 0);
    // Each send lasts at least 10 ms, so 3 workers cannot start more than 3 × (300 / 10 + 1) in 300 ms: an unbounded
    // loop would. At least two each: a worker goes on after its first send (how many more depends on how busy the
    // machine is, so no tighter lower bound; the runner starts this file beside the type check and the linter).
    assert.ok(res.sent >= 6 && res.sent <= 93, `sent ${res.sent}`);
    assert.equal(res.missed, 0);
  });

  it('open loop: sends leave on the schedule; `from` is the scheduled time, not when the send got out', async () => {
    const froms: number[] = [];
    const res = await runLoop({ mode: 'open', concurrency: 0, rate: 100, warmupSec: 0, durationSec: 0.3 }, async (_n, from) => {
      froms.push(from);
    });
    assert.equal(res.sent, 30);
    for (let i = 1; i < froms.length; i++) assert.ok(Math.abs(froms[i]! - froms[i - 1]! - 10) < 1e-6, `gap ${froms[i]! - froms[i - 1]!}`);
    assert.equal(res.missed, 0);
  });

  it('open loop: a stalled server makes sends beyond the bound count as missed, and the drain waits for the rest', async () => {
    let release!: () => void;
    const stalled = new Promise<void>((r) => { release = r; });
    // Well after the 300 ms schedule, even on a busy machine: every send after the first five is skipped.
    setTimeout(() => release(), 1000);
    let done = 0;
    const res = await runLoop({ mode: 'open', concurrency: 0, rate: 100, warmupSec: 0, durationSec: 0.3, maxOutstanding: 5 }, async () => {
      await stalled;
      done++;
    });
    assert.equal(res.sent, 5);
    assert.equal(res.missed, 25);
    assert.equal(done, 5);
    assert.equal(res.undrained, 0);
  });
});
