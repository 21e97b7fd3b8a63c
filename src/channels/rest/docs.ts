/** Interactive API documentation (Swagger UI) under /api/docs, from the static OpenAPI document. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './openapi.ts';

export async function registerDocs(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, { mode: 'static', specification: { document: openApiDocument(publicUrl) as never } });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
}
