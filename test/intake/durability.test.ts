// Durable before acknowledged, observed rather than assumed: the SQLite connection is instrumented so that every
// commit is recorded with the synchronous mode it really ran under (FULL fsyncs the WAL; NORMAL does not). Because
// the WAL is one file appended in commit order, a FULL commit makes every frame before it durable. So a write is
// durable at a given instant exactly when a FULL commit happened at or after its own commit, before that instant.
// The tests check that property at the instant each intake call resolves (when a channel would answer), and that
// the synchronous path spends one fsync per request, not three.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import type { Principal } from '../../src/domain/types.ts';
import { order } from '../helpers/service.ts';
import { DURABLE, instrument, newProbeBuffer, PROBE_ENTRIES } from './durability-probe.ts';
import { seedIntakeStore } from './seed.ts';

/** What the connection did, in order: a commit (with whether it fsynced) or a store call settling. */
type Event = { kind: 'commit'; durable: boolean } | { kind: 'settled'; what: string };
const events: Event[] = [];

// Instrument better-sqlite3 before the store opens its connections, here and on the store's write thread (which
// runs the intake writes): both log their commits into one shared log (durability-probe.ts).
const buffer = newProbeBuffer();
const log = new Int32Array(buffer);
const undo = instrument(buffer);
let drained = 0;
/** Move the commits logged since the last call into `events`, in the order they happened. */
function drain(): void {
  const n = Math.min(Atomics.load(log, 0), PROBE_ENTRIES);
  for (; drained < n; drained++) events.push({ kind: 'commit', durable: Atomics.load(log, drained + 1) === DURABLE });
}

let dir: string;
let store: Store;
let intake: Intake;
let principal: Principal;

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'intake-durability-'));
  const real = await openSqliteStore(path.join(dir, 'intake.sqlite'), {
    // The probe module beside this file, with this file's own extension: .js when the tests run compiled.
    writeThreadProbe: { module: new URL(`./durability-probe${path.extname(import.meta.filename)}`, import.meta.url).href, buffer },
  });
  principal = await seedIntakeStore(real);
  // Record when each intake write settles, to know which commit held it.
  const settled = <K extends 'saveSubmission' | 'saveSingleOrder' | 'registerOrders' | 'completeSubmission'>(what: K) =>
    (async (...args: unknown[]) => {
      const r = await (real[what] as (...a: unknown[]) => Promise<unknown>)(...args);
      drain();
      events.push({ kind: 'settled', what });
      return r;
    }) as Store[K];
  store = Object.setPrototypeOf({
    saveSubmission: settled('saveSubmission'),
    saveSingleOrder: settled('saveSingleOrder'),
    registerOrders: settled('registerOrders'),
    completeSubmission: settled('completeSubmission'),
  }, real) as Store;
  intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent') });
});
after(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
  undo();
});

/**
 * Checks, over the events since `from`, that each settled write was committed and that a durable commit came at
 * or after the commit that held it; returns the writes settled and the number of fsyncing commits.
 */
function observe(from: number): { writes: string[]; fsyncs: number } {
  drain();
  const slice = events.slice(from);
  const writes: string[] = [];
  slice.forEach((e, i) => {
    if (e.kind !== 'settled') return;
    writes.push(e.what);
    // The commit that held this write is the last one before it settled.
    const held = slice.slice(0, i).map((x) => x.kind).lastIndexOf('commit');
    assert.ok(held >= 0, `${e.what} settled without a commit`);
    const durableAfter = slice.slice(held).some((x) => x.kind === 'commit' && x.durable);
    assert.ok(durableAfter, `${e.what} is not on disk yet when the call returns`);
  });
  return { writes, fsyncs: slice.filter((e) => e.kind === 'commit' && e.durable).length };
}

const rest = (ref: string) => ({
  principal, channel: 'rest' as const, mediaType: 'application/json', singleOrder: true, raw: Buffer.from(JSON.stringify(order('C001', ref))),
});

void describe('durability of the intake writes, observed at the connection', () => {
  void it('submit (REST, SOAP): everything is fsynced when it returns, with one fsync for the request', async () => {
    drain();
    const from = events.length;
    const { outcome } = await intake.submit(rest('D-1'));
    assert.equal(outcome.esito, 'ok');
    const seen = observe(from);
    // Saved already processed, with its order registered and its outcome, in one write and one fsync.
    assert.deepEqual(seen.writes, ['saveSingleOrder']);
    assert.equal(seen.fsyncs, 1, 'one fsync for the request');
  });

  void it('submit of a refused order: saved and answered the same way, nothing registered', async () => {
    drain();
    const from = events.length;
    const bad = { ...order('C001', 'D-BAD'), righe: [] };
    const { submission, outcome } = await intake.submit({ ...rest('D-BAD'), raw: Buffer.from(JSON.stringify(bad)) });
    assert.equal(outcome.esito, 'errore');
    const seen = observe(from);
    assert.deepEqual(seen.writes, ['saveSingleOrder']);
    assert.equal(seen.fsyncs, 1);
    const stored = await store.getSubmission(submission.id);
    assert.equal(stored?.state, 'processed');
    assert.deepEqual(stored?.outcome, outcome);
  });

  void it('submitInBackground (files, e-mail): the submission is fsynced before it resolves, judged later', async () => {
    drain();
    const from = events.length;
    const s = await intake.submitInBackground({ ...rest('D-2'), channel: 'ftp', fileName: 'd.json', singleOrder: false });
    assert.deepEqual(observe(from).writes, ['saveSubmission']);
    await intake.idle();
    assert.deepEqual(observe(from).writes, ['saveSubmission', 'registerOrders', 'completeSubmission']);
    assert.equal((await store.getSubmission(s.id))?.state, 'processed');
  });

  void it('receive alone is fsynced when it resolves', async () => {
    drain();
    const from = events.length;
    await intake.receive(rest('D-3'));
    assert.deepEqual(observe(from), { writes: ['saveSubmission'], fsyncs: 1 });
  });

  void it('the probe catches an intake whose save is not durable', async () => {
    // Guard against a probe that cannot fail: the same intake over a store that quietly drops durability.
    const lax = Object.setPrototypeOf({
      saveSubmission: async (sub: Parameters<Store['saveSubmission']>[0]) => {
        const r = await store.saveSubmission(sub, { durable: false });
        return r;
      },
    }, store) as Store;
    const careless = createIntake({ store: lax, timeZone: 'Europe/Rome', log: createLogger('silent') });
    drain();
    const from = events.length;
    await careless.receive(rest('D-4'));
    assert.throws(() => observe(from), /saveSubmission is not on disk yet/);
  });
});
