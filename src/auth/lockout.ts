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
 * was recorded. An attempt beyond that limit waits for one under way to end rather than being refused: a
 * transfer client opening ten connections with the right password must not be turned away, and a guesser
 * gains nothing by waiting, since the attempts before his decide whether he is locked. The queue per key is
 * bounded (`MAX_WAITING`), so connections held open cannot pile up memory.
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
  /** Attempts waiting for one under way to end (woken by end(), or by eviction, and then checked again). */
  waiting: (() => void)[];
}

/** Attempts queued per key beyond the ones under way; past it a login is refused (a flood, not a client). */
const MAX_WAITING = 32;

export interface Lockout {
  isLocked(key: string): boolean;
  /**
   * Reserve an attempt for every key; false (nothing reserved) when any key is locked or has its failures used up.
   * When attempts under way fill a key's limit it resolves once they have ended and the answer is known.
   */
  begin(keys: readonly string[]): Promise<boolean>;
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
    return e.pending === 0 && e.waiting.length === 0 && e.lockedUntil <= t && recent(e, t).length === 0;
  }

  function makeRoom(t: number): void {
    if (entries.size < maxKeys) return;
    for (const [k, e] of entries) if (idle(e, t)) entries.delete(k);
    // Still full: forget the least recently touched (Map keeps insertion order; touch() re-inserts). Its waiters
    // are woken to look again, or they would wait for an end() that no longer finds the entry.
    const it = entries.keys();
    while (entries.size >= maxKeys) {
      const oldest = it.next();
      if (oldest.done) break;
      const e = entries.get(oldest.value);
      entries.delete(oldest.value);
      for (const w of e?.waiting.splice(0) ?? []) w();
    }
  }

  function touch(key: string, t: number): Entry {
    let e = entries.get(key);
    if (e) {
      entries.delete(key);
    } else {
      makeRoom(t);
      e = { failures: [], lockedUntil: 0, pending: 0, waiting: [] };
    }
    entries.set(key, e);
    return e;
  }

  /** 'locked' refuses; 'busy' waits for an attempt under way to end; 'free' goes ahead. */
  function state(key: string, t: number): 'locked' | 'busy' | 'free' {
    const e = entries.get(key);
    if (!e) return 'free';
    const failures = recent(e, t).length;
    if (e.lockedUntil > t || failures >= maxFailures) return 'locked';
    return failures + e.pending >= maxFailures ? 'busy' : 'free';
  }

  return {
    isLocked(key) {
      const e = entries.get(key);
      return e !== undefined && e.lockedUntil > now();
    },
    async begin(keys) {
      for (;;) {
        const t = now();
        const states = keys.map((k) => state(k, t));
        if (states.includes('locked')) return false;
        const busy = keys[states.indexOf('busy')];
        if (busy === undefined) {
          for (const k of keys) touch(k, t).pending++;
          return true;
        }
        const e = entries.get(busy);
        if (!e || e.waiting.length >= MAX_WAITING) return false;
        await new Promise<void>((resolve) => e.waiting.push(resolve));
      }
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
      // Wake every waiter: each looks again, and those that still find no room queue up again.
      for (const w of e.waiting.splice(0)) w();
      if (idle(e, t)) entries.delete(key);
    },
    size() {
      return entries.size;
    },
  };
}
