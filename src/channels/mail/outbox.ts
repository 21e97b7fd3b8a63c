/**
 * The reply sender: hands queued replies to INTAKE_SMTP_RELAY and retries them with backoff while the relay is down
 * or answers 4xx. A reply is queued in the store together with the end of its message (pipeline.ts), so it survives
 * any crash; it leaves the queue only when the relay accepted it (sent) or refused it for good (5xx, or five days of
 * failures: failed, kept, and sendable again with `order-intake replies retry`). A crash between the relay's
 * acceptance and the store's update sends that reply once more, with the same Message-ID.
 *
 * Without a relay nothing is sent: replies stay in the store, listed by `order-intake replies list`.
 *
 * Replies go out with the null sender (MAIL FROM:<>), as RFC 3834 asks of automatic replies: a reply that cannot
 * be delivered must not bounce back into the service.
 */
import nodemailer from 'nodemailer';
import type { Logger } from '../../log.ts';
import type { MailReply } from '../../domain/store/mail.ts';
import type { Store } from '../../domain/store/store.ts';
import { MAIL_LIMITS } from './limits.ts';

export interface RetryPolicy {
  firstMs: number;
  maxMs: number;
  giveUpMs: number;
  /** Longest pause between rounds (replies queued elsewhere, e.g. by the CLI, are noticed within it). */
  idleMs?: number;
}

export interface OutboxDeps {
  store: Store;
  log: Logger;
  /** smtp://host:port (or smtps://, with user:password@ if the relay wants it); undefined: keep replies. */
  relay?: string;
  /** This instance, for the named lease that lets one sender run at a time. */
  holder: string;
  /** Test hook: faster retries. */
  retry?: RetryPolicy;
}

export interface Outbox {
  /** A reply was queued: send now rather than at the next round. */
  kick(): void;
  close(): Promise<void>;
}

const LEASE = 'mail-outbox';
/**
 * Connections to the relay kept open and used at once. One connection per reply costs a greeting each, and relays
 * often delay greetings on purpose (postscreen, smtp-server's 100 ms): that capped replies at ~9/s. A few pooled
 * connections in parallel remove the cap without looking like a flood to the relay.
 */
const RELAY_CONNECTIONS = 3;
/** The sender's lease outlives a round comfortably; it is renewed at every round. */
const LEASE_MS = 2 * 60_000;

export function retryDelay(attempts: number, p: RetryPolicy): number {
  return Math.min(p.maxMs, p.firstMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
}

/** The relay's answer as the operator should read it (nodemailer puts the SMTP reply in `response`). */
function relayAnswer(err: unknown): { text: string; permanent: boolean } {
  const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
  const text = (e.response ?? e.message ?? String(err)).replace(/\s+/g, ' ').slice(0, 500);
  const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
  return { text: e.code && !text.includes(e.code) ? `${e.code}: ${text}` : text, permanent };
}

export function startOutbox(deps: OutboxDeps): Outbox {
  const { store, log, relay, holder } = deps;
  const policy: RetryPolicy = deps.retry ?? {
    firstMs: MAIL_LIMITS.replyRetryFirstMs, maxMs: MAIL_LIMITS.replyRetryMaxMs, giveUpMs: MAIL_LIMITS.replyGiveUpMs,
  };
  if (!relay) {
    log.warn('INTAKE_SMTP_RELAY is not set: replies are kept in the store and not sent (see "order-intake replies list")');
    return { kick() {}, async close() {} };
  }
  const transport = nodemailer.createTransport({
    url: relay,
    pool: true,
    maxConnections: RELAY_CONNECTIONS,
    connectionTimeout: MAIL_LIMITS.relayTimeoutMs,
    greetingTimeout: MAIL_LIMITS.relayTimeoutMs,
    socketTimeout: MAIL_LIMITS.relayTimeoutMs,
  });

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let running: Promise<void> = Promise.resolve();

  async function send(r: MailReply): Promise<void> {
    try {
      await transport.sendMail({ envelope: { from: '', to: [r.recipient] }, raw: r.raw });
      await store.markReplySent(r.id);
      log.info({ reply: r.id, mail: r.mailId, to: r.recipient, attempts: r.attempts }, 'reply sent');
    } catch (err) {
      const { text, permanent } = relayAnswer(err);
      const age = Date.now() - Date.parse(r.createdAt);
      if (permanent || age >= policy.giveUpMs) {
        await store.markReplyFailed(r.id, text);
        log.error({ reply: r.id, mail: r.mailId, to: r.recipient, attempts: r.attempts, error: text },
          permanent ? 'the relay refused the reply for good' : 'reply given up after retrying for too long');
      } else {
        const delay = retryDelay(r.attempts, policy);
        await store.markReplyFailed(r.id, text, delay);
        log.warn({ reply: r.id, to: r.recipient, attempts: r.attempts, retryInMs: delay, error: text }, 'reply not sent; will retry');
      }
    }
  }

  async function round(): Promise<void> {
    if (!(await store.acquireLease(LEASE, holder, LEASE_MS))) return;
    for (let batch = await store.claimDueReplies(MAIL_LIMITS.replySendLeaseMs, MAIL_LIMITS.replyBatch, holder);
      batch.length > 0 && !closed;
      batch = await store.claimDueReplies(MAIL_LIMITS.replySendLeaseMs, MAIL_LIMITS.replyBatch, holder)) {
      const queue = [...batch];
      const senders = Array.from({ length: Math.min(RELAY_CONNECTIONS, queue.length) }, async () => {
        for (let r = queue.shift(); r !== undefined && !closed; r = queue.shift()) await send(r);
      });
      // allSettled: a failing store write must not start the next round while other sends of this one still run.
      const failed = (await Promise.allSettled(senders)).find((s) => s.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  async function loop(): Promise<void> {
    while (!closed) {
      let pause: number = policy.idleMs ?? MAIL_LIMITS.replyIdleMs;
      try {
        await round();
        pause = Math.min(pause, (await store.nextReplyDueInMs()) ?? pause);
      } catch (err) {
        log.error({ err }, 'reply sender round failed; trying again shortly');
      }
      if (closed) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, Math.max(pause, 50));
      });
      wake = undefined;
    }
  }

  running = loop();
  return {
    kick() {
      if (timer) clearTimeout(timer);
      wake?.();
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      wake?.();
      await running;
      await store.releaseLease(LEASE, holder).catch(() => undefined);
      transport.close();
    },
  };
}
