// Every HTTP error body comes from the error catalog (src/http/errors.ts: errorBody takes a catalog code, the status
// follows from it): a body written by hand would have no stable `code`, or a status of its own choosing.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CATALOG, type ErrorCode } from '../../src/domain/errors.ts';
import { errorBody } from '../../src/http/errors.ts';

const SRC = path.resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

void describe('HTTP error bodies', () => {
  void it('no source writes an error body by hand: an object literal opening with statusCode', () => {
    // The OpenAPI documents show examples of the shape; errors.ts is where the one shape is built.
    const allowed = (p: string) => p.endsWith(path.join('http', 'errors.ts')) || /openapi[^/]*\.ts$/.test(p);
    const found = sources(SRC).filter((p) => !allowed(p)).flatMap((p) => {
      const text = readFileSync(p, 'utf8');
      return [...text.matchAll(/\{\s*statusCode\s*:/g)].map((m) => `${path.relative(SRC, p)}:${text.slice(0, m.index).split('\n').length}`);
    });
    assert.deepEqual(found, []);
  });

  void it('a body carries its code and the status its code has, whatever the code', () => {
    for (const code of Object.keys(ERROR_CATALOG) as ErrorCode[]) {
      const body = errorBody(code);
      assert.equal(body.code, code);
      assert.equal(body.statusCode, ERROR_CATALOG[code].http);
      assert.equal(typeof body.error, 'string');
    }
    assert.deepEqual(errorBody('INVALID_PARAMETERS', ['a', 'b']).message, ['a', 'b'], '400s list their messages (shape A)');
    assert.equal(errorBody('ORDER_NOT_FOUND', ['a', 'b']).message, 'a; b');
  });
});
