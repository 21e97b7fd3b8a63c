// The PostgreSQL group commit's scheduling (src/store/postgres/groups.ts), without a database: which statement a
// group of one runs, that a failed group statement falls back to each call's own statement, and that one that found no
// connection fails the whole group at once.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grouped } from '../../src/store/postgres/groups.ts';
import { WriterWaitTimeout } from '../../src/store/postgres/order-writers.ts';

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
});
