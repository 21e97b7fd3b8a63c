import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJson, MAX_JSON_DEPTH } from '../../../src/intake/formats/index.ts';
import { throwsIntake, utf8 } from './helpers.ts';

const order = {
  codice_cliente: 'C001',
  riferimento_ordine: 'PO-1',
  data_ordine: '2024-05-02',
  data_consegna: '2024-05-20',
  righe: [{ codice_articolo: 'BIGL-100', quantita: 500, unita_misura: 'PZ' }],
};

const json = (v: unknown): { raw: Buffer } => ({ raw: utf8(JSON.stringify(v)) });

void describe('JSON decoder', () => {
  void it('reads one order object as one candidate, values untouched', () => {
    assert.deepEqual(decodeJson(json(order)), [order]);
  });

  void it('keeps values as sent, wrong types included, and extra fields', () => {
    const odd = { ...order, codice_cliente: 12, righe: [{ quantita: '12,5' }], note: 'x' };
    assert.deepEqual(decodeJson(json(odd)), [odd]);
  });

  void it('reads an array of orders and the {"ordini": [...]} wrapper', () => {
    const second = { ...order, riferimento_ordine: 'PO-2' };
    assert.deepEqual(decodeJson(json([order, second])), [order, second]);
    assert.deepEqual(decodeJson(json({ ordini: [order, second] })), [order, second]);
  });

  void it('gives no candidates for [] and {"ordini": []}', () => {
    assert.deepEqual(decodeJson(json([])), []);
    assert.deepEqual(decodeJson(json({ ordini: [] })), []);
  });

  void it('refuses layouts that hold no order objects', () => {
    throwsIntake(() => decodeJson(json({ ordini: 'x' })), 'NOT_PARSEABLE', /ordini must be an array of orders/);
    throwsIntake(() => decodeJson(json([order, 5])), 'NOT_PARSEABLE', /element 1 of the array must be an order object/);
    throwsIntake(() => decodeJson(json({ ordini: [null] })), 'NOT_PARSEABLE', /ordini\[0\] must be an order object/);
    throwsIntake(() => decodeJson(json('ordine')), 'NOT_PARSEABLE', /body must hold an order object/);
    throwsIntake(() => decodeJson({ raw: utf8('null') }), 'NOT_PARSEABLE', /body must hold an order object/);
  });

  void it('reports a syntax error in class-validator wording with line and column', () => {
    const e = throwsIntake(() => decodeJson({ raw: utf8('{\n  "codice_cliente": "C001",\n  "righe": [}\n') }), 'NOT_PARSEABLE');
    assert.match(e.messages[0] ?? '', /^body must be valid JSON \(.+\)$/, 'one line, reason in brackets');
    throwsIntake(
      () => decodeJson({ raw: utf8('{\n  "codice_cliente": "C001"\n  "righe": []\n}') }),
      'NOT_PARSEABLE',
      /^body must be valid JSON \(Expected ',' or '}' after property value in JSON at position 31, line 3 column 3\)$/,
    );
    throwsIntake(() => decodeJson({ raw: utf8('{"a": 1') }), 'NOT_PARSEABLE', /^body must be valid JSON/);
  });

  void it('strips a UTF-8 BOM', () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(JSON.stringify(order))]);
    assert.deepEqual(decodeJson({ raw }), [order]);
  });

  void it('refuses invalid UTF-8 naming the byte and line', () => {
    const raw = Buffer.concat([utf8('{\n"codice_cliente": "C'), Buffer.from([0xe0, 0x41]), utf8('"}')]);
    throwsIntake(() => decodeJson({ raw }), 'NOT_PARSEABLE', /JSON must be encoded in UTF-8: invalid byte 0xE0 on line 2 \(byte 23\)/);
  });

  void it('honours a declared charset', () => {
    const raw = Buffer.from('{"codice_cliente": "Caffè"}', 'latin1');
    assert.deepEqual(decodeJson({ raw, charset: 'ISO-8859-1' }), [{ codice_cliente: 'Caffè' }]);
    assert.deepEqual(decodeJson({ raw, mediaType: 'application/json; charset="iso-8859-1"' }), [{ codice_cliente: 'Caffè' }]);
  });

  void it('refuses 100,000 levels of nesting instead of crashing', () => {
    throwsIntake(() => decodeJson({ raw: utf8('['.repeat(100_000)) }), 'NOT_PARSEABLE', /^body must be valid JSON/);
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    throwsIntake(() => decodeJson({ raw: utf8(deep) }), 'NOT_PARSEABLE', /more than 32 levels deep/);
    const deepObject = '{"righe":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    throwsIntake(() => decodeJson({ raw: utf8(deepObject) }), 'NOT_PARSEABLE', /levels deep/);
  });

  void it('accepts nesting up to the limit', () => {
    let v: unknown = 'x';
    for (let i = 1; i < MAX_JSON_DEPTH; i++) v = { v };
    assert.equal(decodeJson({ raw: utf8(JSON.stringify(v)) }).length, 1);
  });

  void it('names an unexpected emoji without splitting it in half', () => {
    throwsIntake(() => decodeJson({ raw: utf8('{"riferimento_ordine": 🚚}') }), 'NOT_PARSEABLE', /^body must be valid JSON \(Unexpected token '\ufffd'/);
  });

  void it('keeps __proto__ keys as plain data without touching any prototype', () => {
    const raw = utf8('{"__proto__": {"polluted": true, "ordini": [1]}, "codice_cliente": "C001", "righe": [{"__proto__": {"x": 1}}]}');
    const [candidate] = decodeJson({ raw }) as Array<Record<string, unknown>>;
    assert.ok(candidate);
    assert.equal(Object.getPrototypeOf(candidate), Object.prototype);
    assert.equal(candidate.codice_cliente, 'C001');
    assert.ok(Object.hasOwn(candidate, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal((Object.prototype as Record<string, unknown>).x, undefined);
  });
});
