/**
 * Turns a credential into a Principal. Channels call this and nothing else to decide who is talking. Every
 * refusal of the credential is `undefined`, whatever the reason, so a channel cannot leak why it was refused; a
 * failing store throws, and so does a right credential of a deactivated customer (IntakeError CUSTOMER_INACTIVE,
 * src/customers/active.ts): its owner has proved who he is and should read why he is refused, in his channel's form.
 */
import type { Principal } from '../domain/types.ts';
import type { AuthStore } from '../domain/store/ports.ts';
import { assertActive } from '../customers/active.ts';
import { isCleanText } from '../domain/text.ts';
import { createAccountThrottle, type AccountThrottleOptions } from './account-throttle.ts';
import { createLockout, type LockoutOptions } from './lockout.ts';
import { decoyPasswordHash, hashApiKey, parseApiKey, verifyApiKey, verifyPassword } from './secrets.ts';

export interface AuthenticatorOptions extends LockoutOptions {
  /**
   * How long an accepted API key is remembered (0: not at all). Every REST/SOAP request presents one, and looking
   * it up costs two queries (credential, customer): two round trips per order on PostgreSQL. The price is that a
   * key revoked by another process (the CLI, another instance) is still accepted by this one for up to this long.
   */
  apiKeyCacheMs?: number;
  /** Slowing down the guessing of one account from many addresses (account-throttle.ts). */
  accountThrottle?: AccountThrottleOptions;
}

/** Default of apiKeyCacheMs: short enough that a revocation takes effect within seconds. */
export const API_KEY_CACHE_MS = 5_000;
/** Keys remembered at once; past that the cache starts again empty (far more than customers with live traffic). */
const API_KEY_CACHE_MAX = 10_000;

export interface Authenticator {
  /** The customer of an API key (REST X-API-Key, SOAP ord:ApiKey); undefined when absent, malformed or wrong. */
  apiKey(token: string | undefined): Promise<Principal | undefined>;
  // Both throw IntakeError CUSTOMER_INACTIVE for a right credential of a deactivated customer.
  /**
   * The customer of an FTP/SFTP login. Refused (undefined) while the remote address is locked out, even with the
   * right password. An account itself is never locked (that would let anyone lock its customer out): attempts on an
   * account under attack from addresses that never logged in to it wait a growing delay here first.
   */
  password(user: string, password: string, remoteAddress?: string): Promise<Principal | undefined>;
  /** True while that remote address is refused, so a channel can say so before asking. */
  isLocked(user: string, remoteAddress?: string): boolean;
}

/** User names longer than this are not ours (codes are ≤ 32 characters); cut so they cannot bloat the counters. */
const MAX_USER_KEY = 64;

function userKey(user: string): string {
  return `u:${user.trim().toLowerCase().slice(0, MAX_USER_KEY)}`;
}

function addressKey(remote: string | undefined): string | undefined {
  if (!remote) return undefined;
  // An IPv4 client on a dual-stack socket shows up as ::ffff:a.b.c.d; count it as the same address.
  return `a:${remote.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').toLowerCase()}`;
}

export function createAuthenticator(store: AuthStore, opts: AuthenticatorOptions = {}): Authenticator {
  const lockout = createLockout(opts);
  const throttle = createAccountThrottle({ now: opts.now, ...opts.accountThrottle });
  const now = opts.now ?? Date.now;
  const cacheMs = opts.apiKeyCacheMs ?? API_KEY_CACHE_MS;
  // Keyed by the SHA-256 of the whole token, so no secret is kept and a hit proves the whole key, as the stored
  // hash comparison would. Only accepted keys are remembered: a refusal is always looked up again, so a new key
  // works at once and wrong keys cannot fill the map.
  const accepted = new Map<string, { principal: Principal; until: number }>();
  // Lookups under way, by the same key: the requests in flight with one key when its entry runs out (32 at once
  // under load, every 5 s) share one lookup instead of making two queries each. Only while it runs; its answer is
  // the store's at that moment, as each of their own would have been.
  const looking = new Map<string, Promise<Principal | undefined>>();

  async function lookUp(token: string, keyId: string, key: string): Promise<Principal | undefined> {
    const cred = await store.findCredential('api_key', keyId);
    if (!cred || cred.revokedAt) return undefined;
    if (!verifyApiKey(token, cred.secretHash)) return undefined;
    const principal = await principalOf(cred.customerId);
    if (principal && cacheMs > 0) {
      if (accepted.size >= API_KEY_CACHE_MAX) accepted.clear();
      accepted.set(key, { principal, until: now() + cacheMs });
    }
    return principal;
  }

  // The customer is read at every login and at every uncached key, so a deactivation is seen at once by passwords
  // and within apiKeyCacheMs by keys (as a revocation is); only accepted keys are cached, never a refusal.
  async function principalOf(customerId: string): Promise<Principal | undefined> {
    const customer = await store.getCustomer(customerId);
    if (customer) assertActive(customer);
    return customer ? { customerId: customer.id, customerCode: customer.code } : undefined;
  }

  return {
    async apiKey(token) {
      const parsed = parseApiKey(token);
      if (!parsed || token === undefined) return undefined;
      const key = cacheMs > 0 ? hashApiKey(token) : '';
      const hit = cacheMs > 0 ? accepted.get(key) : undefined;
      if (hit && hit.until > now()) return { ...hit.principal };
      if (cacheMs <= 0) return lookUp(token, parsed.keyId, key);
      // Keyed like the cache: a shared lookup is one of the whole same token, never of another with the same key id.
      let pending = looking.get(key);
      if (!pending) {
        pending = lookUp(token, parsed.keyId, key).finally(() => looking.delete(key));
        looking.set(key, pending);
      }
      const principal = await pending;
      return principal && { ...principal };
    },

    async password(user, password, remoteAddress) {
      if (typeof user !== 'string' || typeof password !== 'string') return undefined;
      const account = userKey(user);
      const addr = addressKey(remoteAddress);
      // Only the address is locked: someone else's failures must never lock the customer out of his own account.
      const keys = addr ? [addr] : [];
      // A locked address is refused at once: making it wait would only hold its connection longer.
      if (addr && lockout.isLocked(addr)) return undefined;
      const wait = throttle.delayFor(account, addr);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (!(await lockout.begin(keys))) return undefined;

      let principal: Principal | undefined;
      try {
        // A name no account can have (NUL, half a surrogate pair) is looked up as no name: an unknown user, not a
        // database error. A password holding one is wrong too: scrypt keys its HMAC with the password, and HMAC pads
        // a key with zeros, so "secret\0" would otherwise pass as "secret".
        const lookup = isCleanText(user) ? user.trim().toLowerCase() : '';
        const cred = lookup && lookup.length <= MAX_USER_KEY ? await store.findCredential('password', lookup) : undefined;
        // An unknown user still costs one scrypt, so response time does not reveal which user names exist.
        const stored = cred && !cred.revokedAt ? cred.secretHash : await decoyPasswordHash();
        const ok = (await verifyPassword(password, stored)) && isCleanText(password) && cred !== undefined && !cred.revokedAt;
        principal = ok && cred ? await principalOf(cred.customerId) : undefined;
      } catch (err) {
        // A store failure is not the user's fault, and a deactivated customer knew the password: release the
        // reservation without counting it.
        for (const k of keys) lockout.end(k, 'neutral');
        throw err;
      }
      if (principal) {
        // The address's counter is not cleared: that would let someone who owns one account reset his own limit
        // between guesses at other accounts.
        throttle.success(account, addr);
        if (addr) lockout.end(addr, 'neutral');
      } else {
        throttle.failure(account);
        if (addr) lockout.end(addr, 'failure');
      }
      return principal;
    },

    isLocked(_user, remoteAddress) {
      const addr = addressKey(remoteAddress);
      return addr !== undefined && lockout.isLocked(addr);
    },
  };
}
