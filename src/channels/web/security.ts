/**
 * Headers every console and portal response carries. The Content-Security-Policy allows scripts, styles and
 * images only from the service itself and no inline code at all: even if some customer-supplied text escaped the
 * templates' escaping, the browser would not run it.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function securityHeaders(req: FastifyRequest, reply: FastifyReply): void {
  reply.header('content-security-policy', CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  reply.header('cross-origin-opener-policy', 'same-origin');
  // Pages show customers' orders: no shared cache may keep them. Static assets set their own caching.
  if (!req.url.startsWith('/web/')) reply.header('cache-control', 'no-store');
  if (req.protocol === 'https') reply.header('strict-transport-security', 'max-age=31536000');
}
