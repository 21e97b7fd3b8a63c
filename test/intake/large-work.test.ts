// The heap-growth bound of a large upload (src/heap-growth.ts) is on only while large work is in flight (issue 16):
// set for the whole process it cost every small request about a tenth of REST's throughput. The intake marks a
// submission of LARGE_WORK_BYTES or more as large work while it is stored and while it is judged, and only such a
// submission; the count of holders (the flag is the process's) goes back to 0 after the last one.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { heapGrowthHolders, holdHeapGrowthLimit, limitHeapGrowth } from '../../src/heap-growth.ts';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import type { Principal } from '../../src/domain/types.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { order } from '../helpers/service.ts';
import { seedIntakeStore } from './seed.ts';

const LARGE = 4096;
let real: Store;
let intake: Intake;
let principal: Principal;
/** Holders seen when the store was asked to save and to register, per reference. */
const seen: Array<{ step: string; holders: number }> = [];

before(async () => {
  limitHeapGrowth();
  real = await openSqliteStore(':memory:');
  principal = await seedIntakeStore(real);
  const store = Object.setPrototypeOf({
    saveSubmission: (...args: Parameters<Store['saveSubmission']>) => {
      seen.push({ step: 'save', holders: heapGrowthHolders() });
      return real.saveSubmission(...args);
    },
    registerOrders: (...args: Parameters<Store['registerOrders']>) => {
      seen.push({ step: 'register', holders: heapGrowthHolders() });
      return real.registerOrders(...args);
    },
    saveSingleOrder: (...args: Parameters<Store['saveSingleOrder']>) => {
      seen.push({ step: 'saveSingleOrder', holders: heapGrowthHolders() });
      return real.saveSingleOrder(...args);
    },
  }, real) as Store;
  intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent'), largeWork: holdHeapGrowthLimit, largeWorkBytes: LARGE });
});
after(async () => {
  await intake.stop();
  await real.close();
});

/** A JSON file of `n` orders (an array), large or not by its count. */
function file(prefix: string, n: number) {
  const orders = Array.from({ length: n }, (_, i) => order('C001', `${prefix}-${i}`));
  return { principal, channel: 'ftp' as const, fileName: `${prefix}.json`, raw: Buffer.from(JSON.stringify(orders)) };
}

void it('holds the heap bound while a large file is stored and judged, and lets go after it', async () => {
  const big = file('BIG', 40);
  assert.ok(big.raw.length >= LARGE);
  seen.length = 0;
  const s = await intake.submitInBackground(big);
  await intake.idle();
  assert.equal((await real.getSubmission(s.id))?.state, 'processed');
  assert.ok(seen.some((x) => x.step === 'save'), 'saved');
  assert.ok(seen.some((x) => x.step === 'register'), 'judged');
  assert.deepEqual(seen.filter((x) => x.holders !== 1), [], 'held at every store step of the large file');
  assert.equal(heapGrowthHolders(), 0);
});

void it('does not hold it for small work: a file under the size, a single REST order', async () => {
  seen.length = 0;
  const small = file('SMALL', 1);
  assert.ok(small.raw.length < LARGE);
  await intake.submitInBackground(small);
  await intake.idle();
  const one = await intake.submit({ principal, channel: 'rest', raw: Buffer.from(JSON.stringify(order('C001', 'R-1'))), singleOrder: true });
  assert.equal(one.outcome.esito, 'ok');
  assert.ok(seen.length >= 3, JSON.stringify(seen));
  assert.deepEqual(seen.filter((x) => x.holders !== 0), []);
});

void it('counts holders across overlapping large work: on at the first, off after the last', async () => {
  seen.length = 0;
  await Promise.all([intake.submit(file('A', 40)), intake.submit(file('B', 40))]);
  assert.ok(seen.some((x) => x.holders === 2), `two at once: ${JSON.stringify(seen)}`);
  assert.equal(heapGrowthHolders(), 0);
  const release = holdHeapGrowthLimit();
  release();
  release();
  assert.equal(heapGrowthHolders(), 0, 'a release called twice counts once');
});
