/** Interactive API documentation (Swagger UI) under /api/docs, from the static OpenAPI document. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './openapi.ts';

/**
 * Swagger UI's own policy, as strict as the console's (web/security.ts) except where the bundle needs more: it loads
 * only its own files (no inline script), and "Try it out" calls this service. The bundle draws its icons as data:
 * SVG images and inserts one fixed <style> element (allowed by its hash, so no other inline style is); after an
 * upgrade of @fastify/swagger-ui, test/e2e/api-docs.test.ts fails on a violation if that element changed.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export async function registerDocs(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, { mode: 'static', specification: { document: openApiDocument(publicUrl) as never } });
  // A scope of its own, so the headers reach every route the plugin adds (page, initializer, static assets).
  await app.register(async (docs) => {
    docs.addHook('onRequest', async (_req, reply) => {
      reply.header('content-security-policy', DOCS_CSP);
      reply.header('x-frame-options', 'DENY');
      reply.header('x-content-type-options', 'nosniff');
      reply.header('referrer-policy', 'no-referrer');
    });
    await docs.register(swaggerUi, { routePrefix: '/api/docs' });
  });
}
