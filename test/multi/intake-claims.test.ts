// Several intakes (as several service instances have) on one store: each submission is judged once, work held
// by an instance that is gone is taken over when its claim lapses, and a failed attempt is retried after the
// lease. Runs on PostgreSQL (one fresh schema per test) when INTAKE_TEST_DATABASE_URL is set; the single-process
// cases also on SQLite.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import { JUDGE_BATCH_ORDERS } from '../../src/intake/judge.ts';
import { createLogger } from '../../src/log.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Customer, Store } from '../../src/domain/store/store.ts';
import type { Outcome } from '../../src/domain/types.ts';
import { waitFor } from '../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';

const log = createLogger('silent');
const ARTICLES = [{ codice_articolo: 'BV-STD', descrizione: 'Biglietti', unita_misura: 'PZ' }];

interface Backend {
  /** A fresh database; `open` gives another store on it (another instance). */
  make(): Promise<{ open(): Promise<Store>; cleanup(): Promise<void> }>;
}

/** SQLite serves one process, whose claims live in its one store: every intake here shares it. */
const sqlite: Backend = {
  async make() {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-claims-'));
    let store: Store | undefined;
    return {
      open: async () => {
        if (store) return store;
        store = await openSqliteStore(path.join(dir, 'intake.sqlite'));
        await store.migrate();
        return store;
      },
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
};

const postgres: Backend = {
  async make() {
    const schema = await createSchema(testDatabaseUrl!);
    return {
      open: async () => {
        const s = await openPostgresStore(testDatabaseUrl!, { schema: schema.name, max: 4 });
        await s.migrate();
        return s;
      },
      cleanup: () => schema.drop(),
    };
  },
};

async function setUp(store: Store): Promise<Customer> {
  await store.upsertUnits([{ code: 'PZ', description: 'pezzi' }]);
  await store.upsertArticles(ARTICLES);
  const c = await store.createCustomer({ id: `cust-${Math.random()}`, code: 'C001', name: 'Cliente', mailbox: 'c001@ordini.test' });
  return c;
}

function orderFile(ref: string): Buffer {
  return Buffer.from(JSON.stringify({
    codice_cliente: 'C001', riferimento_ordine: ref, data_ordine: '2026-01-10',
    righe: [{ codice_articolo: 'BV-STD', quantita: 100, unita_misura: 'PZ' }],
  }));
}

function intakeOn(store: Store, holder: string, over: { claimLeaseMs?: number; sweepIntervalMs?: number } = {}): { intake: Intake; seen: string[] } {
  const intake = createIntake({ store, timeZone: 'Europe/Rome', log, holder, sweepIntervalMs: 50, ...over });
  const seen: string[] = [];
  intake.onProcessed((s) => {
    seen.push(s.id);
  });
  return { intake, seen };
}

async function receiveAll(intake: Intake, c: Customer, n: number, prefix: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const s = await intake.receive({ principal: { customerId: c.id, customerCode: c.code }, channel: 'ftp', raw: orderFile(`${prefix}-${i}`), fileName: `${prefix}-${i}.json` });
    ids.push(s.id);
  }
  return ids;
}

/**
 * `store` as used by an instance whose event loop stops just before it calls `at` (a long GC pause, a loaded
 * machine): neither its claim renewals nor that call reach the database until `resume()`; `reached` settles when it
 * got there.
 */
function stallingBefore(store: Store, at: 'completeSubmission' | 'registerOrders' | 'recordAttempts'): { store: Store; reached: Promise<void>; resume: () => void } {
  let resume!: () => void;
  const stall = new Promise<void>((r) => {
    resume = r;
  });
  let arrived!: () => void;
  const reached = new Promise<void>((r) => {
    arrived = r;
  });
  const call = store[at] as (...args: unknown[]) => Promise<unknown>;
  const slow = {
    ...store,
    async renewClaims(holder: string, ids: readonly string[], leaseMs: number) {
      await stall;
      return store.renewClaims(holder, ids, leaseMs);
    },
    async [at](...args: unknown[]) {
      arrived();
      await stall;
      return call.apply(store, args);
    },
  } as Store;
  return { store: slow, reached, resume };
}

/**
 * Two instances on one fresh PostgreSQL schema: `first` (on `firstOn(a stalling before at)`, lease 300 ms) stalls
 * before `at`, `second` (on `taker(b)`, lease 10 s) can take its work over. `run` drives them up to the takeover (it
 * may lift the stall itself with `resume`) and returns the stalled caller's promise; the stall is then lifted and
 * `check` gets what that caller answered. Both instances and stores are always closed.
 */
async function withStalledPair(
  at: 'completeSubmission' | 'registerOrders' | 'recordAttempts',
  taker: (b: Store) => Store,
  run: (p: { a: Store; b: Store; first: ReturnType<typeof intakeOn>; second: ReturnType<typeof intakeOn>; reached: Promise<void>; resume: () => void }) =>
    Promise<{ late: Promise<Outcome>; check: (resumed: Outcome) => Promise<void> }>,
  firstOn: (slow: Store) => Store = (slow) => slow,
): Promise<void> {
  const db = await postgres.make();
  const [a, b] = [await db.open(), await db.open()];
  const { store: slow, reached, resume } = stallingBefore(a, at);
  const first = intakeOn(firstOn(slow), 'stalled', { claimLeaseMs: 300 });
  const second = intakeOn(taker(b), 'taker', { claimLeaseMs: 10_000 });
  try {
    const { late, check } = await run({ a, b, first, second, reached, resume });
    resume();
    await check(await late);
  } finally {
    resume();
    await first.intake.stop();
    await second.intake.stop();
    await a.close();
    await b.close();
    await db.cleanup();
  }
}

/** A store whose catalog has forgotten every article: judging refuses whatever it has not registered already. */
function forgetful(store: Store): Store {
  return { ...store, knownArticles: async () => new Set<string>() };
}

/**
 * The stalled-refusal races: the stalled instance refuses (its catalog forgets), and `lateWrite` settles once its late
 * `at` has been answered, whichever way; the instance that takes over stalls before recording its outcome (`taker`).
 */
function lateRefusal(at: 'completeSubmission' | 'recordAttempts') {
  let wrote!: () => void;
  const lateWrite = new Promise<void>((r) => {
    wrote = r;
  });
  let slowTaker: ReturnType<typeof stallingBefore> | undefined;
  return {
    lateWrite,
    firstOn: (slow: Store): Store => forgetful(at === 'completeSubmission'
      ? { ...slow, completeSubmission: (...args) => slow.completeSubmission(...args).finally(wrote) }
      : { ...slow, recordAttempts: (...args) => slow.recordAttempts(...args).finally(wrote) }),
    taker: (b: Store): Store => (slowTaker = stallingBefore(b, 'completeSubmission')).store,
    slowTaker: () => slowTaker!,
  };
}

function shared(backend: Backend): void {
  void it('judged again, answers registered for the orders the submission registered before, whatever the checks say now', async () => {
    const db = await backend.make();
    const store = await db.open();
    const first = intakeOn(failingCommits(store, 1), 'first', { claimLeaseMs: 60_000 });
    const second = intakeOn(forgetful(store), 'second');
    try {
      const c = await setUp(store);
      const [id, untouched] = await receiveAll(first.intake, c, 2, 'G');
      // The order is registered, then the outcome cannot be recorded (a crash there leaves the same).
      await assert.rejects(first.intake.process(id!), /unavailable/);
      const [registered] = await store.listOrders({ customerId: c.id });
      assert.equal(registered?.riferimento_ordine, 'G-0');
      await first.intake.stop(); // gives its claim back
      // Judged again after a change that would refuse it now: the registration is a fact (the ERP may have it).
      const again = await second.intake.process(id!);
      assert.equal(again.esito, 'ok', JSON.stringify(again));
      assert.equal(again.orders[0]?.numero_ordine, registered.numero_ordine, 'the same number');
      assert.notEqual(again.orders[0]?.duplicate, true, 'registered by this submission, not a duplicate of it');
      const s = await store.getSubmission(id!);
      assert.equal(s?.attempts, 1);
      assert.deepEqual(s?.outcome, again);
      // The checks still run for what it did not register.
      const refused = await second.intake.process(untouched!);
      assert.equal(refused.esito, 'errore');
      assert.equal(refused.orders[0]?.code, 'BUSINESS');
      assert.equal((await store.listOrders({ customerId: c.id })).length, 1);
    } finally {
      await first.intake.stop();
      await second.intake.stop();
      await store.close();
      await db.cleanup();
    }
  });

  void it('three intakes recovering together judge every submission once', async () => {
    const db = await backend.make();
    const stores = [await db.open(), await db.open(), await db.open()];
    const intakes = stores.map((s, k) => intakeOn(s, `instance-${k}`));
    try {
      const c = await setUp(stores[0]!);
      const ids = await receiveAll(intakes[0]!.intake, c, 30, 'R');
      const counts = await Promise.all(intakes.map((i) => i.intake.recover()));
      assert.equal(counts.reduce((a, b) => a + b, 0), 30);
      const seen = intakes.flatMap((i) => i.seen);
      assert.equal(seen.length, 30, 'each submission judged once, by one instance');
      assert.deepEqual(new Set(seen), new Set(ids));
      const orders = await stores[0]!.listOrders({ limit: 100 });
      assert.equal(orders.length, 30);
      assert.equal(new Set(orders.map((o) => o.numero_ordine)).size, 30);
      for (const id of ids) assert.equal((await stores[0]!.getSubmission(id))?.attempts, 1);
    } finally {
      for (const i of intakes) await i.intake.stop();
      for (const s of stores) await s.close();
      await db.cleanup();
    }
  });
}

void describe('claims between intakes: postgres', { skip: PG_SKIP }, () => {
  shared(postgres);

  void it('takes over the work of an instance that died, once its claim lapses', async () => {
    const db = await postgres.make();
    const [a, b] = [await db.open(), await db.open()];
    const heir = intakeOn(b, 'heir');
    try {
      const c = await setUp(a);
      const [id] = await receiveAll(intakeOn(a, 'unused').intake, c, 1, 'D');
      // What a SIGKILL leaves: a claim nobody renews.
      assert.deepEqual(await a.claimSubmissions('dead-instance', 10, 800), [id]);
      await a.close();
      assert.equal(await heir.intake.recover(), 0, 'the claim still runs: not taken at once');
      const done = await waitFor(async () => {
        const s = await b.getSubmission(id!);
        return s?.state === 'processed' ? s : undefined;
      }, 10_000, 'the sweeper to take over');
      assert.equal(done.outcome?.esito, 'ok');
      // Announced once its commit has answered: a moment after the row reads processed from another connection.
      await waitFor(async () => (heir.seen.length > 0 ? true : undefined), 5_000, 'the heir to announce the outcome');
      assert.deepEqual(heir.seen, [id]);
    } finally {
      await heir.intake.stop();
      await b.close();
      await db.cleanup();
    }
  });

  void it('waits for another instance that holds a submission, and answers with its outcome', async () => {
    const db = await postgres.make();
    const [a, b] = [await db.open(), await db.open()];
    const first = intakeOn(a, 'first');
    // What the waiting instance reads: the whole submission (raw body included) once, then only its outcome.
    const reads = { whole: 0, outcome: 0 };
    const counted: Store = {
      ...b,
      async getSubmission(id) {
        reads.whole++;
        return b.getSubmission(id);
      },
      async getSubmissionOutcomes(customerId, ids) {
        reads.outcome++;
        return b.getSubmissionOutcomes(customerId, ids);
      },
    };
    const second = intakeOn(counted, 'second');
    try {
      const c = await setUp(a);
      const [id] = await receiveAll(first.intake, c, 1, 'W');
      assert.equal(await a.claimSubmission(id!, 'first', 60_000), true);
      const waiting = second.intake.process(id!);
      await waitFor(async () => reads.outcome >= 3 || undefined, 10_000, 'the waiting instance to look a few times');
      const outcome = await first.intake.process(id!);
      assert.deepEqual(await waiting, outcome);
      assert.deepEqual(first.seen, [id], 'judged by the holder');
      assert.deepEqual(second.seen, [], 'not judged again by the one that waited');
      assert.equal(reads.whole, 1, 'the raw body read once, not at every look');
    } finally {
      await first.intake.stop();
      await second.intake.stop();
      await a.close();
      await b.close();
      await db.cleanup();
    }
  });

  void it('keeps the outcome of the instance that took over from one stalled past its lease, which records nothing', async () => {
    // The stalled instance has judged and is about to record when its event loop stops (a long GC pause, a loaded
    // machine): neither its renewal nor its outcome reaches the database until the other has taken the work over
    // and recorded. Its late outcome must then record nothing, announce nothing (no second outcome file, reply
    // or refusal event), and its caller gets the outcome that stands.
    await withStalledPair('completeSubmission', (b) => b, async ({ a, b, first, second, reached }) => {
      const c = await setUp(a);
      const [id] = await receiveAll(first.intake, c, 1, 'L');
      const late = first.intake.process(id!);
      await reached;
      const taken = await second.intake.process(id!);
      assert.deepEqual(second.seen, [id], 'taken over once the stalled lease lapsed, and announced');
      return { late, check: async (resumed) => {
        assert.deepEqual(resumed, taken, 'the stalled caller answers with the outcome that stands');
        assert.deepEqual(first.seen, [], 'the late judgement is not announced');
        const s = await b.getSubmission(id!);
        assert.equal(s?.attempts, 1, 'one outcome recorded');
        assert.deepEqual(s?.outcome, taken);
        assert.equal((await b.listOrders({ customerId: c.id })).length, 1, 'one order registered');
      } };
    });
  });

  void it('registers nothing once another instance took over from one stalled past its lease before registering', async () => {
    // The stalled instance has judged the order acceptable and is about to register it when its event loop stops.
    // Meanwhile the other takes the work over and refuses the order (here: its catalog no longer knows the article).
    // The late registration must write nothing: an order registered under a refusal would reach the ERP while the
    // customer is told it was refused. Its caller gets the outcome that stands.
    await withStalledPair('registerOrders', forgetful, async ({ a, b, first, second, reached }) => {
      const c = await setUp(a);
      const [id] = await receiveAll(first.intake, c, 1, 'N');
      const late = first.intake.process(id!);
      await reached;
      const taken = await second.intake.process(id!);
      assert.equal(taken.esito, 'errore', 'refused by the instance that took over');
      return { late, check: async (resumed) => {
        assert.deepEqual(resumed, taken, 'the stalled caller answers with the outcome that stands');
        assert.equal((await b.listOrders({ customerId: c.id })).length, 0, 'nothing registered by the stalled instance');
        assert.deepEqual(first.seen, [], 'the late judgement is not announced');
        assert.equal((await b.getSubmission(id!))?.attempts, 1);
      } };
    });
  });

  void it('records no refusal from an instance stalled past its lease over an order the instance that took over registered', async () => {
    // The reverse of the case above. The stalled instance has refused the order (its catalog did not know the article
    // yet) and is about to record that when its event loop stops. The other takes the work over, now accepts the order
    // (the article was added meanwhile: the catalog only grows) and registers it, and is about to record its outcome
    // when the stalled one resumes. The late refusal must record nothing: recorded first, it stood as the outcome, and
    // the customer was told "refused" of an order registered and sent to the ERP.
    const race = lateRefusal('completeSubmission');
    await withStalledPair('completeSubmission', race.taker, async ({ a, b, first, second, reached, resume }) => {
      const slowTaker = race.slowTaker();
      try {
        const c = await setUp(a);
        const [id] = await receiveAll(first.intake, c, 1, 'V');
        const late = first.intake.process(id!);
        await reached;
        const taken = second.intake.process(id!);
        await slowTaker.reached;
        assert.equal((await b.listOrders({ customerId: c.id })).length, 1, 'registered by the instance that took over');
        resume();
        await race.lateWrite;
        slowTaker.resume();
        const outcome = await taken;
        return { late, check: async (resumed) => {
          const s = await b.getSubmission(id!);
          const orders = await b.listOrders({ customerId: c.id });
          assert.equal(orders.length, 1);
          assert.equal(s?.outcome?.esito, 'ok', `an order registered under a recorded refusal: ${JSON.stringify(s?.outcome)}`);
          assert.equal(s?.outcome?.orders[0]?.numero_ordine, orders[0]!.numero_ordine);
          assert.deepEqual(outcome, s?.outcome);
          assert.deepEqual(resumed, s?.outcome, 'the stalled caller answers with the outcome that stands');
          assert.deepEqual(first.seen, [], 'the late judgement is not announced');
          assert.equal(s?.attempts, 1, 'one outcome recorded');
        } };
      } finally {
        slowTaker.resume();
      }
    }, race.firstOn);
  });

  void it('writes no refused attempt of a large file from an instance stalled past its lease over what the one that took over registered', async () => {
    // A file of more than one batch has its orders' attempts written batch by batch (judge.ts, recordAttempts), and its
    // outcome is read back from them. The stalled instance refused every order (its catalog did not know the article
    // yet) and is about to write the first batch's attempts; the other takes over, registers every order, writes their
    // attempts and is about to record the verdict when the stalled one resumes. Its refusals must not land over the
    // registered orders' attempts: the outcome read back would tell the customer that registered orders were refused.
    const race = lateRefusal('recordAttempts');
    await withStalledPair('recordAttempts', race.taker, async ({ a, b, first, second, reached, resume }) => {
      const slowTaker = race.slowTaker();
      try {
        const c = await setUp(a);
        const n = JUDGE_BATCH_ORDERS + 5;
        const raw = Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => ({
          codice_cliente: 'C001', riferimento_ordine: `B-${i}`, data_ordine: '2026-01-10',
          righe: [{ codice_articolo: 'BV-STD', quantita: 100, unita_misura: 'PZ' }],
        }))));
        const { id } = await first.intake.receive({ principal: { customerId: c.id, customerCode: c.code }, channel: 'ftp', raw, fileName: 'big.json' });
        const late = first.intake.process(id);
        await reached;
        const taken = second.intake.process(id);
        await slowTaker.reached;
        assert.ok(await b.getOrderByRef(c.id, 'B-0') && await b.getOrderByRef(c.id, `B-${n - 1}`), 'registered by the instance that took over');
        resume();
        await race.lateWrite;
        slowTaker.resume();
        const outcome = await taken;
        return { late, check: async (resumed) => {
          const s = await b.getSubmission(id);
          const refused = s?.outcome?.orders.filter((o) => o.esito !== 'ok') ?? [];
          assert.equal(refused.length, 0, `registered orders told refused: ${JSON.stringify(refused.slice(0, 2))} and ${Math.max(0, refused.length - 2)} more`);
          assert.equal(s?.outcome?.esito, 'ok');
          assert.equal(s?.outcome?.orders.length, n);
          assert.deepEqual(outcome, s?.outcome);
          assert.deepEqual(resumed, s?.outcome, 'the stalled caller answers with the outcome that stands');
        } };
      } finally {
        slowTaker.resume();
      }
    }, race.firstOn);
  });
});

/** The store refusing the first `n` commits of an outcome, as it does while the database is away. */
function failingCommits(store: Store, n: number): Store {
  let failures = n;
  return {
    ...store,
    async completeSubmission(id, state, outcome, at) {
      if (failures-- > 0) throw new Error('the database is unavailable');
      return store.completeSubmission(id, state, outcome, at);
    },
  };
}

void describe('claims between intakes: sqlite', () => {
  shared(sqlite);

  void it('retries a failed attempt once its lease lapses, judging it once', async () => {
    const db = await sqlite.make();
    const store = await db.open();
    const { intake, seen } = intakeOn(failingCommits(store, 1), 'solo', { claimLeaseMs: 300 });
    try {
      const c = await setUp(store);
      const [id, other] = await receiveAll(intake, c, 2, 'F');
      await assert.rejects(intake.process(id!), /unavailable/);
      assert.equal(await store.claimSubmission(id!, 'someone-else', 60_000), false, 'the failed one stays claimed for a while');
      await intake.recover();
      // Processed in the store and announced: the intake tells its listeners after the commit has resolved, which a
      // read of the store can see first (on a slow machine it did, and `seen` lacked the retried one).
      const done = await waitFor(async () => {
        const s = await store.getSubmission(id!);
        return s?.state === 'processed' && seen.includes(id!) ? s : undefined;
      }, 10_000, 'the retry after the lease');
      assert.equal(done.attempts, 1);
      assert.equal(done.outcome?.esito, 'ok');
      assert.deepEqual(new Set(seen), new Set([id, other]));
      assert.equal(seen.filter((s) => s === id).length, 1, 'the failed one judged to the end once');
    } finally {
      await intake.stop();
      await store.close();
      await db.cleanup();
    }
  });

  void it('gives its claims back on stop, for another instance to take at once', async () => {
    const db = await sqlite.make();
    const store = await db.open();
    const { intake } = intakeOn(failingCommits(store, 1), 'leaving', { claimLeaseMs: 60_000 });
    try {
      const c = await setUp(store);
      const [id] = await receiveAll(intake, c, 1, 'S');
      await assert.rejects(intake.process(id!), /unavailable/);
      assert.equal(await store.claimSubmission(id!, 'heir', 60_000), false);
      await intake.stop();
      assert.equal(await store.claimSubmission(id!, 'heir', 60_000), true);
    } finally {
      await intake.stop();
      await store.close();
      await db.cleanup();
    }
  });
});
