/**
 * The served OpenAPI document is valid for an independent validator (@readme/openapi-parser, the OpenAPI 3.0 schema
 * plus its own checks): code generators refuse a document that is not.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileErrors, validate } from '@readme/openapi-parser';
import { startTestService, type TestService } from '../../helpers/service.ts';

let t: TestService;
before(async () => {
  t = await startTestService();
});
after(() => t.close());

test('GET /api/docs/json is a valid OpenAPI 3.0 document', async () => {
  const res = await fetch(`${t.url}/api/docs/json`);
  assert.equal(res.status, 200);
  const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
  // 3.0, the version every generator reads; 3.1 forms (numeric exclusiveMinimum, type arrays) are invalid in it.
  assert.match(doc.openapi, /^3\.0\.\d+$/);
  const result = await validate(structuredClone(doc) as never);
  assert.equal(result.valid, true, result.valid ? '' : compileErrors(result));
  assert.ok(doc.paths['/api/v1/ordini'] && doc.paths['/api/v1/connettori/ordini'], 'REST and connector paths are both described');
});

test('Try it out leaves Prefer empty, so a first try gets 201, and the list of orders is described', async () => {
  const doc = (await (await fetch(`${t.url}/api/docs/json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: { name: string; schema?: Record<string, unknown>; example?: unknown; examples?: unknown }[] }>>;
  };
  const prefer = doc.paths['/api/v1/ordini']!.post!.parameters!.find((p) => p.name === 'Prefer')!;
  // Swagger UI fills a parameter in from its example, examples or default: any of them would send respond-async (202).
  for (const where of [prefer, prefer.schema ?? {}] as Record<string, unknown>[]) {
    for (const key of ['example', 'examples', 'default']) assert.equal(where[key], undefined, `Prefer has no ${key}`);
  }
  const names = doc.paths['/api/v1/ordini']!.get!.parameters!.map((p) => p.name);
  assert.deepEqual(names, ['riferimento_ordine', 'dal', 'al', 'stato', 'limite', 'cursore', 'cliente']);
});
