/**
 * When a failed delivery is tried again: exponential back-off from `firstMs`, doubling per attempt up to `maxMs`,
 * each wait spread by ±20 % jitter so that deliveries failing together (a receiver down for an hour) do not all come
 * back in the same second. Webhook deliveries stop after `giveUpMs` (default 24 h, the period Standard Webhooks
 * senders commonly keep trying) and are marked failed and kept; exports never give up (see export-write.ts).
 */
export interface RetryPolicy {
  firstMs: number;
  maxMs: number;
  giveUpMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { firstMs: 5_000, maxMs: 60 * 60_000, giveUpMs: 24 * 60 * 60_000 };

const JITTER = 0.2;

/** Wait before the attempt after `attempts` attempts (attempts ≥ 1). */
export function retryDelay(attempts: number, p: RetryPolicy, random: () => number = Math.random): number {
  const base = Math.min(p.maxMs, p.firstMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)));
  return Math.max(1, Math.round(base * (1 - JITTER + 2 * JITTER * random())));
}
