/**
 * Slowing down the guessing of one account's password from many addresses, without ever refusing the account.
 *
 * Why not a lock: a lock per account lets anyone shut the rightful customer out with five wrong passwords (a
 * denial of service with no skill needed). So an account is never refused here; instead, once it has seen
 * `free` failures within `windowMs`, each further attempt from an address that has not logged in to it before waits
 * a delay that doubles with every failure, up to `maxDelayMs`. Addresses are locked on their own (lockout.ts), so
 * a guesser gets a handful of tries per address, each slower than the last; the customer, logging in from an
 * address that has logged in before, is not slowed at all, and from a new address is slowed but still let in.
 *
 * Memory: in this process only, in Maps bounded to `maxKeys` (oldest forgotten first), like lockout.ts.
 */

export interface AccountThrottleOptions {
  now?: () => number;
  free?: number;
  windowMs?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** How long an address that logged in to an account is remembered as that account's own. */
  knownMs?: number;
  maxKeys?: number;
}

export const ACCOUNT_THROTTLE_DEFAULTS = {
  /** Failures of an account (from any address) before attempts from strangers are slowed: a customer's typos. */
  free: 10,
  windowMs: 15 * 60_000,
  /** First delay, doubled per further failure: 0.5, 1, 2, 4, 5 s. */
  baseDelayMs: 500,
  /**
   * Longest delay. Clients give up on a login after 10 s (basic-ftp, many GUI clients) to 30 s, so a longer one would
   * lock the customer out after all when he logs in from a new address during an attack. The guessing itself is
   * bounded by the address locks (5 failures per address per 15 minutes) and hopeless anyway: passwords are
   * generated, not chosen (src/auth/secrets.ts).
   */
  maxDelayMs: 5_000,
  /** A month: customers' offices keep their addresses for longer than that. */
  knownMs: 30 * 24 * 3600_000,
  maxKeys: 10_000,
} as const;

export interface AccountThrottle {
  /** How long an attempt on `account` from `address` waits before it is checked. */
  delayFor(account: string, address: string | undefined): number;
  failure(account: string): void;
  success(account: string, address: string | undefined): void;
}

function bounded<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as K);
}

export function createAccountThrottle(opts: AccountThrottleOptions = {}): AccountThrottle {
  const o = { ...ACCOUNT_THROTTLE_DEFAULTS, ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)) } as Required<AccountThrottleOptions>;
  const now = opts.now ?? Date.now;
  const failures = new Map<string, number[]>();
  /** "account address" → when it last logged in. */
  const known = new Map<string, number>();

  function recent(account: string, t: number): number[] {
    const list = (failures.get(account) ?? []).filter((x) => x > t - o.windowMs);
    if (list.length === 0) failures.delete(account);
    return list;
  }

  return {
    delayFor(account, address) {
      const t = now();
      if (address !== undefined && (known.get(`${account} ${address}`) ?? -Infinity) > t - o.knownMs) return 0;
      const over = recent(account, t).length - o.free;
      return over < 0 ? 0 : Math.min(o.maxDelayMs, o.baseDelayMs * 2 ** Math.min(over, 30));
    },
    failure(account) {
      const t = now();
      const list = recent(account, t);
      list.push(t);
      // Only the last few matter to the delay; the cap keeps one account's list small whatever the flood.
      bounded(failures, account, list.slice(-64), o.maxKeys);
    },
    success(account, address) {
      if (address !== undefined) bounded(known, `${account} ${address}`, now(), o.maxKeys);
    },
  };
}
