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
 */
import type { EventReader } from '../domain/order-events.ts';
import { deliverExport } from './export-deliver.ts';
import { fanOut } from './fanout.ts';
import { retryDelay, type RetryPolicy } from './retry.ts';
import { openSigningSecret } from './secret.ts';
import type { Resolver } from './target.ts';
import { ConnectionPool, postWebhook } from './webhook-send.ts';
import type { Logger } from '../log.ts';
import type { Delivery, DeliveryResult, Subscriber } from '../domain/store/handoff.ts';
import type { Store } from '../domain/store/store.ts';

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
}

export interface DispatcherDeps {
  store: Store;
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
/** The fan-out lease outlives several rounds; it is taken again (so extended) at every round. */
const FANOUT_LEASE_MS = 30_000;
/**
 * Deliveries made at once by one instance. A receiver that is down makes each attempt wait up to the timeout; with
 * several in parallel, one slow endpoint does not hold up the others, and the number stays small enough not to
 * look like a flood to anyone's server.
 */
const CONCURRENCY = 16;
const SUBSCRIBER_TTL_MS = 5000;
/** Rounds started by kicks are at least this far apart: a few queries each, not one set per order at 1,000/s. */
const MIN_ROUND_GAP_MS = 25;

export function startDispatcher(deps: DispatcherDeps): Dispatcher {
  const { store, events, log, holder, options } = deps;
  const inflight = new Set<Promise<void>>();
  const pool = new ConnectionPool();
  /**
   * Subscribers (with the secret opened) read once per SUBSCRIBER_TTL_MS rather than per delivery. Whether one is
   * active is decided by the claim itself (disabled subscribers' deliveries are not handed out), so a cached copy
   * only delays a changed URL by that long.
   */
  const subscribers = new Map<string, { s: Subscriber; secret?: string; until: number }>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;

  function webhookResult(d: Delivery, a: Awaited<ReturnType<typeof postWebhook>>): DeliveryResult {
    if (a.kind === 'ok') return { outcome: 'done', status: a.status };
    if (a.kind === 'gone') return { outcome: 'failed', status: a.status, error: 'HTTP 410 Gone: the receiver says the endpoint no longer exists' };
    if (Date.now() - Date.parse(d.retrySince) >= options.retry.giveUpMs) {
      return { outcome: 'failed', status: a.status, error: `${a.error} (given up after ${d.attempts} attempts)` };
    }
    return { outcome: 'retry', status: a.status, error: a.error, retryInMs: retryDelay(d.attempts, options.retry) };
  }

  async function attempt(d: Delivery, s: Subscriber): Promise<DeliveryResult> {
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
    const answer = await postWebhook({
      url: s.url!, allowPrivate: s.allowPrivate, secret, id: d.eventId, body: d.body, timeoutMs: options.timeoutMs, resolve: options.resolve, pool,
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

  async function deliver(d: Delivery): Promise<void> {
    const s = await subscriber(d.subscriberId);
    if (!s) return;
    let result: DeliveryResult;
    try {
      result = await attempt(d, s);
    } catch (err) {
      // A fault of ours (the secret cannot be opened, the store failed): tried again, the operator sees it in the log.
      log.error({ err, delivery: d.id, subscriber: s.id }, 'delivery could not be attempted');
      result = { outcome: 'retry', error: (err as Error).message, retryInMs: retryDelay(d.attempts, options.retry) };
    }
    if (!(await store.finishDelivery(d.id, holder, result))) {
      log.warn({ delivery: d.id }, 'delivery claim lost before its result was recorded; another attempt may follow');
    }
  }

  async function claim(): Promise<number> {
    const free = CONCURRENCY - inflight.size;
    if (free <= 0 || closed) return 0;
    const batch = await store.claimDeliveries(holder, options.leaseMs, free);
    for (const d of batch) {
      const p: Promise<void> = deliver(d)
        .catch((err: unknown) => log.error({ err, delivery: d.id }, 'recording a delivery failed'))
        .finally(() => {
          inflight.delete(p);
          void refill();
        });
      inflight.add(p);
    }
    return batch.length;
  }

  let claiming: Promise<void> | undefined;
  let again = false;
  /**
   * Claim until the slots are full or nothing is due. One claimer at a time (a finished delivery asking while a
   * claim runs just asks for one more pass), so the slots are never over-filled.
   */
  function refill(): Promise<void> {
    if (closed) return Promise.resolve();
    if (claiming) {
      again = true;
      return claiming;
    }
    claiming = (async () => {
      do {
        again = false;
        while (!closed && (await claim()) > 0 && inflight.size < CONCURRENCY);
      } while (again && !closed);
    })()
      .catch((err: unknown) => log.error({ err }, 'claiming deliveries failed'))
      .finally(() => {
        claiming = undefined;
      });
    return claiming;
  }

  async function round(): Promise<void> {
    if (await store.acquireLease(FANOUT_LEASE, holder, FANOUT_LEASE_MS)) await fanOut(store, events);
    await refill();
  }

  let kicked = false;
  let lastRound = 0;
  /** When a kicked round may start: kicks come per processed submission, rounds at most every MIN_ROUND_GAP_MS. */
  const kickedDelay = () => Math.max(0, lastRound + MIN_ROUND_GAP_MS - Date.now());

  function kick(): void {
    kicked = true;
    if (!wake) return; // a round is running; it is followed at once by the kicked one
    clearTimeout(timer);
    timer = setTimeout(wake, kickedDelay());
  }

  async function loop(): Promise<void> {
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
        timer = setTimeout(resolve, kicked ? kickedDelay() : options.pollMs);
      });
      wake = undefined;
    }
  }

  const running = loop();
  return {
    kick,
    async close() {
      closed = true;
      clearTimeout(timer);
      wake?.();
      await running;
      // Attempts under way end within the timeout; their results are recorded so they are not made again.
      await claiming;
      await Promise.allSettled([...inflight]);
      pool.close();
      await store.releaseLease(FANOUT_LEASE, holder).catch(() => undefined);
    },
  };
}
