// The claims' renewal timer (src/intake/renewal.ts): one round at a time, so a renewal that waits (a lock, a
// database that stopped answering) cannot pile statements up on the pool. Timers are node:test's mock timers:
// the periods pass when the test says so, not by sleeping.
import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { createRenewal } from '../../src/intake/renewal.ts';
import { nextTurn } from '../helpers/service.ts';

const log = createLogger('silent');

describe('claims renewal', () => {
  it('starts no round while the last one still runs, and goes on once it has ended', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      const ends: (() => void)[] = [];
      const renewal = createRenewal(100, () => new Promise<void>((resolve) => ends.push(resolve)), log, 'renewal failed');
      renewal.track(true);
      mock.timers.tick(100);
      assert.equal(ends.length, 1, 'the first period starts a round');
      mock.timers.tick(1_000);
      assert.equal(ends.length, 1, 'ten periods pass while it waits: no second statement');
      ends[0]!();
      // The settled round's callbacks run on the event loop's turn; mock timers do not move them.
      await nextTurn();
      mock.timers.tick(100);
      assert.equal(ends.length, 2, 'the next period after it ended starts the next round');
      ends[1]!();
      await nextTurn();
      renewal.track(false);
      mock.timers.tick(1_000);
      assert.equal(ends.length, 2, 'nothing held: no rounds');
    } finally {
      mock.timers.reset();
    }
  });

  it('goes on after a round that failed', async () => {
    mock.timers.enable({ apis: ['setInterval'] });
    try {
      let calls = 0;
      const renewal = createRenewal(100, () => {
        calls++;
        return Promise.reject(new Error('connection lost'));
      }, log, 'renewal failed');
      renewal.track(true);
      mock.timers.tick(100);
      await nextTurn();
      mock.timers.tick(100);
      await nextTurn();
      assert.equal(calls, 2);
      renewal.track(false);
    } finally {
      mock.timers.reset();
    }
  });
});
