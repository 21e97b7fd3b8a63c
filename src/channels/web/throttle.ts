/**
 * Login throttling for the console and the portal: a growing delay, never a lockout.
 *
 * Why a delay and not a lock: a lock after N failures lets anyone lock the rightful user out by typing wrong
 * passwords at his account. Here every failure only pushes the next allowed attempt further away, for keys an
 * attacker controls the cost of:
 * - the source address (one client guessing at many accounts) and the pair account+address (one client guessing
 *   at one account): after FREE_FAILURES the wait doubles from BASE_MS up to MAX_MS; attempts that would have to
 *   wait longer than MAX_WAIT_MS are refused at once without checking the password (429), so holding requests
 *   open gains nothing;
 * - the account alone (many addresses guessing at one account): a delay of at most ACCOUNT_MAX_MS per attempt and
 *   never a refusal, so the rightful user, from his own address, waits a second at worst. Our passwords are 20
 *   random base62 characters (~119 bits): what this stops is guessing of weak passwords set elsewhere, not ours.
 *
 * The caller sleeps `waitMs` (it stays testable with a fake clock). Counters live in this process, in a map bounded
 * to MAX_KEYS (an attacker cycling addresses could otherwise grow it without limit); a success clears the pair and
 * the account, not the address (clearing it would let the owner of one account reset his limit between guesses at
 * others).
 */

export const FREE_FAILURES = 3;
export const BASE_MS = 1_000;
export const MAX_MS = 60_000;
export const MAX_WAIT_MS = 10_000;
export const ACCOUNT_FREE_FAILURES = 10;
export const ACCOUNT_MAX_MS = 1_000;
/** Failures older than this are forgotten. */
export const WINDOW_MS = 15 * 60_000;
const MAX_KEYS = 10_000;

interface Entry {
  failures: number;
  /** Earliest time (ms) of the next attempt. */
  next: number;
  last: number;
}

export type ThrottleDecision = { ok: true; waitMs: number } | { ok: false; retryAfterMs: number };

export interface LoginThrottle {
  /** Before checking a password: how long to wait first, or a refusal. Reserves the slot. */
  begin(account: string, address: string): ThrottleDecision;
  failed(account: string, address: string): void;
  succeeded(account: string, address: string): void;
  size(): number;
}

function delay(failures: number, free: number, max: number): number {
  if (failures < free) return 0;
  return Math.min(max, BASE_MS * 2 ** (failures - free));
}

export function createLoginThrottle(now: () => number = Date.now): LoginThrottle {
  const entries = new Map<string, Entry>();

  function get(key: string, t: number): Entry {
    let e = entries.get(key);
    if (e && t - e.last > WINDOW_MS && e.next <= t) {
      entries.delete(key);
      e = undefined;
    }
    if (!e) {
      if (entries.size >= MAX_KEYS) {
        // Map order is insertion order: the oldest keys go first.
        for (const k of entries.keys()) {
          entries.delete(k);
          if (entries.size < MAX_KEYS * 0.9) break;
        }
      }
      e = { failures: 0, next: 0, last: t };
      entries.set(key, e);
    }
    return e;
  }

  const keysOf = (account: string, address: string) => ({
    addr: `a:${address}`, pair: `p:${account.toLowerCase()}|${address}`, acct: `u:${account.toLowerCase()}`,
  });

  return {
    begin(account, address) {
      const t = now();
      const k = keysOf(account, address);
      const strict = [get(k.addr, t), get(k.pair, t)];
      const start = Math.max(t, ...strict.map((e) => e.next));
      if (start - t > MAX_WAIT_MS) return { ok: false, retryAfterMs: start - t };
      // The slot is taken now, so parallel attempts from one source queue one behind the other.
      for (const e of strict) e.next = start + delay(e.failures, FREE_FAILURES, MAX_MS);
      const acct = get(k.acct, t);
      const waitMs = start - t + delay(acct.failures, ACCOUNT_FREE_FAILURES, ACCOUNT_MAX_MS);
      return { ok: true, waitMs };
    },
    failed(account, address) {
      const t = now();
      const k = keysOf(account, address);
      for (const key of [k.addr, k.pair, k.acct]) {
        const e = get(key, t);
        e.failures++;
        e.last = t;
        if (key !== k.acct) e.next = Math.max(e.next, t + delay(e.failures, FREE_FAILURES, MAX_MS));
      }
    },
    succeeded(account, address) {
      const k = keysOf(account, address);
      entries.delete(k.pair);
      entries.delete(k.acct);
    },
    size: () => entries.size,
  };
}
