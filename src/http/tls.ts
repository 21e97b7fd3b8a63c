/**
 * HTTPS on the HTTP port: the certificate files shared with FTP/SMTP (INTAKE_TLS_CERT/INTAKE_TLS_KEY), their
 * reloading on SIGHUP, HSTS, and the optional clear-text port that sends browsers over to HTTPS.
 *
 * Reloading swaps the server's secure context: connections already open keep the session they negotiated (a
 * keep-alive client is not dropped); every handshake from then on gets the new certificate. A reload whose files
 * are missing or do not match keeps the certificate in use, so a half-finished renewal cannot take the port down.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSecureContext, type Server as TlsServer } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.ts';
import type { ErrorCode } from '../domain/errors.ts';
import { errorBody } from './errors.ts';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/**
 * HSTS max-age: one year, what browsers' preload lists ask for. No includeSubDomains: the service's host name may
 * share its parent domain with sites the operator does not serve over HTTPS.
 */
export const HSTS_VALUE = 'max-age=31536000';

/**
 * A TLS handshake not finished within this is dropped. Node's default (120 s) would let sockets that never start
 * one sit for two minutes each, outside the HTTP timeouts, which begin only after the handshake; a real client
 * finishes in well under a second, 10 s leaves room for a slow link.
 */
export const HANDSHAKE_TIMEOUT_MS = 10_000;

/** Read the PEM files and prove they make a usable context (certificate and key match) before anyone relies on them. */
export async function readTlsFiles(files: TlsFiles): Promise<{ cert: Buffer; key: Buffer }> {
  const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
  createSecureContext({ cert, key });
  return { cert, key };
}

/** What the HTTPS server starts with: the certificate files and the handshake bound. */
export async function httpsOptions(files: TlsFiles): Promise<{ cert: Buffer; key: Buffer; handshakeTimeout: number }> {
  return { ...(await readTlsFiles(files)), handshakeTimeout: HANDSHAKE_TIMEOUT_MS };
}

/** Re-read the certificate files into a running HTTPS server; throws (and keeps the old ones) when they are unusable. */
export async function reloadTls(server: TlsServer, files: TlsFiles): Promise<void> {
  const pem = await readTlsFiles(files);
  server.setSecureContext(pem);
}

/**
 * Strict-Transport-Security on every answer that went out over HTTPS: natively, or through a trusted proxy that
 * says so in X-Forwarded-Proto (req.protocol believes it only from INTAKE_TRUST_PROXY peers). Never over clear
 * text, where browsers ignore it anyway.
 */
export function addHsts(app: FastifyInstance): void {
  app.addHook('onSend', async (req, reply) => {
    if (req.protocol === 'https') reply.header('strict-transport-security', HSTS_VALUE);
  });
}

export interface RedirectServerOptions {
  host: string;
  port: number;
  /** The HTTPS port the redirect points to (the bound one when configured as 0). */
  httpsPort: number;
  /** INTAKE_PUBLIC_URL when it is an https:// URL: redirects go there whatever Host the client sent. */
  publicUrl?: string;
  log: Logger;
}

/** A host name or address as it may appear in a Host header, with an optional port. */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)(?::\d{1,5})?$/i;

function target(req: http.IncomingMessage, opts: RedirectServerOptions): string | undefined {
  const path = req.url?.startsWith('/') ? req.url : '/';
  if (opts.publicUrl?.startsWith('https://')) return `${opts.publicUrl}${path}`;
  const m = HOST_HEADER.exec(req.headers.host ?? '');
  if (!m) return undefined;
  return `https://${m[1]}${opts.httpsPort === 443 ? '' : `:${opts.httpsPort}`}${path}`;
}

function sendJson(res: http.ServerResponse, code: ErrorCode, message: string): void {
  const body = errorBody(code, message);
  res.writeHead(body.statusCode, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
  res.end(JSON.stringify(body));
}

/**
 * The clear-text port (INTAKE_HTTP_REDIRECT_PORT). GET and HEAD get 308 to the same path over HTTPS, so a browser
 * or a link lands on the secure site. Every other method is refused with 403: such a request has already sent its
 * API key and order in clear, and following a redirect would make that mistake work, so the client would keep
 * making it. Nothing is ever processed here.
 */
export async function startRedirectServer(opts: RedirectServerOptions): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const location = target(req, opts);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 'HTTPS_REQUIRED', `HTTPS is required: send this request to ${location ?? `port ${opts.httpsPort} over HTTPS`}`);
    } else if (!location) {
      sendJson(res, 'BAD_REQUEST', 'Missing or invalid Host header');
    } else {
      res.writeHead(308, { location, 'content-type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'HEAD' ? undefined : `Moved to ${location}\n`);
    }
  });
  // Same slowloris bounds as the main port (http-server.ts): a trickling client is cut off.
  server.requestTimeout = 60_000;
  server.headersTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  opts.log.info({ channel: 'http-redirect', port }, `HTTP to HTTPS redirect listening on port ${port}`);
  return {
    port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
