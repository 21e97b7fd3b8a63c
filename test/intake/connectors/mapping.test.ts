import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileMapping, decodeConnectorPayload } from '../../../src/intake/connectors/index.ts';
import { MAPPING_TIMEOUT_MS } from '../../../src/intake/connectors/mapping.ts';
import { fixture, profile, RECEIVED_AT, rejectsIntake } from './helpers.ts';

const decode = (format: 'json' | 'xml', raw: Buffer | string, mapping?: string, contentType?: string) => decodeConnectorPayload({
  raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw),
  contentType: contentType ?? (format === 'json' ? 'application/json' : 'application/xml'),
  profile: profile(format, {}, mapping),
  receivedAt: RECEIVED_AT,
});

const mapping = (name: string): string => fixture(name).toString('utf8');

void describe('ERP JSON with a JSONata mapping', () => {
  void it('maps the ERP document to one order and takes sito_produzione out as the site', async () => {
    const d = await decode('json', fixture('erp-order.json'), mapping('erp-order.jsonata'));
    assert.equal(d.kind, 'json');
    assert.equal(d.site, 'VR');
    assert.deepEqual(d.candidates, [{
      codice_cliente: 'C001',
      riferimento_ordine: 'OC-2026-00912',
      data_ordine: '2026-11-19',
      data_consegna: '2026-12-02',
      righe: [
        { codice_articolo: 'BV-85x55', quantita: 500, unita_misura: 'PZ' },
        { codice_articolo: 'FLY-A5', quantita: 1500, unita_misura: 'PZ' },
      ],
    }]);
  });

  void it('gives the mapping $receivedAt', async () => {
    const d = await decode('json', '{"n":"A1","c":"C001"}', '{"codice_cliente": c, "riferimento_ordine": n, "data_ordine": $substring($receivedAt, 0, 10), "righe": []}');
    assert.equal((d.candidates[0] as Record<string, unknown>).data_ordine, '2026-11-22');
  });

  void it('accepts an array of orders or {"ordini": [...]}', async () => {
    const two = await decode('json', '[{"r":"A"},{"r":"B"}]', '$.{"riferimento_ordine": r}');
    assert.deepEqual(two.candidates, [{ riferimento_ordine: 'A' }, { riferimento_ordine: 'B' }]);
    const wrapped = await decode('json', '[{"r":"A"}]', '{"ordini": [$.{"riferimento_ordine": r}]}');
    assert.deepEqual(wrapped.candidates, [{ riferimento_ordine: 'A' }]);
  });

  void it('refuses orders naming two different sites', async () => {
    await rejectsIntake(() => decode('json', '[{"s":"VR"},{"s":"MI"}]', '$.{"sito_produzione": s}'), 'NOT_PARSEABLE', /one production site/);
  });

  void it('a mapping that finds nothing means no order', async () => {
    await rejectsIntake(() => decode('json', '{"a":1}', 'missing.field'), 'NO_ORDERS');
  });

  void it('a result that is not an order object is refused', async () => {
    await rejectsIntake(() => decode('json', '{"a":[1,2]}', 'a'), 'NOT_PARSEABLE', /result 0 is not one/);
  });

  void it('a mapping that loops forever is stopped within the time bound', async () => {
    const started = Date.now();
    await rejectsIntake(() => decode('json', '{"a":1}', '($f := function($n) { $f($n + 1) }; $f(0))'), 'NOT_PARSEABLE', /ran longer than|recursed deeper/);
    await rejectsIntake(() => decode('json', '{"a":1}', '($loop := function($n) { $n < 0 ? 0 : $loop($n + 1) }; {"x": $loop(1)})'), 'NOT_PARSEABLE', /ran longer than|recursed deeper/);
    assert.ok(Date.now() - started < 4 * MAPPING_TIMEOUT_MS + 2000, `took ${Date.now() - started} ms`);
  });

  void it('deep non-tail recursion is stopped by the depth bound', async () => {
    await rejectsIntake(() => decode('json', '{"a":1}', '($f := function($n) { 1 + $f($n + 1) }; $f(0))'), 'NOT_PARSEABLE', /recursed deeper|ran longer/);
  });

  void it('a mapping that throws gives its error as the reason', async () => {
    await rejectsIntake(() => decode('json', '{"a":1}', '$error("ordine senza cliente")'), 'NOT_PARSEABLE', /mapping failed on this payload \(ordine senza cliente/);
    await rejectsIntake(() => decode('json', '{"a":"x"}', '{"q": a + 1}'), 'NOT_PARSEABLE', /mapping failed on this payload/);
  });

  void it('a stored mapping that does not compile is reported as the operator\'s to fix', async () => {
    await rejectsIntake(() => decode('json', '{"a":1}', '{"a": '), 'NOT_PARSEABLE', /does not compile .*operator/);
  });

  void it('bad JSON and too-deep JSON are refused before the mapping runs', async () => {
    await rejectsIntake(() => decode('json', '{"a":', 'a'), 'NOT_PARSEABLE', /valid JSON/);
    await rejectsIntake(() => decode('json', `${'['.repeat(100)}${']'.repeat(100)}`, '$'), 'NOT_PARSEABLE', /levels deep/);
  });

  void it('refuses XML on a JSON connector', async () => {
    await rejectsIntake(() => decode('json', fixture('erp-export.xml'), 'x', 'application/xml'), 'UNSUPPORTED_MEDIA_TYPE', /takes JSON/);
  });

  void it('without a mapping, decodes the spec\'s own order JSON, site included', async () => {
    const order = { codice_cliente: 'C001', riferimento_ordine: 'R1', data_ordine: '2026-11-20', sito_produzione: 'MI', righe: [{ codice_articolo: 'A', quantita: '3', unita_misura: 'PZ' }] };
    const d = await decode('json', JSON.stringify(order));
    assert.equal(d.site, 'MI');
    const { sito_produzione: _site, ...rest } = order;
    assert.deepEqual(d.candidates, [rest]); // quantita untouched: stage A judges it
  });
});

void describe('ERP XML with a JSONata mapping', () => {
  void it('maps an export with several orders; attributes as @name, text as #text, prefixes removed', async () => {
    const d = await decode('xml', fixture('erp-export.xml'), mapping('erp-export.jsonata'));
    assert.equal(d.kind, 'xml');
    assert.equal(d.site, undefined);
    assert.deepEqual(d.candidates, [
      {
        codice_cliente: 'C001', riferimento_ordine: 'V-3321', data_ordine: '2026-11-18', data_consegna: '2026-11-30',
        righe: [
          { codice_articolo: 'FLY-A5', quantita: 1500, unita_misura: 'PZ' },
          { codice_articolo: 'MAN-70x100', quantita: 20.5, unita_misura: 'PZ' },
        ],
      },
      // One <Riga>: JSONata gives an object, read as a one-line array.
      { codice_cliente: 'C001', riferimento_ordine: 'V-3322', data_ordine: '2026-11-18', righe: [{ codice_articolo: 'BV-85x55', quantita: 250, unita_misura: 'PZ' }] },
    ]);
  });

  void it('refuses a DOCTYPE and an entity bomb before the mapping sees anything', async () => {
    const bomb = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><Esportazione>&lol2;</Esportazione>';
    await rejectsIntake(() => decode('xml', bomb, mapping('erp-export.jsonata')), 'NOT_PARSEABLE', /DOCTYPE/);
    const xxe = '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><x>&xxe;</x>';
    await rejectsIntake(() => decode('xml', xxe, '$'), 'NOT_PARSEABLE', /DOCTYPE/);
  });

  void it('without a mapping, decodes the spec\'s own order XML', async () => {
    const d = await decode('xml', '<ordine><codice_cliente>C001</codice_cliente><riferimento_ordine>R1</riferimento_ordine><data_ordine>2026-11-20</data_ordine><righe><riga><codice_articolo>A</codice_articolo><quantita>2</quantita><unita_misura>PZ</unita_misura></riga></righe></ordine>');
    assert.deepEqual(d.candidates, [{ codice_cliente: 'C001', riferimento_ordine: 'R1', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'A', quantita: 2, unita_misura: 'PZ' }] }]);
  });
});

void describe('compileMapping', () => {
  void it('compiles a good mapping and says why a bad one does not compile', () => {
    assert.ok(compileMapping(mapping('erp-order.jsonata')));
    assert.throws(() => compileMapping('documento.{ "a": '), (e: Error) => /at character \d+/.test(e.message) && !/\n\s+at /.test(e.message));
    assert.throws(() => compileMapping('$$$('), Error);
  });
});
