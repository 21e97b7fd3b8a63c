/**
 * Checking a login (console and portal alike): throttled per address and account (throttle.ts), the same answer
 * whether the account is unknown, disabled or the password wrong, and one scrypt check in every case so that the
 * time taken does not tell which.
 */
import type { FastifyRequest } from 'fastify';
import { decoyPasswordHash, verifyPassword } from '../../auth/secrets.ts';
import type { WebContext } from './context.ts';
import { sleep, sourceOf } from './render.ts';

/** Longer user names are not ours (e-mail addresses ≤ 254, FTP users ≤ 64); cut before they reach any map. */
const MAX_USER = 254;

export type LoginResult = { ok: true; subjectId: string } | { ok: false; message: string; status: number };

export const WRONG = 'Credenziali non valide.';

export async function checkLogin(
  ctx: WebContext, req: FastifyRequest, user: string, password: string,
  find: (user: string) => Promise<{ id: string; hash: string } | undefined>,
): Promise<LoginResult> {
  const account = user.trim().toLowerCase().slice(0, MAX_USER);
  const address = sourceOf(req);
  const decision = ctx.throttle.begin(account, address);
  if (!decision.ok) {
    const s = Math.ceil(decision.retryAfterMs / 1000);
    return { ok: false, status: 429, message: `Troppi tentativi non riusciti. Riprovare tra ${s} secondi.` };
  }
  if (decision.waitMs > 0) await sleep(decision.waitMs);
  const found = account ? await find(account) : undefined;
  const ok = (await verifyPassword(password, found?.hash ?? await decoyPasswordHash())) && found !== undefined;
  if (!ok || !found) {
    ctx.throttle.failed(account, address);
    return { ok: false, status: 401, message: WRONG };
  }
  ctx.throttle.succeeded(account, address);
  return { ok: true, subjectId: found.id };
}
