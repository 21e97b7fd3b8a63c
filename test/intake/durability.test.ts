// Which intake writes wait for the disk (WriteOptions in src/store/store.ts). The synchronous path (REST, SOAP)
// answers after completeSubmission, so it may save and register without waiting, and completeSubmission must be
// durable and come last; a channel that acknowledges receipt only (files, e-mail) needs a durable save first.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import type { Store, WriteOptions } from '../../src/store/store.ts';
import type { Principal } from '../../src/intake/types.ts';
import { order, TEST_ARTICLES } from '../helpers/service.ts';

/** Every write of the intake path, with whether it asked to be durable. */
const writes: { what: string; durable: boolean }[] = [];
const durable = (opts?: WriteOptions) => opts?.durable !== false;

let store: Store;
let intake: Intake;
let principal: Principal;

before(async () => {
  const real = await openSqliteStore(':memory:');
  await real.migrate();
  await real.upsertUnits(DEFAULT_UNITS);
  await real.upsertArticles(TEST_ARTICLES);
  const c = await real.createCustomer({ id: 'cust-1', code: 'C001', name: 'Uno', mailbox: 'c001-x@ordini.test' });
  principal = { customerId: c.id, customerCode: c.code };
  store = Object.setPrototypeOf({
    saveSubmission: (s: Parameters<Store['saveSubmission']>[0], opts?: WriteOptions) => {
      writes.push({ what: 'save', durable: durable(opts) });
      return real.saveSubmission(s, opts);
    },
    registerOrders: (items: Parameters<Store['registerOrders']>[0], opts?: WriteOptions) => {
      writes.push({ what: 'register', durable: durable(opts) });
      return real.registerOrders(items, opts);
    },
    completeSubmission: (...args: Parameters<Store['completeSubmission']>) => {
      writes.push({ what: 'complete', durable: true });
      return real.completeSubmission(...args);
    },
  }, real) as Store;
  intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent') });
});
after(() => store.close());

const rest = (ref: string) => ({
  principal, channel: 'rest' as const, mediaType: 'application/json', singleOrder: true, raw: Buffer.from(JSON.stringify(order('C001', ref))),
});

void describe('durability of the intake writes', () => {
  void it('submit: save and register share the fsync of the outcome, which is durable and last', async () => {
    writes.length = 0;
    const { outcome } = await intake.submit(rest('D-1'));
    assert.equal(outcome.esito, 'ok');
    assert.deepEqual(writes, [
      { what: 'save', durable: false }, { what: 'register', durable: false }, { what: 'complete', durable: true },
    ]);
  });

  void it('submitInBackground: the save is durable before it resolves (the channel acknowledges then)', async () => {
    writes.length = 0;
    const s = await intake.submitInBackground({ ...rest('D-2'), channel: 'ftp', fileName: 'd.json', singleOrder: false });
    assert.deepEqual(writes, [{ what: 'save', durable: true }]);
    await intake.idle();
    assert.deepEqual(writes.slice(1), [{ what: 'register', durable: false }, { what: 'complete', durable: true }]);
    assert.equal((await store.getSubmission(s.id))?.state, 'processed');
  });

  void it('receive alone is durable', async () => {
    writes.length = 0;
    await intake.receive(rest('D-3'));
    assert.deepEqual(writes, [{ what: 'save', durable: true }]);
  });
});
