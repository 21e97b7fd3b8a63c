/**
 * Password login for FTP and SFTP alike: the authenticator decides (with its lockout), this adds the delay on
 * failure and the per-customer session limit, and says why a login was refused in words a client can show.
 */
import type { Authenticator } from '../../auth/authenticator.ts';
import type { Principal } from '../../domain/types.ts';
import type { Logger } from '../../log.ts';
import { delay, LIMITS, type SessionLimiter } from './limits.ts';

export type LoginResult =
  | { ok: true; principal: Principal; release: () => void }
  | { ok: false; reason: 'credentials' | 'locked' | 'sessions' | 'unavailable'; message: string };

export const LOGIN_MESSAGES = {
  credentials: 'Utente o password errati',
  locked: 'Troppi tentativi falliti: accesso sospeso, riprovare più tardi',
  sessions: `Troppe sessioni aperte per questo utente (massimo ${LIMITS.sessionsPerCustomer})`,
  unavailable: 'Servizio momentaneamente non disponibile, riprovare più tardi',
} as const;

export interface LoginDeps {
  auth: Authenticator;
  sessions: SessionLimiter;
  log: Logger;
  /** Test hook: the failed-login delay (default LIMITS.failedLoginDelayMs). */
  failedLoginDelayMs?: number;
}

export async function passwordLogin(deps: LoginDeps, user: string, password: string, remote: string, channel: string): Promise<LoginResult> {
  const fail = async (reason: 'credentials' | 'locked' | 'unavailable'): Promise<LoginResult> => {
    // Every refusal waits: an instant answer would let a guesser run at network speed on many connections.
    await delay(deps.failedLoginDelayMs ?? LIMITS.failedLoginDelayMs);
    deps.log.warn({ channel, user: user.slice(0, 64), remote, reason }, 'login refused');
    return { ok: false, reason, message: LOGIN_MESSAGES[reason] };
  };
  let principal: Principal | undefined;
  try {
    principal = await deps.auth.password(user, password, remote);
  } catch (err) {
    deps.log.error({ err, channel }, 'login check failed');
    return fail('unavailable');
  }
  if (!principal) return fail(deps.auth.isLocked(user, remote) ? 'locked' : 'credentials');
  const release = deps.sessions.acquire(principal.customerId);
  if (!release) {
    deps.log.warn({ channel, customer: principal.customerCode, remote }, 'login refused: too many sessions');
    return { ok: false, reason: 'sessions', message: LOGIN_MESSAGES.sessions };
  }
  deps.log.info({ channel, customer: principal.customerCode, remote }, 'logged in');
  return { ok: true, principal, release };
}
