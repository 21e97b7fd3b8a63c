// The login throttle with a fake clock: growing waits per address and per account+address, refusals only for a
// source that keeps guessing, and never a lock on the account for its owner coming from elsewhere.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACCOUNT_MAX_MS, BASE_MS, FREE_FAILURES, MAX_WAIT_MS, createLoginThrottle } from '../../../src/channels/web/throttle.ts';

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

void describe('login throttle', () => {
  void it('lets the first failures through at once, then doubles the wait', () => {
    const c = clock();
    const th = createLoginThrottle(c.now);
    for (let i = 0; i < FREE_FAILURES; i++) {
      const d = th.begin('ops@example.com', '10.0.0.1');
      assert.deepEqual(d, { ok: true, waitMs: 0 });
      th.failed('ops@example.com', '10.0.0.1');
    }
    assert.deepEqual(th.begin('ops@example.com', '10.0.0.1'), { ok: true, waitMs: BASE_MS });
    c.advance(BASE_MS);
    th.failed('ops@example.com', '10.0.0.1');
    const next = th.begin('ops@example.com', '10.0.0.1');
    assert.ok(next.ok && next.waitMs === 2 * BASE_MS, JSON.stringify(next));
  });

  void it('queues parallel attempts from one source and refuses those that would wait too long', () => {
    const c = clock();
    const th = createLoginThrottle(c.now);
    for (let i = 0; i < FREE_FAILURES; i++) {
      th.begin('a@example.com', '10.0.0.2');
      th.failed('a@example.com', '10.0.0.2');
    }
    const waits: number[] = [];
    let refused = 0;
    for (let i = 0; i < 20; i++) {
      const d = th.begin(`user${i}@example.com`, '10.0.0.2');
      if (d.ok) waits.push(d.waitMs);
      else refused++;
    }
    assert.deepEqual(waits.slice(0, 3), [BASE_MS, 2 * BASE_MS, 3 * BASE_MS], 'each reserved the next slot');
    assert.ok(waits.every((w) => w <= MAX_WAIT_MS));
    assert.ok(refused > 0);
  });

  void it('never locks the owner out: guesses at his account from elsewhere cost him at most ACCOUNT_MAX_MS', () => {
    const c = clock();
    const th = createLoginThrottle(c.now);
    for (let i = 0; i < 200; i++) {
      const addr = `203.0.113.${i % 250}`;
      th.begin('boss@example.com', addr);
      th.failed('boss@example.com', addr);
    }
    const d = th.begin('boss@example.com', '198.51.100.7');
    assert.ok(d.ok, 'not refused');
    assert.ok(d.waitMs <= ACCOUNT_MAX_MS, `waits ${d.waitMs} ms`);
    th.succeeded('boss@example.com', '198.51.100.7');
    assert.deepEqual(th.begin('boss@example.com', '198.51.100.7'), { ok: true, waitMs: 0 }, 'a success clears the account');
  });

  void it('a success clears the pair but not the address, and old failures are forgotten', () => {
    const c = clock();
    const th = createLoginThrottle(c.now);
    for (let i = 0; i < FREE_FAILURES + 1; i++) {
      th.begin(`x${i}@example.com`, '10.0.0.3');
      th.failed(`x${i}@example.com`, '10.0.0.3');
    }
    c.advance(60_000);
    th.begin('mine@example.com', '10.0.0.3');
    th.succeeded('mine@example.com', '10.0.0.3');
    th.begin('other@example.com', '10.0.0.3');
    th.failed('other@example.com', '10.0.0.3');
    const d = th.begin('third@example.com', '10.0.0.3');
    // FREE_FAILURES + 2 failures of the address: its count survived the success of one of its accounts.
    assert.ok(d.ok && d.waitMs === 4 * BASE_MS, JSON.stringify(d));
    c.advance(16 * 60_000);
    assert.deepEqual(th.begin('other@example.com', '10.0.0.3'), { ok: true, waitMs: 0 });
  });
});
