/**
 * The hand-off dispatcher, one per instance: on the instance holding the `handoff-fanout` lease it turns new events
 * into deliveries (fanout.ts); on every instance it claims due deliveries (a lease per delivery, so exactly one
 * instance makes a given attempt) and makes them: a signed POST for a webhook, an atomic file for an export.
 *
 * Results: a webhook answering 2xx is done; 410 Gone fails the delivery and disables the webhook; anything else
 * (5xx, 4xx, 3xx, timeout, refused address, network error) is tried again with back-off (retry.ts) until the give-up
 * period has passed, then the delivery is failed and kept (`webhook replay` sends it again). An export is retried
 * for as long as it takes: the file is the hand-off, and a full disk or an unmounted share is a problem to fix, not
 * a reason to drop orders. A kill -9 in the middle leaves the delivery claimed; when its lease passes it is made
 * again, with the same webhook-id (the event id) and body.
 *
 * Throughput (bench `handoff`, 1,000 orders/s): deliveries are claimed in batches (one claim for every free slot),
 * made several at a time per endpoint (PER_ENDPOINT), and their results recorded in batches (finishDeliveries: one
 * write for every result that came in meanwhile) — one claim and one finish per delivered event made the store's
 * round trips the limit. Per-order order is kept by the claim itself: it hands out only the first pending delivery
 * of an order, and the next becomes claimable only once that one's result is recorded. New events wake the
 * dispatcher at once: local commits through kick(), other instances' through the store's bell (PostgreSQL
 * LISTEN/NOTIFY); the poll is the fallback.
 */
import type { EventReader } from '../domain/order-events.ts';
import { deliverExport } from './export-deliver.ts';
import { fanOut } from './fanout.ts';
import { deliverNotification, type NotifyOptions } from './notify.ts';
import { retryDelay, type RetryPolicy } from './retry.ts';
import { callbackDocument } from './printtalk-callback.ts';
import { openSigningSecret } from './secret.ts';
import type { Resolver } from './target.ts';
import { ConnectionPool, postWebhook } from './webhook-send.ts';
import type { Logger } from '../log.ts';
import { MAX_FINISH_BATCH, type Delivery, type DeliveryResult, type FinishedDelivery, type HandoffBell, type Subscriber } from '../domain/store/handoff.ts';
import type { HandoffPort } from '../domain/store/ports.ts';

export interface HandoffOptions {
  /** Longest webhook exchange (INTAKE_WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  retry: RetryPolicy;
  /** Claim on a delivery (INTAKE_HANDOFF_LEASE_MS): longer than the timeout, so a slow attempt is never doubled. */
  leaseMs: number;
  /** Pause between rounds when there is nothing to do (INTAKE_HANDOFF_POLL_MS). */
  pollMs: number;
  /** Test hook: resolve host names another way (the SSRF check runs on what it returns). */
  resolve?: Resolver;
  /** Event retention (INTAKE_EVENT_RETENTION_DAYS) in milliseconds; undefined: events are kept for ever. */
  retentionMs?: number;
  /** How often the fan-out holder prunes events past retention (default PRUNE_INTERVAL_MS); shorter in tests. */
  pruneIntervalMs?: number;
  /** E-mail notifications (the subscriber of kind mail, notify.ts); without it their deliveries wait. */
  notify?: NotifyOptions;
}

export interface DispatcherDeps {
  store: HandoffPort;
  events: EventReader;
  log: Logger;
  /** This instance, for the fan-out lease and the delivery claims. */
  holder: string;
  secretKey?: string;
  options: HandoffOptions;
  agentVersion: string;
}

export interface Dispatcher {
  /** Something may be there to deliver: start a round now rather than at the next poll. */
  kick(): void;
  close(): Promise<void>;
}

export const FANOUT_LEASE = 'handoff-fanout';
/** The fan-out lease outlives many rounds; the holder extends it every FANOUT_RENEW_MS, not at every round. */
const FANOUT_LEASE_MS = 30_000;
/**
 * How long after taking the fan-out lease its holder goes on without asking the store again. Rounds come up to
 * 40 times a second under load, and taking the lease is a write and a commit on the one lease row every instance
 * competes for (on an idle instance, 5 a second); a third of the lease leaves two thirds of it as the margin
 * against a stalled event loop, which asks again as soon as this has passed.
 */
const FANOUT_RENEW_MS = FANOUT_LEASE_MS / 3;
/**
 * How often an instance that did not get the fan-out lease asks again. The holder gives it up only by stopping
 * (released at once) or dying (its lease runs out): a few seconds more of waiting is nothing against either.
 */
const FANOUT_RETRY_MS = 2_000;
/**
 * Deliveries one instance holds at once (claimed, being made, or waiting for their result to be recorded). Enough
 * for several endpoints to each have PER_ENDPOINT requests open, small enough that a batch of claims is made well
 * within its lease.
 */
const MAX_HELD = 256;
/**
 * Requests open at once to one endpoint (and sockets kept to it). Several, so one receiver's round trip does not
 * bound the rate (4 made 1,000/s unreachable); few enough not to look like a flood to anyone's server. A receiver
 * that is down makes each attempt wait up to the timeout; other endpoints keep their own slots.
 */
export const PER_ENDPOINT = 16;
/**
 * Deliveries of one subscriber a claim hands this instance, and a subscriber it holds that many of already gets
 * none: so one endpoint holds at most about twice this (less than MAX_HELD), and an endpoint that accepts connections
 * and never answers leaves the other webhooks and the hot folder their slots (test/handoff/isolation.test.ts).
 * Four times its open requests keep a fast endpoint's slots fed between claims.
 */
const PER_SUBSCRIBER_CLAIM = 4 * PER_ENDPOINT;
const SUBSCRIBER_TTL_MS = 5000;
/**
 * How long the answer "no active subscriber" is believed. Without one there is nothing to fan out or to claim (a
 * claim hands out only active subscribers' deliveries), so a round then costs no statement: an idle instance made
 * 10 commits a second on PostgreSQL for that (a subscriber list and a claim every poll), and under load each round
 * and each ring of the other instances' bell is one more. A webhook, export or notification added meanwhile (by the
 * CLI, the console or another instance) is seen within this time; its events are not lost meanwhile, they are
 * fanned out from its cursor when it is.
 */
const NO_SUBSCRIBER_TTL_MS = 1000;
/**
 * An attempt starts only if it ends, timeout included, this long before its claim runs out (the configuration keeps
 * the lease at least a second above the timeout, so a delivery started at once always may).
 */
const LEASE_SAFETY_MS = 200;
/** Rounds started by kicks are at least this far apart: a few queries each, not one set per order at 1,000/s. */
const MIN_ROUND_GAP_MS = 25;
/** Retention runs on the fan-out holder this often; old events are not urgent, and each pass is a few deletes. */
const PRUNE_INTERVAL_MS = 60_000;
/**
 * Events deleted per statement, and statements per pass: a pass deletes at most 10,000 events, so a first pass over
 * years of history does not hold the store (on SQLite, the event loop) for long; the next passes go on.
 */
const PRUNE_BATCH = 1000;
const PRUNE_BATCHES_PER_PASS = 10;
/**
 * On PostgreSQL an event committed while an older transaction is still open is readable only once that one ends
 * (src/store/postgres/events.ts), usually milliseconds later; a kicked round that came too early would otherwise
 * leave it to the next poll (INTAKE_HANDOFF_POLL_MS, up to a minute). The holder looks again after this, doubled
 * while the events stay unreadable (a long transaction elsewhere), up to the poll interval.
 */
const UNREADABLE_FIRST_RETRY_MS = 25;

interface Lane {
  waiting: { d: Delivery; claimedAt: number }[];
  active: number;
}

export function startDispatcher(deps: DispatcherDeps): Dispatcher {
  const { store, events, log, holder, options } = deps;
  const attempts = new Set<Promise<void>>();
  const pool = new ConnectionPool(PER_ENDPOINT);
  /**
   * Subscribers (with the secret opened) read once per SUBSCRIBER_TTL_MS rather than per delivery. Whether one is
   * active is decided by the claim itself (disabled subscribers' deliveries are not handed out), so a cached copy
   * only delays a changed URL by that long.
   */
  const subscribers = new Map<string, { s: Subscriber; secret?: string; until: number }>();
  /** Claimed deliveries waiting for a slot of their endpoint, and the attempts open, per subscriber. */
  const lanes = new Map<string, Lane>();
  /** Results not recorded yet. */
  let results: FinishedDelivery[] = [];
  /** Deliveries claimed and not yet recorded: what MAX_HELD bounds. */
  let held = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let bell: HandoffBell | undefined;

  function webhookResult(d: Delivery, a: Awaited<ReturnType<typeof postWebhook>>): DeliveryResult {
    if (a.kind === 'ok') return { outcome: 'done', status: a.status };
    if (a.kind === 'gone') return { outcome: 'failed', status: a.status, error: 'HTTP 410 Gone: the receiver says the endpoint no longer exists' };
    if (Date.now() - Date.parse(d.retrySince) >= options.retry.giveUpMs) {
      return { outcome: 'failed', status: a.status, error: `${a.error} (given up after ${d.attempts} attempts)` };
    }
    return { outcome: 'retry', status: a.status, error: a.error, retryInMs: retryDelay(d.attempts, options.retry) };
  }

  async function attempt(d: Delivery, s: Subscriber): Promise<DeliveryResult> {
    if (s.kind === 'mail') {
      // Like an export, never given up: what can fail is the store, or an order e-mail not finished yet.
      if (!options.notify) return { outcome: 'retry', error: 'e-mail notifications are not set up in this process', retryInMs: retryDelay(d.attempts, options.retry) };
      const r = await deliverNotification(store, options.notify, d.id, d.body);
      if (r.kind === 'later') return { outcome: 'retry', error: r.reason, retryInMs: retryDelay(d.attempts, options.retry) };
      log.debug({ delivery: d.id, ...r }, r.kind === 'queued' ? 'status notification queued' : 'no status notification');
      return { outcome: 'done' };
    }
    if (s.kind === 'export') {
      try {
        const name = await deliverExport(store, s, d.body, deps.agentVersion);
        log.debug({ delivery: d.id, export: s.id, file: name }, 'order exported');
        return { outcome: 'done' };
      } catch (err) {
        const error = (err as Error).message;
        log.warn({ delivery: d.id, export: s.id, dir: s.dir, attempts: d.attempts, error }, 'export not written; will retry');
        return { outcome: 'retry', error, retryInMs: retryDelay(d.attempts, options.retry) };
      }
    }
    const cached = subscribers.get(s.id);
    const secret = cached?.secret ?? openSigningSecret(deps.secretKey, s.secretEnc ?? '', s.id);
    if (cached) cached.secret = secret;
    // A connector's callback sends a PrintTalk document, or nothing when the event is not its connector's.
    let sent: { body: string; contentType?: string } = { body: d.body };
    if (s.connectorId !== undefined) {
      const doc = await callbackDocument(store, s, d.body);
      if (doc.kind === 'skip') {
        log.debug({ delivery: d.id, webhook: s.id, reason: doc.reason }, 'nothing for the connector callback');
        return { outcome: 'done' };
      }
      sent = doc.answer;
    }
    const answer = await postWebhook({
      url: s.url!, allowPrivate: s.allowPrivate, secret, id: d.eventId, ...sent, timeoutMs: options.timeoutMs, resolve: options.resolve, pool,
    });
    const result = webhookResult(d, answer);
    if (answer.kind === 'gone') {
      await store.setSubscriberState(s.id, 'disabled', 'the receiver answered 410 Gone');
      log.warn({ webhook: s.id, url: s.url }, 'webhook disabled: the receiver answered 410 Gone');
    } else if (result.outcome !== 'done') {
      log.warn({ delivery: d.id, webhook: s.id, attempts: d.attempts, status: answer.status, error: 'error' in result ? result.error : undefined },
        result.outcome === 'failed' ? 'webhook delivery given up' : 'webhook delivery failed; will retry');
    }
    return result;
  }

  async function subscriber(id: string): Promise<Subscriber | undefined> {
    const hit = subscribers.get(id);
    if (hit && hit.until > Date.now()) return hit.s;
    const s = await store.getSubscriber(id);
    if (s) subscribers.set(id, { s, until: Date.now() + SUBSCRIBER_TTL_MS });
    else subscribers.delete(id);
    return s;
  }

  async function deliver(d: Delivery): Promise<DeliveryResult | undefined> {
    const s = await subscriber(d.subscriberId);
    if (!s) return undefined; // removed meanwhile: its deliveries went with it
    try {
      return await attempt(d, s);
    } catch (err) {
      // A fault of ours (the secret cannot be opened, the store failed): tried again, the operator sees it in the log.
      log.error({ err, delivery: d.id, subscriber: s.id }, 'delivery could not be attempted');
      return { outcome: 'retry', error: (err as Error).message, retryInMs: retryDelay(d.attempts, options.retry) };
    }
  }

  function record(id: string, result: DeliveryResult | undefined): void {
    if (result) results.push({ id, result });
    else held--;
    scheduleFlush();
  }

  /** Start what the endpoint's slots allow. */
  function pump(subscriberId: string, lane: Lane): void {
    while (lane.active < PER_ENDPOINT && lane.waiting.length > 0) {
      const { d, claimedAt } = lane.waiting.shift()!;
      // Never start an attempt that could outlast the claim: another instance could then make it at the same time.
      // Given back untried instead (a long queue behind an endpoint that times out).
      if (closed || Date.now() + options.timeoutMs + LEASE_SAFETY_MS > claimedAt + options.leaseMs) {
        record(d.id, { outcome: 'retry', retryInMs: 0, error: 'not attempted: given back before its claim ran out' });
        continue;
      }
      lane.active++;
      const p: Promise<void> = deliver(d)
        .then((r) => record(d.id, r), (err: unknown) => {
          log.error({ err, delivery: d.id }, 'delivery failed unexpectedly');
          held--;
        })
        .finally(() => {
          attempts.delete(p);
          lane.active--;
          pump(subscriberId, lane);
          if (lane.active === 0 && lane.waiting.length === 0) lanes.delete(subscriberId);
        });
      attempts.add(p);
    }
  }

  let flushing: Promise<void> | undefined;
  let flushQueued = false;
  /** Record the results in hand in one write; one flush at a time, the next takes what came in meanwhile. */
  function scheduleFlush(): void {
    if (flushQueued || flushing) return;
    flushQueued = true;
    setImmediate(() => {
      flushQueued = false;
      flushing = flush().finally(() => {
        flushing = undefined;
        if (results.length > 0) scheduleFlush();
      });
    });
  }

  async function flush(): Promise<void> {
    while (results.length > 0) {
      const batch = results.slice(0, MAX_FINISH_BATCH);
      results = results.slice(batch.length);
      try {
        const lost = await store.finishDeliveries(holder, batch);
        if (lost.length > 0) log.warn({ deliveries: lost }, 'delivery claims lost before their results were recorded; other attempts may follow');
      } catch (err) {
        // Not recorded: the claims run out and the deliveries are made again (at-least-once), none is lost.
        log.error({ err, deliveries: batch.length }, 'recording delivery results failed; they will be made again');
      }
      held -= batch.length;
    }
    void refill();
  }

  async function claim(): Promise<number> {
    const free = MAX_HELD - held;
    if (free <= 0 || closed) return 0;
    held += free; // reserved while the claim runs, so a concurrent flush's refill does not over-claim
    // The claims' leases start no earlier than this (the store stamps them when it runs the claim).
    const claimedAt = Date.now();
    let batch: Delivery[] = [];
    // Subscribers this instance holds a full share of already (waiting for a slot or being made) get none this time.
    const skip = [...lanes].filter(([, l]) => l.active + l.waiting.length >= PER_SUBSCRIBER_CLAIM).map(([id]) => id);
    try {
      batch = await store.claimDeliveries(holder, options.leaseMs, free, { perSubscriber: PER_SUBSCRIBER_CLAIM, skip });
    } finally {
      held -= free - batch.length;
    }
    const touched = new Set<string>();
    for (const d of batch) {
      let lane = lanes.get(d.subscriberId);
      if (!lane) lanes.set(d.subscriberId, (lane = { waiting: [], active: 0 }));
      lane.waiting.push({ d, claimedAt });
      touched.add(d.subscriberId);
    }
    for (const id of touched) pump(id, lanes.get(id)!);
    return batch.length;
  }

  let claiming: Promise<void> | undefined;
  let again = false;
  /** Claim until the slots are full or nothing is due. One claimer at a time; asking meanwhile asks for another pass. */
  function refill(): Promise<void> {
    if (closed) return Promise.resolve();
    if (claiming) {
      again = true;
      return claiming;
    }
    claiming = (async () => {
      do {
        again = false;
        while (!closed && (await claim()) > 0 && held < MAX_HELD);
      } while (again && !closed);
    })()
      .catch((err: unknown) => log.error({ err }, 'claiming deliveries failed'))
      .finally(() => {
        claiming = undefined;
      });
    return claiming;
  }

  let nextPrune = 0;
  /** Delete events past retention, a few batches per pass (one instance: the fan-out holder). */
  async function prune(): Promise<void> {
    if (options.retentionMs === undefined || Date.now() < nextPrune) return;
    nextPrune = Date.now() + (options.pruneIntervalMs ?? PRUNE_INTERVAL_MS);
    const before = new Date(Date.now() - options.retentionMs).toISOString();
    let deleted = 0;
    for (let i = 0; i < PRUNE_BATCHES_PER_PASS && !closed; i++) {
      const n = await store.pruneEvents(before, PRUNE_BATCH);
      deleted += n;
      if (n < PRUNE_BATCH) break;
    }
    if (deleted > 0) log.info({ deleted, before }, 'order events past retention deleted');
  }

  /** When this instance last took the fan-out lease (before asking, so on the safe side), and when to ask next. */
  let fanoutTakenAt = -Infinity;
  let fanoutNextTry = 0;
  async function holdsFanout(): Promise<boolean> {
    const now = Date.now();
    if (now - fanoutTakenAt < FANOUT_RENEW_MS) return true;
    if (now < fanoutNextTry) return false;
    if (await store.acquireLease(FANOUT_LEASE, holder, FANOUT_LEASE_MS)) {
      fanoutTakenAt = now;
      return true;
    }
    fanoutTakenAt = -Infinity;
    fanoutNextTry = now + FANOUT_RETRY_MS;
    return false;
  }

  /** Rounds in a row that left committed events unreadable (see UNREADABLE_FIRST_RETRY_MS); 0: none waiting. */
  let unreadableRounds = 0;
  /** Until when "no active subscriber" holds without asking the store (0: not known; ask). */
  let noneUntil = 0;
  /** A round skipped on that remembered answer: another is due when it runs out. */
  let owed = false;
  /** The bell not rung for local events on that answer: rung at the next look if a subscriber is there after all. */
  let ringOwed = false;
  /**
   * The subscribers as listed now when any is active; undefined when none is (that answer is kept for
   * NO_SUBSCRIBER_TTL_MS, and the store is not asked meanwhile).
   */
  async function activeSubscribers(): Promise<Subscriber[] | undefined> {
    if (Date.now() < noneUntil) {
      // Answered from what was seen up to a second ago: a round is owed when that runs out, in case a subscriber
      // came meanwhile (a kick or a ring must not wait for a long poll, INTAKE_HANDOFF_POLL_MS).
      owed = true;
      return undefined;
    }
    owed = false;
    const list = await store.listSubscribers({});
    const active = list.some((s) => s.state === 'active');
    noneUntil = active ? 0 : Date.now() + NO_SUBSCRIBER_TTL_MS;
    // Events committed here while the bell was not rung: the instance holding the fan-out hears of them now.
    if (active && ringOwed) ring();
    ringOwed = false;
    return active ? list : undefined;
  }

  async function round(): Promise<void> {
    // Deliveries already claimed are made and recorded whatever the answer (flush refills only while some exist).
    const listed = await activeSubscribers();
    if (await holdsFanout()) {
      // Deliveries queued here may be made by any instance: tell the others (they claim what this one has no slot for).
      if (listed && (await fanOut(store, events, listed)) > 0) ring();
      // Asked only when someone subscribes: without a subscriber nothing waits on those events.
      unreadableRounds = listed && (await events.hasUnreadable?.()) ? unreadableRounds + 1 : 0;
      // Events are kept for the feed too: past retention they go whether or not anyone subscribes.
      await prune().catch((err: unknown) => log.error({ err }, 'deleting order events past retention failed; tried again later'));
    }
    if (listed) await refill();
  }

  let kicked = false;
  let lastRound = 0;
  /** When a kicked round may start: kicks come per processed submission, rounds at most every MIN_ROUND_GAP_MS. */
  const kickedDelay = () => Math.max(0, lastRound + MIN_ROUND_GAP_MS - Date.now());

  let lastRing = 0;
  let ringTimer: NodeJS.Timeout | undefined;
  /** Ring the other instances' bell, at most once per MIN_ROUND_GAP_MS (they would not start rounds more often). */
  function ring(): void {
    if (!bell || ringTimer || closed) return;
    const wait = Math.max(0, lastRing + MIN_ROUND_GAP_MS - Date.now());
    ringTimer = setTimeout(() => {
      ringTimer = undefined;
      lastRing = Date.now();
      bell?.ring();
    }, wait);
  }

  /** Start a round soon (at once, unless one ran less than MIN_ROUND_GAP_MS ago). */
  function wakeUp(): void {
    kicked = true;
    if (!wake) return; // a round is running; it is followed at once by the kicked one
    clearTimeout(timer);
    timer = setTimeout(wake, kickedDelay());
  }

  async function loop(): Promise<void> {
    try {
      bell = await store.openHandoffBell?.(wakeUp);
    } catch (err) {
      log.warn({ err }, 'hand-off bell not available; other instances\' events are found by polling');
    }
    while (!closed) {
      kicked = false;
      lastRound = Date.now();
      try {
        await round();
      } catch (err) {
        log.error({ err }, 'hand-off round failed; trying again shortly');
      }
      if (closed) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        const poll = owed ? Math.min(options.pollMs, Math.max(0, noneUntil - Date.now())) : options.pollMs;
        const unreadable = unreadableRounds > 0 ? UNREADABLE_FIRST_RETRY_MS * 2 ** Math.min(unreadableRounds - 1, 16) : Infinity;
        timer = setTimeout(resolve, kicked ? kickedDelay() : Math.min(poll, unreadable));
      });
      wake = undefined;
    }
  }

  const running = loop();
  return {
    kick() {
      // This process committed events: the other instances (a fan-out lease held elsewhere) hear it too, unless no
      // one subscribes (they find that out themselves, and a subscriber added meanwhile by their poll).
      if (Date.now() >= noneUntil) ring();
      else ringOwed = true;
      wakeUp();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      clearTimeout(ringTimer);
      wake?.();
      await running;
      // Attempts under way end within the timeout; their results (and the deliveries given back untried) are recorded.
      await claiming;
      await Promise.allSettled([...attempts]);
      while (results.length > 0 || flushing || flushQueued) await (flushing ?? new Promise<void>((r) => setImmediate(r)));
      pool.close();
      await bell?.close();
      await store.releaseLease(FANOUT_LEASE, holder).catch(() => undefined);
    },
  };
}
