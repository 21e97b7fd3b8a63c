/**
 * GET /metrics: on the HTTP port behind a bearer token (INTAKE_METRICS_TOKEN), or alone on its own port
 * (INTAKE_METRICS_PORT, typically bound to an internal address), as the operator chooses; see
 * docs/operators/metrics.md.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.ts';
import type { Metrics } from './metrics.ts';
import { errorBody } from '../http/errors.ts';

export const METRICS_PATH = '/metrics';

/**
 * A check of `Authorization: Bearer <token>` that takes the same time whatever the header holds: both sides are
 * hashed first, so the comparison is over equal lengths and leaks neither the token nor its length. The scheme is
 * matched in any case, as RFC 7235 says schemes are case-insensitive (some scrapers send "bearer").
 */
export function bearerCheck(token: string | undefined): (header: string | string[] | undefined) => boolean {
  if (token === undefined) return () => true;
  const expected = createHash('sha256').update(token).digest();
  return (header) => {
    const value = Array.isArray(header) ? header[0] : header;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '');
    const given = createHash('sha256').update(m?.[1] ?? '').digest();
    return timingSafeEqual(given, expected) && m !== null;
  };
}

const UNAUTHORIZED = JSON.stringify(errorBody('METRICS_TOKEN_INVALID'));

/** GET /metrics on the main HTTP port; only call it with a token (without one the route is not served there). */
export function registerMetricsRoute(app: FastifyInstance, metrics: Metrics, token: string): void {
  const authorized = bearerCheck(token);
  app.get(METRICS_PATH, async (req, reply) => {
    if (!authorized(req.headers.authorization)) {
      return reply.code(401).header('www-authenticate', 'Bearer realm="metrics"').type('application/json; charset=utf-8').send(UNAUTHORIZED);
    }
    const { contentType, body } = await metrics.render();
    return reply.type(contentType).send(body);
  });
}

/** The separate metrics port: GET /metrics and nothing else, in clear text, with the token when one is set. */
export async function startMetricsServer(opts: {
  metrics: Metrics; host: string; port: number; token?: string; log: Logger;
}): Promise<{ port: number; close(): Promise<void> }> {
  const authorized = bearerCheck(opts.token);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== METRICS_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(errorBody('ROUTE_NOT_FOUND', `Cannot ${req.method} ${path}`)));
      return;
    }
    if (!authorized(req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': 'Bearer realm="metrics"' });
      res.end(UNAUTHORIZED);
      return;
    }
    opts.metrics.render().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        opts.log.error({ err }, 'metrics could not be rendered');
        res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(errorBody('INTERNAL', 'Internal server error')));
      },
    );
  });
  // A scraper answers in well under a second; anything trickling for longer is not one.
  server.requestTimeout = 30_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  opts.log.info({ channel: 'metrics', port }, `metrics listening on port ${port}`);
  return {
    port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
