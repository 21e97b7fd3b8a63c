// Poison submissions (issue 19, item 7): a file whose processing fails every time (here: registering its orders
// throws, as a bug tripped by one file would) is retried a bounded number of times by the sweeper, then given up as
// failed with an outcome saying so, which the channel's listeners get like any other outcome. Before, it stayed
// "received" and was retried at every sweep and start for ever.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createIntake, MAX_SUBMISSION_RETRIES, type Intake, type ProcessedOutcome } from '../../src/intake/intake.ts';
import type { Principal } from '../../src/domain/types.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { order, waitFor } from '../helpers/service.ts';
import { seedIntakeStore } from './seed.ts';

let real: Store;
let intake: Intake;
let principal: Principal;
const told: ProcessedOutcome[] = [];
let failLookups = 0;

before(async () => {
  real = await openSqliteStore(':memory:');
  principal = await seedIntakeStore(real);
  const store = Object.setPrototypeOf({
    knownArticles: (codes: readonly string[]) => {
      // The database failing once while a synchronous order is judged (before anything of it is written).
      if (failLookups > 0) {
        failLookups--;
        return Promise.reject(new Error('the database went away for a moment'));
      }
      return real.knownArticles(codes);
    },
    registerOrders: (items: Parameters<Store['registerOrders']>[0], opts?: Parameters<Store['registerOrders']>[1]) => {
      if (items.some((i) => i.order.riferimento_ordine === 'R-POISON')) return Promise.reject(new Error('a bug tripped by this file'));
      return real.registerOrders(items, opts);
    },
  }, real) as Store;
  intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent'), claimLeaseMs: 50, sweepIntervalMs: 20 });
  intake.onProcessed((_s, o) => {
    told.push(o);
  });
});
after(async () => {
  await intake.stop();
  await real.close();
});

const file = (ref: string) => ({ principal, channel: 'ftp' as const, fileName: `${ref}.json`, raw: Buffer.from(JSON.stringify(order('C001', ref))) });

void it('a submission that fails every time is given up as failed after a bounded number of retries', async () => {
  const poison = await intake.submitInBackground(file('R-POISON'));
  const healthy = await intake.submitInBackground(file('R-HEALTHY'));
  await intake.recover();
  const failed = await waitFor(async () => {
    const s = await real.getSubmission(poison.id);
    return s?.state === 'failed' ? s : undefined;
  }, 15_000, 'the poison submission to be given up');
  assert.equal(failed.retries, MAX_SUBMISSION_RETRIES + 1, 'retried a bounded number of times, visible to operators');
  assert.equal(failed.outcome?.esito, 'errore');
  assert.equal(failed.outcome?.fileError?.code, 'INTERNAL');
  assert.match(failed.outcome?.fileError?.message[0] ?? '', /non è riuscita per 4 volte/);
  assert.ok(told.some((o) => o.submissionId === poison.id && o.fileError?.code === 'INTERNAL'), 'the channel was told the outcome');
  assert.equal((await real.getSubmission(healthy.id))?.state, 'processed', 'the other file was not held up');
  // Given up means given up: later sweeps leave it alone.
  await intake.recover();
  assert.equal((await real.getSubmission(poison.id))?.retries, MAX_SUBMISSION_RETRIES + 1);
  // An operator reprocess starts again from zero (and here fails again, at once, as the bug is still there).
  await assert.rejects(intake.reprocess(poison.id));
  assert.equal((await real.getSubmission(poison.id))?.retries, 0);
});

void it('a synchronous order whose judging fails is kept as received and judged again by the sweeper', async () => {
  failLookups = 1;
  // An article no earlier order named: the intake asks the store for it (codes found before are remembered).
  const raw = Buffer.from(JSON.stringify(order('C001', 'R-SYNC-RETRY', { righe: [{ codice_articolo: 'CAR-A4-80', quantita: 5, unita_misura: 'RS' }] })));
  await assert.rejects(intake.submit({ principal, channel: 'rest', mediaType: 'application/json', singleOrder: true, raw }),
    /went away/);
  // Judged first and saved with its order, the submission was not saved when the lookup failed: it is saved now,
  // as received, so the caller's 5xx loses nothing and the sweeper takes it up.
  const kept = (await real.listSubmissions({ customerId: principal.customerId, limit: 50 }))
    .find((x) => x.channel === 'rest');
  assert.ok(kept, 'the submission was saved after the failure');
  await intake.recover();
  const done = await waitFor(async () => {
    const s = await real.getSubmission(kept.id);
    return s?.state === 'processed' ? s : undefined;
  }, 15_000, 'the kept submission to be judged');
  assert.equal(done.outcome?.esito, 'ok');
  assert.ok(await real.getOrderByRef(principal.customerId, 'R-SYNC-RETRY'));
});

void it('a swept submission whose retry count cannot be written is swept again once its claim lapses', async () => {
  // A store of its own, and a lease long next to its renewals: only a claim given up lets the submission go.
  const own = await openSqliteStore(':memory:');
  const p = await seedIntakeStore(own);
  let failCounts = 1;
  const flaky = Object.setPrototypeOf({
    countRetry: (id: string) => {
      // The database failing once as the sweeper counts a retry (a connection reset, a statement timeout, disk full).
      if (failCounts > 0) {
        failCounts--;
        return Promise.reject(new Error('the database went away for a moment'));
      }
      return own.countRetry(id);
    },
  }, own) as Store;
  const swept = createIntake({ store: flaky, timeZone: 'Europe/Rome', log: createLogger('silent'), claimLeaseMs: 1_500, sweepIntervalMs: 50 });
  try {
    // Saved only (as a crash before judging leaves it): the sweeper is what takes it up.
    const kept = await swept.receive({ ...file('R-COUNT-FAILS'), principal: p });
    await swept.recover();
    assert.equal(failCounts, 0, 'the retry count failed once');
    // Before, the claim taken by the sweep stayed among this instance's claims and was renewed for ever: no sweep of
    // this instance or of any other took the submission up again, and it stayed received until the process ended.
    const done = await waitFor(async () => {
      const s = await own.getSubmission(kept.id);
      return s?.state === 'processed' ? s : undefined;
    }, 15_000, 'the submission to be swept again and judged');
    assert.equal(done.outcome?.esito, 'ok');
    assert.ok(await own.getOrderByRef(p.customerId, 'R-COUNT-FAILS'));
  } finally {
    await swept.stop();
    await own.close();
  }
});
