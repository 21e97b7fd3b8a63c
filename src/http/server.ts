/**
 * The one HTTP server (REST, SOAP, docs, health). Bodies are taken as raw bytes whatever their type: decoding is
 * the intake core's job, so every channel decodes the same way. Errors leave in the `{statusCode, message, error}`
 * form with no internal detail.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError, type FastifyInstance } from 'fastify';
import { isIntakeError, reasonPhrase } from '../domain/errors.ts';
import { errorBody } from './errors.ts';
import type { Logger } from '../log.ts';
import type { HealthStore } from '../domain/store/ports.ts';
import { readinessReport, type Readiness } from './readiness.ts';

export interface HttpServerDeps {
  store: HealthStore;
  log: Logger;
  /** Largest accepted body (INTAKE_MAX_BODY_BYTES); larger ones get 413 before they are buffered. */
  maxBodyBytes: number;
  /** PEM certificate and key: the port speaks HTTPS (INTAKE_TLS_CERT/INTAKE_TLS_KEY; see http-tls.ts for reloading). */
  https?: { cert: Buffer; key: Buffer; handshakeTimeout?: number };
  /** INTAKE_TRUST_PROXY: peers whose X-Forwarded-* headers are believed (empty: none). */
  trustProxy?: readonly string[];
  /** What GET /readyz reports (marked by the composition root); without it, no /readyz route. */
  readiness?: Readiness;
}

/**
 * A database that stops answering without closing the connection (a network cut) must turn the probe to 503, not
 * hang it: 3 s is far above a healthy round trip and below the usual load balancer probe timeout (5 s).
 */
const HEALTH_TIMEOUT_MS = 3_000;

export { errorBody } from './errors.ts';

export function createHttpServer(deps: HttpServerDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.log.child({ channel: 'http' }) as FastifyBaseLogger,
    bodyLimit: deps.maxBodyBytes,
    // Request ids in logs let an operator find one call among thousands.
    requestIdHeader: 'x-request-id',
    // One log line per submission comes from the intake; per-request lines would double the volume.
    logController: new LogController({ disableRequestLogging: true }),
    // Slowloris: a client that trickles its headers or body is cut off rather than holding a socket forever.
    requestTimeout: 60_000,
    connectionTimeout: 60_000,
    // Only listed proxies are believed: from any other peer X-Forwarded-For is the client's own claim and req.ip
    // stays the TCP peer (connector allow lists and logs depend on it).
    ...(deps.trustProxy?.length ? { trustProxy: [...deps.trustProxy] } : {}),
    ...(deps.https ? { https: deps.https } : {}),
  }) as unknown as FastifyInstance;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  // Every error a route throws is rendered here: ours (IntakeError) by their catalog code, fastify's own 4xx (body too
  // large, bad content length, …) by the code that names them, anything else as a 500 that says nothing inside.
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (isIntakeError(err)) {
      const body = errorBody(err.code, err.messages);
      return reply.code(body.statusCode).send(body);
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status === 500) {
      req.log.error({ err }, 'request failed');
      return reply.code(500).send(errorBody('INTERNAL', 'Internal server error'));
    }
    const body = status === 413
      ? errorBody('PAYLOAD_TOO_LARGE', `Request body is larger than the limit of ${deps.maxBodyBytes} bytes`)
      : status === 415 ? errorBody('UNSUPPORTED_MEDIA_TYPE', err.message) : errorBody('BAD_REQUEST', err.message);
    // Fastify's own statuses (411, 431, …) are kept; the code names the kind of refusal.
    return reply.code(status).send({ ...body, statusCode: status, error: reasonPhrase(status) });
  });
  app.setNotFoundHandler((req, reply) => {
    const body = errorBody('ROUTE_NOT_FOUND', `Cannot ${req.method} ${req.url.split('?')[0]}`);
    return reply.code(body.statusCode).send(body);
  });

  // Alive means the database answers: a load balancer then sends no order to an instance that could not commit it.
  app.get('/healthz', async (_req, reply) => {
    if (await storeAnswers(deps.store)) return { status: 'ok', store: deps.store.kind };
    return reply.code(503).send({ status: 'unavailable', store: deps.store.kind });
  });
  // Ready means that and more: every enabled channel listens and no stop has begun (src/http/readiness.ts).
  const readiness = deps.readiness;
  if (readiness) {
    app.get('/readyz', async (_req, reply) => {
      const report = readinessReport(readiness, await storeAnswers(deps.store));
      return reply.code(report.status === 'ready' ? 200 : 503).send(report);
    });
  }
  return app;
}

async function storeAnswers(store: HealthStore): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      store.ping(),
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('database ping timed out')), HEALTH_TIMEOUT_MS);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
