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
