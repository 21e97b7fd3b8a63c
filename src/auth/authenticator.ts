/**
 * Turns a credential into a Principal. Channels call this and nothing else to decide who is talking. Every
 * refusal is `undefined`, whatever the reason, so a channel cannot leak why a credential was refused; only a
 * failing store throws.
 */
import type { Principal } from '../intake/types.ts';
import type { Store } from '../store/store.ts';
import { createLockout, type LockoutOptions } from './lockout.ts';
import { decoyPasswordHash, parseApiKey, verifyApiKey, verifyPassword } from './secrets.ts';

export type AuthenticatorOptions = LockoutOptions;

export interface Authenticator {
  /** The customer of an API key (REST X-API-Key, SOAP ord:ApiKey); undefined when absent, malformed or wrong. */
  apiKey(token: string | undefined): Promise<Principal | undefined>;
  /**
   * The customer of an FTP/SFTP login. Refused (undefined) while the user name or the remote address is locked
   * out, even with the right password. No delay is added here: channels may add their own.
   */
  password(user: string, password: string, remoteAddress?: string): Promise<Principal | undefined>;
  /** True while that user name or remote address is refused, so a channel can say so before asking. */
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

export function createAuthenticator(store: Store, opts: AuthenticatorOptions = {}): Authenticator {
  const lockout = createLockout(opts);

  async function principalOf(customerId: string): Promise<Principal | undefined> {
    const customer = await store.getCustomer(customerId);
    return customer ? { customerId: customer.id, customerCode: customer.code } : undefined;
  }

  return {
    async apiKey(token) {
      const parsed = parseApiKey(token);
      if (!parsed || token === undefined) return undefined;
      const cred = await store.findCredential('api_key', parsed.keyId);
      if (!cred || cred.revokedAt) return undefined;
      if (!verifyApiKey(token, cred.secretHash)) return undefined;
      return principalOf(cred.customerId);
    },

    async password(user, password, remoteAddress) {
      if (typeof user !== 'string' || typeof password !== 'string') return undefined;
      const keys = [userKey(user)];
      const addr = addressKey(remoteAddress);
      if (addr) keys.push(addr);
      if (!lockout.begin(keys)) return undefined;

      let principal: Principal | undefined;
      try {
        const lookup = user.trim().toLowerCase();
        const cred = lookup && lookup.length <= MAX_USER_KEY ? await store.findCredential('password', lookup) : undefined;
        // An unknown user still costs one scrypt, so response time does not reveal which user names exist.
        const stored = cred && !cred.revokedAt ? cred.secretHash : await decoyPasswordHash();
        const ok = (await verifyPassword(password, stored)) && cred !== undefined && !cred.revokedAt;
        principal = ok && cred ? await principalOf(cred.customerId) : undefined;
      } catch (err) {
        // A store failure is not the user's fault: release the reservation without counting it.
        for (const k of keys) lockout.end(k, 'neutral');
        throw err;
      }
      if (principal) {
        // Only the user's counter is cleared: clearing the address's would let someone who owns one account
        // reset his own limit between guesses at other accounts.
        lockout.end(keys[0] as string, 'success');
        if (addr) lockout.end(addr, 'neutral');
      } else {
        for (const k of keys) lockout.end(k, 'failure');
      }
      return principal;
    },

    isLocked(user, remoteAddress) {
      const addr = addressKey(remoteAddress);
      return lockout.isLocked(userKey(user)) || (addr !== undefined && lockout.isLocked(addr));
    },
  };
}
