/**
 * Throttling unknown recipients (mailbox guessing). A customer's mailbox address is the e-mail channel's only
 * credential, so a client that names one unknown mailbox after another is guessing: each refusal past
 * MAIL_LIMITS.badRecipientsFree waits longer, and the connection is closed at badRecipientsPerConnection (Postfix's
 * smtpd_soft_error_limit / smtpd_error_sleep_time / smtpd_hard_error_limit). The count per client address outlives
 * the connection for badRecipientMemoryMs, so reconnecting costs the guesser the same delay.
 */
import { MAIL_LIMITS } from './limits.ts';

export interface RecipientLimits {
  free: number;
  perConnection: number;
  delayMs: number;
  delayMaxMs: number;
  memoryMs: number;
}

export const DEFAULT_RECIPIENT_LIMITS: RecipientLimits = {
  free: MAIL_LIMITS.badRecipientsFree, perConnection: MAIL_LIMITS.badRecipientsPerConnection,
  delayMs: MAIL_LIMITS.badRecipientDelayMs, delayMaxMs: MAIL_LIMITS.badRecipientDelayMaxMs, memoryMs: MAIL_LIMITS.badRecipientMemoryMs,
};

/** Addresses remembered at once; past it the oldest is forgotten (an attacker cycling addresses cannot grow it). */
const MAX_ADDRESSES = 10_000;

export interface BadRecipientVerdict {
  /** Wait this long before answering. */
  delayMs: number;
  /** Close the connection with this answer (421). */
  disconnect: boolean;
}

export interface RecipientThrottle {
  /** An unknown recipient on that connection from that address: how to answer. */
  bad(sessionId: string, address: string): BadRecipientVerdict;
  /** The connection ended. */
  forget(sessionId: string): void;
}

export function createRecipientThrottle(limits: RecipientLimits = DEFAULT_RECIPIENT_LIMITS, now: () => number = Date.now): RecipientThrottle {
  const perSession = new Map<string, number>();
  const perAddress = new Map<string, { n: number; since: number }>();
  return {
    bad(sessionId, address) {
      const inSession = (perSession.get(sessionId) ?? 0) + 1;
      perSession.set(sessionId, inSession);
      const t = now();
      let a = perAddress.get(address);
      if (!a || t - a.since > limits.memoryMs) a = { n: 0, since: t };
      a.n++;
      perAddress.delete(address);
      perAddress.set(address, a);
      if (perAddress.size > MAX_ADDRESSES) perAddress.delete(perAddress.keys().next().value as string);
      const over = Math.max(inSession, a.n) - limits.free;
      return {
        delayMs: over > 0 ? Math.min(limits.delayMaxMs, over * limits.delayMs) : 0,
        disconnect: inSession >= limits.perConnection,
      };
    },
    forget(sessionId) {
      perSession.delete(sessionId);
    },
  };
}
