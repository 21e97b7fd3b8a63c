// The PostgreSQL group commit's scheduling (src/store/postgres/groups.ts), without a database: which statement a
// group of one runs, and that a failed group statement falls back to each call's own statement.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { grouped } from '../../src/store/postgres/groups.ts';

/** A grouped doubler whose statements are recorded: `one:x` or `many:x,y`. */
function recorder(opts: Parameters<typeof grouped>[2], failMany = false) {
  const ran: string[] = [];
  const g = grouped<number, number>(
    async (x) => {
      ran.push(`one:${x}`);
      return x * 2;
    },
    async (xs) => {
      ran.push(`many:${xs.join(',')}`);
      if (failMany) throw new Error('group statement failed');
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
});
