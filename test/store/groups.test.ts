// The PostgreSQL group commit's scheduling (src/store/postgres/groups.ts), without a database: which statement a
// group of one runs, that a failed group statement falls back to each call's own statement, that one that found no
// connection fails the whole group at once, and when a new group waits for more calls (the linger): beside a running
// statement, and on an idle writer only while calls stream in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grouped } from '../../src/store/postgres/groups.ts';
import { WriterWaitTimeout } from '../../src/store/postgres/order-writers.ts';
import { nextTurn, waitFor } from '../helpers/service.ts';

/** A grouped doubler whose statements are recorded: `one:x` or `many:x,y`. */
function recorder(opts: Parameters<typeof grouped>[2], failMany: boolean | Error = false) {
  const ran: string[] = [];
  const g = grouped<number, number>(
    async (x) => {
      ran.push(`one:${x}`);
      return x * 2;
    },
    async (xs) => {
      ran.push(`many:${xs.join(',')}`);
      if (failMany) throw failMany === true ? new Error('group statement failed') : failMany;
      return xs.map((x) => x * 2);
    },
    opts,
  );
  return { g, ran };
}

/** A grouped doubler whose group statements each wait until the test releases them (`release()`: the oldest). */
function heldRecorder(opts: Parameters<typeof grouped>[2]) {
  const ran: string[] = [];
  const held: (() => void)[] = [];
  const g = grouped<number, number>(
    async (x) => x * 2,
    async (xs) => {
      ran.push(`many:${xs.join(',')}`);
      await new Promise<void>((resolve) => held.push(resolve));
      return xs.map((x) => x * 2);
    },
    { oneRunsGroup: true, ...opts },
  );
  return { g, ran, release: () => held.shift()?.() };
}

/** Wait (a few event-loop turns at most) until `ok()`; the grouping is all in one process, so it takes turns, not time. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 50; turn++) {
    if (ok()) return;
    await nextTurn();
  }
  assert.fail(`not reached in 50 turns: ${what}`);
}

void describe('grouped (PostgreSQL group commit)', () => {
  void it('runs a group of one with the single-call statement by default', async () => {
    const { g, ran } = recorder({});
    assert.equal(await g.run(3), 6);
    assert.deepEqual(ran, ['one:3']);
  });

  void it('runs a group of one with the group statement when told to', async () => {
    const { g, ran } = recorder({ oneRunsGroup: true });
    assert.equal(await g.run(3), 6);
    assert.deepEqual(ran, ['many:3']);
  });

  void it('sends the calls of one turn together, and falls back to each one alone when the group fails', async () => {
    const { g, ran } = recorder({ oneRunsGroup: true }, true);
    assert.deepEqual(await Promise.all([g.run(1), g.run(2)]), [2, 4]);
    assert.deepEqual(ran, ['many:1,2', 'one:1', 'one:2']);
    ran.length = 0;
    assert.equal(await g.run(5), 10);
    assert.deepEqual(ran, ['many:5', 'one:5'], 'a group of one that fails gets its own statement\'s answer');
  });

  for (const [what, error] of [
    ['no permit of the writers of orders', new WriterWaitTimeout('timeout exceeded after 10000 ms waiting for a connection to write orders (8 in use)')],
    ['no pooled connection', new Error('timeout exceeded when trying to connect')],
  ] as const) {
    void it(`fails the whole group at once when its statement found ${what} in time`, async () => {
      const { g, ran } = recorder({ oneRunsGroup: true }, error);
      const answers = await Promise.allSettled([g.run(1), g.run(2)]);
      assert.deepEqual(answers.map((a) => a.status === 'rejected' && a.reason), [error, error]);
      assert.deepEqual(ran, ['many:1,2'], 'no call was sent again alone, to wait as long again');
    });
  }

  void it('keeps a new group waiting for more calls while another statement runs, and starts it when that one ends', async () => {
    // A linger of a minute: only the end of the running statement can start the waiting group in this test. The
    // calls come within microseconds of one another, a stream; streamGapMs 0 keeps the rule for a store without one.
    const { g, ran, release } = heldRecorder({ lingerMs: 60_000, streamGapMs: 0 });
    const first = g.run(1);
    await until(() => ran.length === 1, 'the first statement running');
    const second = g.run(2);
    await nextTurn();
    const third = g.run(3);
    // Without the linger, 2 would have taken a free slot on its own turn (maxParallel 4).
    for (let turn = 0; turn < 10; turn++) await nextTurn();
    assert.deepEqual(ran, ['many:1'], 'the calls that came while a statement ran wait for one another');
    release();
    assert.equal(await first, 2);
    await until(() => ran.length === 2, 'the waiting group started once the running statement ended');
    assert.deepEqual(ran, ['many:1', 'many:2,3']);
    release();
    assert.deepEqual(await Promise.all([second, third]), [4, 6]);
  });

  void it('starts a waiting group once its linger is over, though another statement still runs', async () => {
    const { g, ran, release } = heldRecorder({ lingerMs: 5 });
    const first = g.run(1);
    await until(() => ran.length === 1, 'the first statement running');
    const second = g.run(2);
    await waitFor(() => (ran.length === 2 ? true : undefined), 5_000, 'the second statement, its linger over');
    assert.deepEqual(ran, ['many:1', 'many:2'], 'the second statement ran beside the first');
    release();
    release();
    assert.deepEqual(await Promise.all([first, second]), [2, 4]);
  });

  void it('starts a group that has enough calls at once, beside a running statement', async () => {
    const { g, ran, release } = heldRecorder({ lingerMs: 60_000, lingerEnough: 3 });
    const first = g.run(1);
    await until(() => ran.length === 1, 'the first statement running');
    const rest = [g.run(2)];
    await nextTurn();
    rest.push(g.run(3), g.run(4));
    await until(() => ran.length === 2, 'the full group started beside the running statement');
    assert.deepEqual(ran, ['many:1', 'many:2,3,4']);
    release();
    release();
    assert.deepEqual(await Promise.all([first, ...rest]), [2, 4, 6, 8]);
  });

  void it('keeps a group that finds no statement running waiting while calls stream in, and not once they stop', async () => {
    let clock = 0;
    const { g, ran } = recorder({ oneRunsGroup: true, lingerMs: 60_000, lingerEnough: 3, streamGapMs: 10, now: () => clock });
    assert.equal(await g.run(1), 2, 'the first call has no gap before it: it goes at once');
    clock = 1; // 1 ms later: a stream of calls
    const waiting = g.run(2);
    for (let turn = 0; turn < 10; turn++) await nextTurn();
    assert.deepEqual(ran, ['many:1'], 'no statement runs, yet the call waits for company');
    const more = [g.run(3), g.run(4)];
    await until(() => ran.length === 2, 'the group started once it had lingerEnough calls');
    assert.deepEqual(ran, ['many:1', 'many:2,3,4']);
    assert.deepEqual(await Promise.all([waiting, ...more]), [4, 6, 8]);
    clock = 2_000; // two seconds of silence: the mean gap is far above 10 ms again
    const after = g.run(5);
    await until(() => ran.length === 3, 'a call after a quiet spell sent alone at once');
    assert.deepEqual(ran, ['many:1', 'many:2,3,4', 'many:5']);
    assert.equal(await after, 10);
  });

  void it('sends a call at once when no statement runs, however long the linger', async () => {
    const { g, ran, release } = heldRecorder({ lingerMs: 60_000 });
    const only = g.run(7);
    await until(() => ran.length === 1, 'the lone call sent without waiting');
    release();
    assert.equal(await only, 14);
  });
});
