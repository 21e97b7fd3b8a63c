/**
 * Server-side sessions of the console and the portal. The cookie holds a random token (signed by @fastify/cookie
 * with the key in the store); the store holds only the token's SHA-256 and the expiry. Logging out deletes the
 * row, so a copy of the cookie taken before is worth nothing afterwards.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Store } from '../../domain/store/store.ts';
import type { WebSession, WebSessionKind } from '../../domain/store/web.ts';

/** Without activity a session ends after IDLE_MS; whatever the activity, after ABSOLUTE_MS (a working day). */
export const IDLE_MS = 60 * 60_000;
export const ABSOLUTE_MS = 12 * 60 * 60_000;
/** The expiry is pushed forward at most this often, so a busy page does not write on every request. */
const EXTEND_EVERY_MS = 5 * 60_000;

export const COOKIE = { operator: 'oi_console', customer: 'oi_portale' } as const;
const PATH = { operator: '/console', customer: '/portale' } as const;

const hashToken = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export function cookieOptions(req: FastifyRequest, kind: WebSessionKind) {
  return {
    path: PATH[kind],
    httpOnly: true,
    // Strict: no other site can make the browser send it, even on a top-level link (the login page is a click away).
    sameSite: 'strict' as const,
    secure: req.protocol === 'https',
    signed: true,
  };
}

/**
 * What a CSRF token is bound to: the session's token hash, or a fixed word before login (the library refuses an
 * empty value). A token issued before login is therefore refused after it, and one issued in a session that has
 * ended is refused everywhere.
 */
export function csrfUserInfo(req: FastifyRequest): string {
  return req.webSession?.tokenHash ?? 'anonimo';
}

export interface Sessions {
  start(req: FastifyRequest, reply: FastifyReply, kind: WebSessionKind, subjectId: string): Promise<WebSession>;
  /** The request's live session of that kind, extending its expiry when due. */
  read(req: FastifyRequest, kind: WebSessionKind): Promise<WebSession | undefined>;
  end(req: FastifyRequest, reply: FastifyReply, kind: WebSessionKind): Promise<void>;
}

export function createSessions(store: Store, now: () => number = Date.now): Sessions {
  function token(req: FastifyRequest, kind: WebSessionKind): string | undefined {
    const raw = req.cookies[COOKIE[kind]];
    if (!raw) return undefined;
    const u = req.unsignCookie(raw);
    return u.valid && u.value ? u.value : undefined;
  }

  return {
    async start(req, reply, kind, subjectId) {
      // A new token at every login: a token planted before login (session fixation) is never promoted.
      const old = token(req, kind);
      if (old) await store.deleteWebSession(hashToken(old));
      const t = randomBytes(32).toString('base64url');
      const at = now();
      const s: WebSession = {
        tokenHash: hashToken(t), kind, subjectId,
        createdAt: new Date(at).toISOString(), expiresAt: new Date(at + IDLE_MS).toISOString(),
      };
      await store.createWebSession(s);
      reply.setCookie(COOKIE[kind], t, cookieOptions(req, kind));
      return s;
    },
    async read(req, kind) {
      const t = token(req, kind);
      if (!t) return undefined;
      const s = await store.getWebSession(hashToken(t));
      if (!s || s.kind !== kind) return undefined;
      const at = now();
      const expires = Date.parse(s.expiresAt);
      const cap = Date.parse(s.createdAt) + ABSOLUTE_MS;
      if (expires <= at) return undefined;
      if (expires - at < IDLE_MS - EXTEND_EVERY_MS && expires < cap) {
        s.expiresAt = new Date(Math.min(at + IDLE_MS, cap)).toISOString();
        await store.extendWebSession(s.tokenHash, s.expiresAt);
      }
      return s;
    },
    async end(req, reply, kind) {
      const t = token(req, kind);
      if (t) await store.deleteWebSession(hashToken(t));
      reply.clearCookie(COOKIE[kind], cookieOptions(req, kind));
    },
  };
}
