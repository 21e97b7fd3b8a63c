/**
 * The web channel: the operators' console (/console) and the customers' portal (/portale), server-rendered pages
 * on the one HTTP server. Like every channel it only authenticates, hands submissions to the intake core and shows
 * what the store holds; it imports no sibling channel.
 *
 * Everything is registered in its own fastify context, so its body parsers (forms, multipart uploads), cookies,
 * CSRF checks, security headers and HTML error pages touch no other route.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyMultipart from '@fastify/multipart';
import fastifyStatic from '@fastify/static';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IntakeError, isIntakeError, reasonPhrase, type ErrorCode } from '../../domain/errors.ts';
import { errorBody } from '../../http/errors.ts';
import type { Logger } from '../../log.ts';
import type { WebSession } from '../../domain/store/web.ts';
import { registerConsoleRoutes } from './console/routes.ts';
import { registerPortalRoutes } from './portal/routes.ts';
import { MAX_FILES_PER_UPLOAD } from './portal/upload.ts';
import { PortalSpool } from './portal/upload-spool.ts';
import { securityHeaders } from './security.ts';
import { createSessions, csrfUserInfo } from './sessions.ts';
import { createLoginThrottle } from './throttle.ts';
import type { WebContext, WebDeps } from './context.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The live session of the area the URL is in (console or portal), resolved before any handler. */
    webSession?: WebSession;
  }
}

export function areaOf(url: string): 'operator' | 'customer' | undefined {
  if (url === '/console' || url.startsWith('/console/') || url.startsWith('/console?')) return 'operator';
  if (url === '/portale' || url.startsWith('/portale/') || url.startsWith('/portale?')) return 'customer';
  return undefined;
}

export async function registerWeb(app: FastifyInstance, deps: WebDeps): Promise<void> {
  // One key in the store signs cookies and CSRF tokens for every instance sharing the database.
  const key = await deps.store.webKey('cookie', randomBytes(32).toString('base64'));
  const portalSpool = new PortalSpool(deps.dataDir, deps.log.child({ channel: 'portal' }));
  await portalSpool.init();
  const ctx: WebContext = { ...deps, sessions: createSessions(deps.store), throttle: createLoginThrottle(), portalSpool };

  await app.register(async (web) => {
    web.removeAllContentTypeParsers();
    await web.register(fastifyFormbody, { bodyLimit: 1024 * 1024 });
    await web.register(fastifyMultipart, {
      // A file over the limit is cut and flagged (truncated) instead of failing the whole upload: the other files
      // of the same upload are still taken, and the page says which one was too large.
      throwFileSizeLimit: false,
      limits: { fileSize: deps.maxFileBytes, files: MAX_FILES_PER_UPLOAD, fields: 20, fieldSize: 64 * 1024, parts: MAX_FILES_PER_UPLOAD + 20 },
    });
    await web.register(fastifyCookie, { secret: key });
    await web.register(fastifyCsrf, {
      sessionPlugin: '@fastify/cookie',
      // Secure under HTTPS like the session cookies: without it the browser also sends the secret to any http:// port
      // of the host, in clear text, and lets whoever is on the path replace it.
      cookieOpts: { path: '/', sameSite: 'strict', httpOnly: true, signed: true, secure: 'auto' },
      csrfOpts: { hmacKey: key, userInfo: true },
      // The token is bound to the session it was issued in: a token read before login is useless after it.
      getUserInfo: csrfUserInfo,
      getToken: (req) => {
        const body = req.body as Record<string, unknown> | undefined;
        const fromBody = body && typeof body._csrf === 'string' ? body._csrf : undefined;
        const header = req.headers['x-csrf-token'];
        return fromBody ?? (typeof header === 'string' ? header : undefined) ?? (req.query as Record<string, string | undefined>)._csrf;
      },
    });
    await web.register(fastifyView, {
      engine: { eta: new Eta({ views: fileURLToPath(new URL('./views/', import.meta.url)), autoEscape: true, cache: true }) },
      root: fileURLToPath(new URL('./views/', import.meta.url)),
    });
    await web.register(fastifyStatic, {
      root: fileURLToPath(new URL('./static/', import.meta.url)),
      prefix: '/web/',
      // Assets change only with a release; a day of caching keeps pages fast without stale styles for long.
      maxAge: 24 * 60 * 60_000,
      index: false,
    });

    web.addHook('onRequest', async (req, reply) => {
      securityHeaders(req, reply);
      const area = areaOf(req.url);
      if (area) req.webSession = await ctx.sessions.read(req, area);
    });
    // NUL is in no code, reference, name or address (intake refuses control characters), and PostgreSQL cannot
    // even compare one with a text column: a forged value carrying one would fail its lookup with a 500 (at the login,
    // before any session). Refused here, once for every page, before any lookup: a path naming nothing is not found,
    // a query or form value is invalid. Uploaded files are not looked at.
    web.addHook('preValidation', async (req) => {
      if (holdsNul(req.params)) throw new IntakeError('NOT_FOUND');
      if (holdsNul(req.query) || holdsNul(req.body)) throw new IntakeError('VALIDATION');
    });
    // Every state-changing request carries a valid token (forms: hidden field; scripts: X-CSRF-Token header).
    web.addHook('preHandler', (req, reply, done) => {
      if (req.method === 'GET' || req.method === 'HEAD') return done();
      web.csrfProtection(req, reply, done);
    });

    web.setErrorHandler((err: FastifyError, req, reply) => errorPage(err, req, reply, deps.log));
    const notFound = (req: FastifyRequest, reply: FastifyReply) =>
      reply.code(404).view('error.eta', { title: 'Pagina non trovata', message: 'La pagina richiesta non esiste.', back: backOf(req), area: areaName(req) });
    await web.register(async (area) => {
      area.setNotFoundHandler(notFound);
      registerConsoleRoutes(area, ctx);
    }, { prefix: '/console' });
    await web.register(async (area) => {
      area.setNotFoundHandler(notFound);
      registerPortalRoutes(area, ctx);
    }, { prefix: '/portale' });
  });
}

/** A string, or a parsed query/form/params object of strings and lists of strings, that holds a NUL character. */
function holdsNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\0');
  if (Array.isArray(v)) return v.some(holdsNul);
  return typeof v === 'object' && v !== null && Object.values(v).some(holdsNul);
}

function areaName(req: FastifyRequest): 'console' | 'portale' {
  return areaOf(req.url) === 'customer' ? 'portale' : 'console';
}

function backOf(req: FastifyRequest): string {
  return areaOf(req.url) === 'customer' ? '/portale/' : '/console/';
}

function errorPage(err: FastifyError, req: FastifyRequest, reply: FastifyReply, log: Logger) {
  const status = isIntakeError(err) ? err.http : err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
  let message = 'Si è verificato un errore interno. Riprovare più tardi.';
  if (status === 403 && err.code?.startsWith('FST_CSRF')) message = 'La richiesta non è valida o la pagina è scaduta: ricaricare la pagina e riprovare.';
  else if (status === 413 || err.code === 'FST_REQ_FILE_TOO_LARGE' || err.code === 'FST_FILES_LIMIT') message = 'Il file è troppo grande o i file sono troppi.';
  else if (status === 415) message = 'Tipo di contenuto non accettato.';
  else if (status === 404) message = 'La pagina richiesta non esiste.';
  else if (status === 403) message = 'Operazione non consentita.';
  else if (status < 500) message = 'La richiesta non è valida.';
  if (status === 500) log.error({ err, url: req.url }, 'web request failed');
  const code = err.code === 'FST_REQ_FILE_TOO_LARGE' ? 413 : status;
  if (req.headers.accept?.includes('application/json')) {
    const kind: ErrorCode = isIntakeError(err) ? err.code : code === 404 ? 'ROUTE_NOT_FOUND' : code === 403 ? 'FORBIDDEN'
      : code === 413 ? 'PAYLOAD_TOO_LARGE' : code === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : code < 500 ? 'BAD_REQUEST' : 'INTERNAL';
    return reply.code(code).send({ ...errorBody(kind, message), statusCode: code, error: reasonPhrase(code) });
  }
  const title = code === 404 ? 'Pagina non trovata' : code === 403 ? 'Operazione non consentita' : 'Errore';
  return reply.code(code).view('error.eta', { title, message, back: backOf(req), area: areaName(req) });
}
