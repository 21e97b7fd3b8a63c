/**
 * The intake core: the one place every channel hands its submissions to.
 *
 * Lifecycle of a submission: receive (raw bytes committed: the channel may acknowledge now) → process (judge and
 * record the outcome) → processed listeners (file channels write outcome files, e-mail queues the reply).
 * A submission that was received but not processed (crash, restart) is processed by recover() at start.
 */
import { createHash } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { judge } from './judge.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';
import type { Outcome, StoredSubmission, Submission } from './types.ts';

export type ProcessedListener = (submission: StoredSubmission, outcome: Outcome) => void | Promise<void>;

export interface Intake {
  /** Commit the raw submission; resolves once it is durable. */
  receive(sub: Submission): Promise<StoredSubmission>;
  /** Judge a received submission and record its outcome (already processed: its recorded outcome). */
  process(id: string): Promise<Outcome>;
  /** receive + process: for channels that answer with the outcome (REST, SOAP). */
  submit(sub: Submission): Promise<{ submission: StoredSubmission; outcome: Outcome }>;
  /** receive, then process in the background: for channels that acknowledge receipt only. */
  submitInBackground(sub: Submission): Promise<StoredSubmission>;
  /** Put a submission back and process it again (operator action, e.g. after the catalog was fixed). */
  reprocess(id: string): Promise<Outcome>;
  /** Process everything received and not yet processed; resolves with how many. */
  recover(): Promise<number>;
  onProcessed(listener: ProcessedListener): void;
  /** Resolves when no background processing is under way (graceful stop, tests). */
  idle(): Promise<void>;
}

export interface IntakeDeps {
  store: Store;
  timeZone: string;
  log: Logger;
  now?: () => Date;
}

/** Pending submissions fetched per recovery round: bounds memory when a long outage left many behind. */
const RECOVERY_BATCH = 100;

export function createIntake(deps: IntakeDeps): Intake {
  const { store, log } = deps;
  const now = deps.now ?? (() => new Date());
  const listeners: ProcessedListener[] = [];
  // One judgement per submission at a time in this process: recovery and a background task may reach the same id.
  const inFlight = new Map<string, Promise<Outcome>>();
  const background = new Set<Promise<unknown>>();

  async function receive(sub: Submission): Promise<StoredSubmission> {
    return store.saveSubmission({
      id: uuidv7(),
      customerId: sub.principal.customerId,
      customerCode: sub.principal.customerCode,
      channel: sub.channel,
      fileName: sub.fileName,
      mediaType: sub.mediaType,
      charset: sub.charset,
      raw: sub.raw,
      meta: sub.meta ?? {},
      singleOrder: sub.singleOrder ?? false,
      site: sub.site,
      sites: sub.principal.sites,
      connectorId: sub.principal.connectorId,
      reservedOrderId: sub.singleOrder ? uuidv7() : undefined,
      sha256: createHash('sha256').update(sub.raw).digest('hex'),
      receivedAt: now().toISOString(),
    });
  }

  async function notify(s: StoredSubmission, outcome: Outcome): Promise<void> {
    for (const l of listeners) {
      try {
        await l(s, outcome);
      } catch (err) {
        log.error({ err, submission: s.id }, 'outcome listener failed');
      }
    }
  }

  async function run(id: string): Promise<Outcome> {
    const s = await store.getSubmission(id);
    if (!s) throw new Error(`submission ${id} not found`);
    if (s.state === 'processed' && s.outcome) return s.outcome;
    let outcome: Outcome;
    try {
      outcome = await judge({ store, timeZone: deps.timeZone, now }, s);
    } catch (err) {
      // An internal failure (a bug, the database gone) must not lose the submission: it stays received and is
      // tried again at the next start; the caller sees a generic 5xx.
      log.error({ err, submission: id }, 'processing failed; submission kept for retry');
      throw err;
    }
    await store.completeSubmission(id, 'processed', outcome, now().toISOString());
    const okCount = outcome.orders.filter((o) => o.esito === 'ok').length;
    log.info({
      submission: id, channel: s.channel, customer: s.customerCode, esito: outcome.esito,
      orders: outcome.orders.length, accepted: okCount, rejected: outcome.orders.length - okCount,
      fileError: outcome.fileError?.code,
    }, 'submission processed');
    await notify({ ...s, state: 'processed', outcome }, outcome);
    return outcome;
  }

  function process(id: string): Promise<Outcome> {
    const running = inFlight.get(id);
    if (running) return running;
    const p = run(id).finally(() => inFlight.delete(id));
    inFlight.set(id, p);
    return p;
  }

  function track(p: Promise<unknown>): void {
    const q = p.catch(() => undefined).finally(() => background.delete(q));
    background.add(q);
  }

  return {
    receive,
    process,
    async submit(sub) {
      const submission = await receive(sub);
      const outcome = await process(submission.id);
      return { submission, outcome };
    },
    async submitInBackground(sub) {
      const submission = await receive(sub);
      track(process(submission.id));
      return submission;
    },
    async reprocess(id) {
      await inFlight.get(id)?.catch(() => undefined);
      await store.resetSubmission(id);
      return process(id);
    },
    async recover() {
      let total = 0;
      const failed = new Set<string>();
      for (;;) {
        const ids = (await store.pendingSubmissionIds(RECOVERY_BATCH + failed.size)).filter((id) => !failed.has(id));
        if (ids.length === 0) return total;
        for (const id of ids) {
          try {
            await process(id);
            total++;
          } catch {
            failed.add(id); // logged in run(); left received for the next start
          }
        }
      }
    },
    onProcessed(listener) {
      listeners.push(listener);
    },
    async idle() {
      while (background.size > 0) await Promise.all([...background]);
    },
  };
}
