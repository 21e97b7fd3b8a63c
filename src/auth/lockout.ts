/**
 * Failed-login bookkeeping for the password channels (FTP/SFTP). A key is a user name or a remote address.
 *
 * Why: FTP/SFTP passwords are typed by people and the servers face the internet, so without a limit anyone can
 * guess at network speed. After `maxFailures` failures within `windowMs` a key is refused for `lockMs`, even
 * with the right password: answering "right" during the lock would tell the guesser when to stop.
 * Counting by user name stops guessing one account from many addresses; counting by address stops one client
 * spraying many accounts.
 *
 * Attempts under way count against the limit too (`pending`): scrypt takes tens of milliseconds, and without
 * it a client opening many connections at once would get all its guesses checked before the first failure
 * was recorded.
 *
 * Memory: counters live in this process only (a restart forgets them, which costs an attacker a restart he
 * cannot cause) and in a Map bounded to `maxKeys`, because an attacker choosing user names or cycling IPv6
 * addresses would otherwise grow it without limit. When full, entries that no longer matter are dropped first,
 * then the least recently touched.
 */

export interface LockoutOptions {
  now?: () => number;
  maxFailures?: number;
  windowMs?: number;
  lockMs?: number;
  maxKeys?: number;
}

interface Entry {
  /** Times of failures still inside the window, oldest first; never longer than maxFailures. */
  failures: number[];
  lockedUntil: number;
  pending: number;
}

export interface Lockout {
  isLocked(key: string): boolean;
  /** Reserve an attempt for every key; false (nothing reserved) when any key is locked or at its limit. */
  begin(keys: readonly string[]): boolean;
  /** End a reserved attempt: a failure counts, a success clears the key. */
  end(key: string, outcome: 'failure' | 'success' | 'neutral'): void;
  /** Number of keys tracked (tests, metrics). */
  size(): number;
}

export const LOCKOUT_DEFAULTS = {
  maxFailures: 5,
  windowMs: 15 * 60_000,
  lockMs: 15 * 60_000,
  /** 10,000 entries of ~200 bytes: about 2 MB at worst. */
  maxKeys: 10_000,
} as const;

export function createLockout(opts: LockoutOptions = {}): Lockout {
  const now = opts.now ?? Date.now;
  const maxFailures = opts.maxFailures ?? LOCKOUT_DEFAULTS.maxFailures;
  const windowMs = opts.windowMs ?? LOCKOUT_DEFAULTS.windowMs;
  const lockMs = opts.lockMs ?? LOCKOUT_DEFAULTS.lockMs;
  const maxKeys = opts.maxKeys ?? LOCKOUT_DEFAULTS.maxKeys;
  const entries = new Map<string, Entry>();

  function recent(e: Entry, t: number): number[] {
    while (e.failures.length > 0 && (e.failures[0] ?? 0) <= t - windowMs) e.failures.shift();
    return e.failures;
  }

  function idle(e: Entry, t: number): boolean {
    return e.pending === 0 && e.lockedUntil <= t && recent(e, t).length === 0;
  }

  function makeRoom(t: number): void {
    if (entries.size < maxKeys) return;
    for (const [k, e] of entries) if (idle(e, t)) entries.delete(k);
    // Still full: forget the least recently touched (Map keeps insertion order; touch() re-inserts).
    const it = entries.keys();
    while (entries.size >= maxKeys) {
      const oldest = it.next();
      if (oldest.done) break;
      entries.delete(oldest.value);
    }
  }

  function touch(key: string, t: number): Entry {
    let e = entries.get(key);
    if (e) {
      entries.delete(key);
    } else {
      makeRoom(t);
      e = { failures: [], lockedUntil: 0, pending: 0 };
    }
    entries.set(key, e);
    return e;
  }

  function blocked(key: string, t: number): boolean {
    const e = entries.get(key);
    if (!e) return false;
    return e.lockedUntil > t || recent(e, t).length + e.pending >= maxFailures;
  }

  return {
    isLocked(key) {
      const e = entries.get(key);
      return e !== undefined && e.lockedUntil > now();
    },
    begin(keys) {
      const t = now();
      if (keys.some((k) => blocked(k, t))) return false;
      for (const k of keys) touch(k, t).pending++;
      return true;
    },
    end(key, outcome) {
      const t = now();
      const e = entries.get(key);
      if (!e) return; // evicted meanwhile: nothing left to update
      e.pending = Math.max(0, e.pending - 1);
      if (outcome === 'success') {
        e.failures = [];
      } else if (outcome === 'failure') {
        const f = recent(e, t);
        f.push(t);
        if (f.length >= maxFailures) {
          e.lockedUntil = t + lockMs;
          e.failures = [];
        }
      }
      if (idle(e, t)) entries.delete(key);
    },
    size() {
      return entries.size;
    },
  };
}
