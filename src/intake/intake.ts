/**
 * The intake core: the one place every channel hands its submissions to.
 *
 * Lifecycle of a submission: receive (raw bytes committed: the channel may acknowledge now) → process (claim it,
 * judge it, record the outcome) → processed listeners (file channels write outcome files, e-mail queues the reply).
 * A submission that was received but not processed (crash, restart, an instance that died) is claimed and
 * processed by the sweeper that recover() starts (see claims.ts).
 */
import { createHash } from 'node:crypto';
import { uuidv7 } from '../domain/uuid7.ts';
import { withoutUndefined } from '../domain/objects.ts';
import { ARTICLE_MEMORY_MS, MAX_KNOWN_CODES, rememberKnown } from './known-codes.ts';
import { createClaims, createSweeper, defaultHolder, DEFAULT_LEASE_MS, DEFAULT_SWEEP_MS } from './claims.ts';
import { judge, tallyOf, type Judgement } from './judge.ts';
import type { PeppolSettings } from './ubl-resolve.ts';
import type { Logger } from '../log.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { ClaimLostError, type NewSubmission, type SingleJudged, type WriteOptions } from '../domain/store/store.ts';
import type { IntakeStore } from '../domain/store/ports.ts';
import type { Outcome, StoredSubmission, Submission } from '../domain/types.ts';

/**
 * Times the sweeper takes up a submission left unprocessed (an internal error, a crash while judging it) before it
 * gives it up as failed, with an outcome saying so. A submission that fails this often fails for what it is (a file
 * that trips a bug), not for a passing fault; retrying it at every sweep and start for ever only burns time and
 * hides it from operators. The count is kept in the store (submissions.retries), so a crash loop counts too.
 */
export const MAX_SUBMISSION_RETRIES = 3;

/**
 * What listeners are told of a recorded outcome: its verdict and how many orders it has, not every order (a large
 * file's are read from the store when needed: Store.getSubmission).
 */
export type ProcessedOutcome = Omit<Outcome, 'orders'> & { orderCount: number };

export type ProcessedListener = (submission: StoredSubmission, outcome: ProcessedOutcome) => void | Promise<void>;

export interface Intake {
  /** Commit the raw submission; resolves once it is durable. */
  receive(sub: Submission): Promise<StoredSubmission>;
  /**
   * Judge a received submission and record its outcome (already processed: its recorded outcome). `known` is the
   * submission as just saved, sparing a read of its raw body.
   */
  process(id: string, known?: StoredSubmission): Promise<Outcome>;
  /** receive + process: for channels that answer with the outcome (REST, SOAP). */
  submit(sub: Submission): Promise<{ submission: StoredSubmission; outcome: Outcome }>;
  /**
   * receive, then process in the background: for channels that acknowledge receipt only. `onSettled` is called
   * when the background processing has ended, whichever way (e.g. to give back a memory budget).
   */
  submitInBackground(sub: Submission, opts?: { onSettled?: () => void }): Promise<StoredSubmission>;
  /** Put a submission back and process it again (operator action, e.g. after the catalog was fixed). */
  reprocess(id: string): Promise<Outcome>;
  /**
   * Process everything received and held by no instance; resolves with how many. From then on, keep looking for
   * such work every sweepIntervalMs (work left by an instance that died is taken over at the next sweep: its claims
   * die with it, see claims.ts; a hung instance's once they lapse).
   */
  recover(): Promise<number>;
  /**
   * Call `listener` after each submission this instance judged (its outcome committed). Subscribers (src/main.ts): the
   * event feed's long polls and the hand-off dispatcher, woken at once rather than at their next poll.
   */
  onProcessed(listener: ProcessedListener): void;
  /** Resolves when no background processing is under way (graceful stop, tests). */
  idle(): Promise<void>;
  /** Stop looking for work, wait for what is under way, and give back any claim still held (graceful stop). */
  stop(): Promise<void>;
}

export interface IntakeDeps {
  store: IntakeStore;
  timeZone: string;
  log: Logger;
  now?: () => Date;
  /** This instance's name on its claims; unique per process (default host:pid:random). */
  holder?: string;
  /** How long a claim lasts unless renewed (default DEFAULT_LEASE_MS). */
  claimLeaseMs?: number;
  /** How often to look for unclaimed work after recover() (default DEFAULT_SWEEP_MS). */
  sweepIntervalMs?: number;
  /** Counts submissions and orders by channel and outcome (GET /metrics). */
  metrics?: Pick<Metrics, 'decided'>;
  /**
   * Called when a large submission (LARGE_WORK_BYTES of raw bytes or more) starts being stored or judged; the
   * function it returns when that ends. `serve` bounds the heap's growth meanwhile (src/heap-growth.ts).
   */
  largeWork?: () => () => void;
  /** Raw bytes from which a submission is large work (default LARGE_WORK_BYTES). */
  largeWorkBytes?: number;
  /** How long an article found is remembered (default ARTICLE_MEMORY_MS; 0: asked every time). */
  articleMemoryMs?: number;
  /** Our Peppol identifier and unit mapping (INTAKE_PEPPOL_ID, INTAKE_PEPPOL_UNITS), for UBL documents. */
  peppol?: PeppolSettings;
}

/**
 * Raw bytes from which a submission counts as large work. Starting large work costs a full collection (see
 * src/heap-growth.ts: tens of milliseconds), small next to judging a file of this size (a 4 MiB CSV is about
 * 40,000 lines); below it, what judging a file leaves as garbage is small next to the heap V8 keeps anyway.
 */
export const LARGE_WORK_BYTES = 4 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** A judgement as recorded, with the customer whose outcome it is (to read a large file's back: process()). */
type Decided = Judgement & { customerId: string };

export function createIntake(deps: IntakeDeps): Intake {
  const { store, log } = deps;
  const now = deps.now ?? (() => new Date());
  const listeners: ProcessedListener[] = [];
  // One judgement per submission at a time in this process: recovery and a background task may reach the same id.
  const inFlight = new Map<string, Promise<Decided>>();
  const background = new Set<Promise<unknown>>();
  const leaseMs = deps.claimLeaseMs ?? DEFAULT_LEASE_MS;
  const claims = createClaims(store, log, deps.holder ?? defaultHolder(), leaseMs);
  const largeBytes = deps.largeWorkBytes ?? LARGE_WORK_BYTES;
  /** Runs `work`, marked as large work while it runs when the submission's raw bytes are large. */
  function sized<T>(s: Pick<Submission, 'raw' | 'rawFile'>, work: () => Promise<T>): Promise<T> {
    if (!deps.largeWork || (s.rawFile?.size ?? s.raw.length) < largeBytes) return work();
    const release = deps.largeWork();
    return work().finally(release);
  }
  // Judging registers orders without waiting for the disk: completeSubmission, which always follows before
  // anything is acknowledged or told to a listener, is a durable write and makes them durable too (WriteOptions).
  // Catalog codes found are remembered (known-codes.ts: units for good, articles for a few seconds).
  const judgeStore: IntakeStore = Object.setPrototypeOf({
    // Fenced by this instance's claim: one that stalled past its lease registers nothing after a takeover.
    registerOrders: (items: Parameters<IntakeStore['registerOrders']>[0]) => store.registerOrders(items, { durable: false, heldBy: claims.holder }),
    // Fenced too: a large file's outcome is read back from these rows.
    recordAttempts: (id: string, orders: Parameters<IntakeStore['recordAttempts']>[1]) => store.recordAttempts(id, orders, { durable: false, heldBy: claims.holder }),
    knownArticles: rememberKnown((codes) => store.knownArticles(codes), MAX_KNOWN_CODES, deps.articleMemoryMs ?? ARTICLE_MEMORY_MS),
    knownUnits: rememberKnown((codes) => store.knownUnits(codes)),
  }, store) as IntakeStore;

  /** The row a submission is saved as: its id, its reserved order id and its hash are chosen here. */
  function newSubmission(sub: Submission): NewSubmission {
    return {
      // An upload streamed into the store is saved under its upload's id: the row adopts the pieces written by it.
      id: sub.rawFile?.staged?.id ?? uuidv7(),
      customerId: sub.principal.customerId,
      customerCode: sub.principal.customerCode,
      channel: sub.channel,
      fileName: sub.fileName,
      mediaType: sub.mediaType,
      charset: sub.charset,
      raw: sub.rawFile ? EMPTY : sub.raw,
      ...(sub.rawFile ? { rawFile: sub.rawFile } : {}),
      meta: sub.meta ?? {},
      singleOrder: sub.singleOrder ?? false,
      site: sub.site,
      sites: sub.principal.sites,
      connectorId: sub.principal.connectorId,
      reservedOrderId: sub.singleOrder ? uuidv7() : undefined,
      sha256: sub.rawFile?.sha256 ?? createHash('sha256').update(sub.raw).digest('hex'),
      receivedAt: now().toISOString(),
    };
  }

  async function receive(sub: Submission, opts?: WriteOptions): Promise<StoredSubmission> {
    return sized(sub, () => store.saveSubmission(newSubmission(sub), opts));
  }

  /**
   * The synchronous path of one order (REST, SOAP, the portal's form): judged before it is saved, then saved already
   * processed in one durable write (store.saveSingleOrder), which registers the order and records the outcome its
   * registration makes; the answer is that outcome. One write instead of four (save, claim, register, outcome).
   * What a crash can lose is still only what no one was told was received. A failure while judging saves the
   * submission as received, as the other paths have it by then, so it is judged again later.
   */
  async function submitOne(fresh: NewSubmission): Promise<{ submission: StoredSubmission; outcome: Outcome }> {
    const s: StoredSubmission = withoutUndefined({ ...fresh, state: 'received', attempts: 0 });
    let asked = false;
    let saved: Outcome | undefined;
    const save = async (judged: SingleJudged) => {
      asked = true;
      const done = await store.saveSingleOrder(fresh, judged, now().toISOString());
      saved = done.outcome;
      return done.results;
    };
    // Judging's one registration is the save; the outcome judging then builds from its answer is the one the store
    // recorded (both by singleOrderOutcome), and the store's is the answer.
    const firstWrite: IntakeStore = Object.setPrototypeOf({
      registerOrders: (items: Parameters<IntakeStore['registerOrders']>[0]) => {
        if (saved || items.length !== 1) throw new Error(`a single order's submission registers one order, once (asked for ${items.length})`);
        return save({ item: items[0]! });
      },
    }, judgeStore) as IntakeStore;
    const run = sized(fresh, async (): Promise<Decided> => {
      let outcome: Outcome;
      try {
        // One order: never more than a batch, so the Judgement is whole (no tally).
        const judged = await judge({ store: firstWrite, timeZone: deps.timeZone, now, peppol: deps.peppol }, s);
        // Refused before any registration: saved now, with that outcome.
        if (!saved) await save({ outcome: judged.outcome });
        outcome = saved!;
      } catch (err) {
        log.error({ err, submission: s.id }, 'processing failed; submission kept for retry');
        // Not saved (or not known to be): saved as received, for the sweeper. If the write did commit after all (a
        // write thread that died after its commit), this one fails on the id: logged, nothing lost.
        if (!saved) {
          await store.saveSubmission(fresh).catch((e: unknown) => {
            log.warn({ err: e, submission: s.id, firstWriteTried: asked }, 'could not save a submission whose processing failed');
          });
        }
        throw err;
      }
      await finished(s, { outcome });
      return { outcome, customerId: s.customerId };
    });
    inFlight.set(s.id, run);
    try {
      return { submission: s, outcome: (await run).outcome };
    } finally {
      inFlight.delete(s.id);
    }
  }

  /** After an outcome is recorded: logged, counted, told to the listeners. */
  async function finished(s: StoredSubmission, { outcome, tally }: Judgement): Promise<void> {
    const t = tally ?? tallyOf(outcome);
    const orderCount = t.accepted + t.duplicate + t.rejected;
    log.info({
      submission: s.id, channel: s.channel, customer: s.customerCode, esito: outcome.esito,
      orders: orderCount, accepted: t.accepted + t.duplicate, rejected: t.rejected,
      fileError: outcome.fileError?.code,
    }, 'submission processed');
    deps.metrics?.decided(s.channel, { esito: outcome.esito, ...t });
    // A large file's outcome holds only some of its orders here (Judgement): the listeners get the submission without it.
    await notify({ ...s, state: 'processed', ...(tally ? {} : { outcome }) }, outcome, orderCount);
  }

  async function notify(s: StoredSubmission, outcome: Outcome, orderCount = outcome.orders.length): Promise<void> {
    const { orders: _orders, ...verdict } = outcome;
    const told: ProcessedOutcome = { ...verdict, orderCount };
    for (const l of listeners) {
      try {
        await l(s, told);
      } catch (err) {
        log.error({ err, submission: s.id }, 'outcome listener failed');
      }
    }
  }

  async function run(id: string, known?: StoredSubmission): Promise<Decided> {
    try {
      return await judgeClaimed(id, known);
    } finally {
      claims.done(id);
    }
  }

  async function judgeClaimed(id: string, known?: StoredSubmission): Promise<Decided> {
    // The caller that has just saved it passes it, saving a read of the raw body; if its state moved meanwhile
    // (another holder finished it), the claim below finds out.
    const s = known ?? await store.getSubmission(id);
    if (!s) throw new Error(`submission ${id} not found`);
    const { customerId } = s;
    if ((s.state === 'processed' || s.state === 'failed') && s.outcome) return { outcome: s.outcome, customerId };
    // Saved by this caller just now (`known`), it cannot have registered anything yet, unless another instance had it
    // first; read back, it may have (judge.ts, JudgeDeps.resumed).
    let resumed = known === undefined;
    if (!claims.has(id)) {
      const taken = await claims.take(id, customerId);
      // Another instance held it and has finished it meanwhile: its answer is the answer.
      if (!taken.claimed) return { outcome: taken.outcome, customerId };
      resumed ||= taken.waited;
    }
    let j: Judgement;
    let recorded = false;
    try {
      j = await sized(s, async () => {
        const judged = await judge({ store: judgeStore, timeZone: deps.timeZone, now, resumed, peppol: deps.peppol }, s);
        // Fenced like its registrations: a takeover may be registering what this judgement refused.
        recorded = await store.completeSubmission(id, 'processed', judged.outcome, now().toISOString(),
          judged.tally ? { attemptsRecorded: true, heldBy: claims.holder } : { heldBy: claims.holder });
        return judged;
      });
    } catch (err) {
      if (err instanceof ClaimLostError) {
        // Stalled past the lease: another instance holds the work now (or has finished it). Nothing more was
        // registered; wait for that instance's outcome, or judge again if it lets go (claims.take).
        log.warn({ submission: id }, 'claim lost to another instance while registering or recording; its judgement is awaited');
        claims.done(id);
        return judgeClaimed(id);
      }
      // An internal failure (a bug, the database gone) must not lose the submission: it stays received, its
      // claim lapses and it is tried again after the lease, by any instance; the caller sees a generic 5xx.
      log.error({ err, submission: id }, 'processing failed; submission kept for retry');
      throw err;
    }
    if (!recorded) return { outcome: await outcomeThatStands(id, customerId), customerId };
    await finished(s, j);
    return { ...j, customerId };
  }

  /**
   * The outcome another judgement recorded first. This instance stalled past its lease while another took the work
   * over and finished first (claims.ts); its own judgement wrote nothing (Store.completeSubmission) and is not
   * announced: the listeners (outcome files, replies, metrics) heard of the submission from the one that recorded it.
   */
  async function outcomeThatStands(id: string, customerId: string): Promise<Outcome> {
    // The outcome alone (a large file's read back from its attempts), not the submission with its raw body.
    const stored = (await store.getSubmissionOutcomes(customerId, [id])).get(id);
    if (!stored) throw new Error(`submission ${id} has no outcome recorded`);
    log.warn({ submission: id }, 'outcome recorded first by another instance; this judgement discarded');
    return stored;
  }

  /** Judge and record (or find recorded) a submission's outcome; a large file's orders stay in the store (Judgement). */
  function decide(id: string, known?: StoredSubmission): Promise<Decided> {
    const running = inFlight.get(id);
    if (running) return running;
    const p = run(id, known).finally(() => inFlight.delete(id));
    inFlight.set(id, p);
    return p;
  }

  /**
   * decide, and the whole Outcome for a caller that renders it: a large file's is read back from the store, after
   * judging has let go of everything else (only callers that render it pay for it: not a background upload).
   */
  async function process(id: string, known?: StoredSubmission): Promise<Outcome> {
    const d = await decide(id, known);
    if (!d.tally) return d.outcome;
    const whole = (await store.getSubmissionOutcomes(d.customerId, [id])).get(id);
    if (!whole) throw new Error(`submission ${id} has no outcome recorded`);
    return whole;
  }

  function track(p: Promise<unknown>): void {
    const q = p.catch(() => undefined).finally(() => background.delete(q));
    background.add(q);
  }

  /** A submission the sweeper takes up again: counted, and given up once it has failed too often (poison work). */
  async function processSwept(id: string): Promise<unknown> {
    // decide() lets go of its claim however it ends; a failure before it (the database away) must too, or the claim
    // the sweep took is renewed for as long as this process lives and no sweep ever takes the submission up again.
    const letGo = (err: unknown): never => {
      if (!inFlight.has(id)) claims.done(id);
      log.error({ err, submission: id }, 'processing failed; submission kept for retry');
      throw err;
    };
    const retries = await store.countRetry(id).catch(letGo);
    if (retries <= MAX_SUBMISSION_RETRIES) return decide(id);
    const s = await store.getSubmission(id).catch(letGo);
    if (!s || s.state !== 'received') {
      claims.done(id);
      return s?.outcome;
    }
    const outcome: Outcome = {
      submissionId: id, esito: 'errore', orders: [],
      fileError: {
        code: 'INTERNAL',
        message: [`Il file non è stato elaborato: l'elaborazione non è riuscita per ${retries} volte. Il file è conservato e il servizio clienti può farlo elaborare di nuovo; in alternativa lo invii di nuovo.`],
      },
    };
    let recorded: boolean;
    try {
      recorded = await store.completeSubmission(id, 'failed', outcome, now().toISOString(), { heldBy: claims.holder });
    } finally {
      claims.done(id);
    }
    if (!recorded) return outcomeThatStands(id, s.customerId);
    log.error({ submission: id, channel: s.channel, customer: s.customerCode, retries }, 'submission given up as failed after repeated processing failures');
    await notify({ ...s, state: 'failed', outcome }, outcome);
    return outcome;
  }

  const sweeper = createSweeper({ claims, log, intervalMs: deps.sweepIntervalMs ?? DEFAULT_SWEEP_MS, process: processSwept });

  async function idle(): Promise<void> {
    while (background.size > 0) await Promise.all([...background]);
  }

  return {
    receive,
    process: (id, known) => process(id, known),
    async submit(sub) {
      if (sub.singleOrder) return submitOne(newSubmission(sub));
      // Nothing is acknowledged before the outcome is recorded, and that write is durable: the save may share
      // its fsync (WriteOptions). A crash before it loses only what no one was told was received.
      const submission = await receive(sub, { durable: false });
      const outcome = await process(submission.id, submission);
      return { submission, outcome };
    },
    async submitInBackground(sub, opts) {
      let submission: StoredSubmission;
      try {
        submission = await receive(sub);
      } catch (err) {
        opts?.onSettled?.();
        throw err;
      }
      // The submission as saved is passed on: reading its raw body back would be one more copy of the whole file.
      track(decide(submission.id, submission).finally(() => opts?.onSettled?.()));
      return submission;
    },
    async reprocess(id) {
      await inFlight.get(id)?.catch(() => undefined);
      await store.resetSubmission(id);
      return process(id);
    },
    async recover() {
      try {
        return await sweeper.sweep();
      } finally {
        sweeper.start();
      }
    },
    onProcessed(listener) {
      listeners.push(listener);
    },
    idle,
    async stop() {
      await sweeper.stop();
      await idle();
      await Promise.all([...inFlight.values()].map((p) => p.catch(() => undefined)));
      await claims.release();
    },
  };
}
