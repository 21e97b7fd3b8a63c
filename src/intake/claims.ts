/**
 * Who processes which submission when several service instances share one database.
 *
 * Before judging a submission an instance claims it in the store for a lease, and renews the lease while the
 * work runs, so two instances never judge the same submission at once. A sweeper claims, every few seconds,
 * whatever was received and is held by no one: work left by a crash or a restart, and the work of an instance
 * that died. A registered instance's claims die with it: each sweep first frees what instances found gone held
 * (store.reapInstances, see docs/development/claims.md), so their work is taken over at the next sweep, not after
 * the lease; the lease remains the backstop for a process that hangs while its session stays open. Registration
 * stays idempotent underneath, so even a claim lost to a stalled process cannot register an order twice.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { IntakeError } from '../domain/errors.ts';
import type { Logger } from '../log.ts';
import type { ClaimStore } from '../domain/store/ports.ts';
import type { Outcome } from '../domain/types.ts';
import { createRenewal } from './renewal.ts';

/**
 * How long a claim lasts unless renewed: how long the work of an instance that died waits before another takes
 * it over. It is renewed every third of it, so only a process stalled for twenty seconds loses its claims.
 */
export const DEFAULT_LEASE_MS = 30_000;
/** How often an instance looks for unclaimed work: the delay before a lapsed claim is taken over. */
export const DEFAULT_SWEEP_MS = 5_000;
/** Submissions claimed per sweep round: small, so a backlog is spread over the instances rather than hoarded. */
const SWEEP_BATCH = 10;
/** Claims renewed per statement (the store's bound for one call is larger). */
const RENEW_CHUNK = 1000;
/** How often a caller waiting for another instance's claim looks again. */
const WAIT_POLL_MS = 100;

export function defaultHolder(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
}

/** `waited`: another holder had it first (and may have registered some of its orders before letting it go). */
export type Taken = { claimed: true; waited: boolean } | { claimed: false; outcome: Outcome };

export interface Claims {
  readonly holder: string;
  /**
   * Claim one submission of `customerId`, waiting while another instance holds it; or its outcome if that instance
   * finished it.
   */
  take(id: string, customerId: string): Promise<Taken>;
  has(id: string): boolean;
  /** The work on `id` ended (recorded, or failed and left to lapse): stop renewing it. */
  done(id: string): void;
  /** Claim the next batch of unclaimed work. */
  claimBatch(): Promise<string[]>;
  /** Stop renewing and give back what is still held, for another instance to take at once. */
  release(): Promise<void>;
  /** Free what instances found gone held (theirs is free for this sweep and any other instance's). */
  reap(): Promise<void>;
}

export function createClaims(store: ClaimStore, log: Logger, holder: string, leaseMs: number): Claims {
  const held = new Set<string>();

  async function renew(): Promise<void> {
    const ids = [...held];
    for (let i = 0; i < ids.length; i += RENEW_CHUNK) {
      const part = ids.slice(i, i + RENEW_CHUNK);
      const kept = new Set(await store.renewClaims(holder, part, leaseMs));
      const lost = part.filter((id) => !kept.has(id) && held.has(id));
      if (lost.length > 0) {
        // Another instance took these over (this one stalled past the lease); registration stays idempotent.
        log.warn({ submissions: lost }, 'claim lost to another instance while processing');
        for (const id of lost) held.delete(id);
      }
    }
  }

  const renewal = createRenewal(Math.floor(leaseMs / 3), renew, log, 'could not renew claims; retrying');
  const track = (): void => renewal.track(held.size > 0);

  return {
    holder,
    async take(id, customerId) {
      // Twice the lease: long enough for a live holder to finish, or for a dead one's claim to lapse.
      const deadline = Date.now() + 2 * leaseMs;
      for (let waited = false; ; waited = true) {
        if (await store.claimSubmission(id, holder, leaseMs)) {
          held.add(id);
          track();
          return { claimed: true, waited };
        }
        // The outcome alone, polled: not the submission with its raw body (a large file's, every WAIT_POLL_MS).
        const outcome = (await store.getSubmissionOutcomes(customerId, [id])).get(id);
        if (outcome) return { claimed: false, outcome };
        if (Date.now() >= deadline) {
          throw new IntakeError('UNAVAILABLE', 'The submission is being processed by another instance; ask for its state later');
        }
        await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
      }
    },
    has: (id) => held.has(id),
    done(id) {
      held.delete(id);
      track();
    },
    async claimBatch() {
      const ids = await store.claimSubmissions(holder, SWEEP_BATCH, leaseMs);
      for (const id of ids) held.add(id);
      track();
      return ids;
    },
    async release() {
      held.clear();
      track();
      await store.releaseClaims(holder);
    },
    async reap() {
      const freed = await store.reapInstances();
      if (freed.instances.length > 0) {
        log.warn({ instances: freed.instances, submissions: freed.submissions, messages: freed.messages, replies: freed.replies, leases: freed.leases },
          'instances gone (process ended without a stop): their claims are free and their work is taken over now');
      }
    },
  };
}

export interface Sweeper {
  /** One full round now (or the round under way): resolves with how many submissions it processed. */
  sweep(): Promise<number>;
  /** Sweep every `intervalMs` from now on. */
  start(): void;
  /** No new round; resolves when the current one has stopped. */
  stop(): Promise<void>;
}

export function createSweeper(deps: {
  claims: Claims;
  log: Logger;
  intervalMs: number;
  process: (id: string) => Promise<unknown>;
}): Sweeper {
  const { claims, log } = deps;
  let running: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let failing = false;

  async function drain(): Promise<number> {
    let total = 0;
    await claims.reap();
    while (!stopped) {
      const ids = await claims.claimBatch();
      if (ids.length === 0) break;
      for (const id of ids) {
        // Left unprocessed on stop: release() gives the claims back.
        if (stopped) break;
        try {
          await deps.process(id);
          total++;
        } catch {
          // Logged by the intake. The claim is kept until it lapses, so the retry waits one lease (a back-off
          // while the database is away) and may be done by any instance.
        }
      }
    }
    return total;
  }

  function sweep(): Promise<number> {
    running ??= drain().finally(() => {
      running = undefined;
    });
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      sweep().then((n) => {
        if (failing) log.info('background processing resumed');
        failing = false;
        if (n > 0) log.info({ processed: n }, 'processed submissions no instance was holding');
      }, (err: unknown) => {
        // One line when it starts failing (the database is away), not one per round.
        if (!failing) log.error({ err }, `looking for unclaimed submissions failed; retrying every ${deps.intervalMs} ms`);
        failing = true;
      }).finally(schedule);
    }, deps.intervalMs);
    // A forgotten sweeper must not keep a process alive; the service's servers do that.
    timer.unref();
  }

  return {
    sweep,
    start() {
      if (!timer && !stopped) schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => undefined);
    },
  };
}
