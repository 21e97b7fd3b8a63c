import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { detectFormat } from '../../../src/intake/formats/index.ts';
import { binaryKind, declaredForeign } from '../../../src/intake/formats/detect.ts';
import { utf8 } from './helpers.ts';

const JSON_BODY = utf8('{"codice_cliente": "C001"}');
const XML_BODY = utf8('<ordine/>');
const CSV_BODY = utf8('codice_cliente;riferimento_ordine\nC001;PO-1\n');
const NEUTRAL = utf8('hello');

void describe('format detection', () => {
  void it('goes by the media type first, parameters and case ignored', () => {
    const cases: Array<[string, string]> = [
      ['application/json', 'json'], ['text/json', 'json'], ['application/vnd.api+json', 'json'],
      ['Application/JSON; charset=UTF-8', 'json'],
      ['application/xml', 'xml'], ['text/xml; charset=iso-8859-1', 'xml'], ['application/soap+xml', 'xml'],
      ['text/csv', 'csv'], ['application/csv', 'csv'], ['text/comma-separated-values', 'csv'],
      ['application/vnd.ms-excel', 'csv'], ['text/tab-separated-values', 'csv'],
    ];
    for (const [mediaType, format] of cases) {
      assert.equal(detectFormat({ raw: NEUTRAL, mediaType, fileName: 'x.json' }), format, mediaType);
    }
    // The declared type wins even over content that looks like something else.
    assert.equal(detectFormat({ raw: XML_BODY, mediaType: 'application/json' }), 'json');
  });

  void it('falls through generic or unknown media types to the file name', () => {
    for (const mediaType of ['text/plain', 'application/octet-stream', undefined, '', 'application/pdf']) {
      assert.equal(detectFormat({ raw: NEUTRAL, mediaType, fileName: 'ordine.XML' }), 'xml', String(mediaType));
    }
    assert.equal(detectFormat({ raw: NEUTRAL, fileName: 'export/ordini.csv' }), 'csv');
    assert.equal(detectFormat({ raw: NEUTRAL, fileName: 'C:\\export\\ordine.json' }), 'json');
    assert.equal(detectFormat({ raw: NEUTRAL, fileName: 'righe.tsv' }), 'csv');
  });

  void it('sniffs the content when neither says anything (.txt, no name)', () => {
    assert.equal(detectFormat({ raw: JSON_BODY, fileName: 'ordine.txt' }), 'json');
    assert.equal(detectFormat({ raw: utf8(' \r\n\t[{}]') }), 'json');
    assert.equal(detectFormat({ raw: XML_BODY, mediaType: 'text/plain' }), 'xml');
    assert.equal(detectFormat({ raw: utf8('\ufeff<?xml version="1.0"?><ordine/>') }), 'xml');
    assert.equal(detectFormat({ raw: CSV_BODY, fileName: 'ordine.txt' }), 'csv');
    assert.equal(detectFormat({ raw: utf8('\n\nCODICE_CLIENTE\tquantita\n') }), 'csv');
    assert.equal(detectFormat({ raw: iconv.encode('codice_cliente,x\n', 'utf-16le', { addBOM: true }) }), 'csv');
    assert.equal(detectFormat({ raw: iconv.encode('{"a":1}', 'utf-16be', { addBOM: true }) }), 'json');
  });

  void it('finds nothing in content that is none of the three', () => {
    assert.equal(detectFormat({ raw: NEUTRAL }), undefined);
    assert.equal(detectFormat({ raw: utf8('codice_cliente\n') }), undefined, 'a header needs a delimiter');
    assert.equal(detectFormat({ raw: utf8('articolo;quantita\ncodice_cliente;x\n') }), undefined, 'only the first line counts');
    assert.equal(detectFormat({ raw: Buffer.alloc(0) }), undefined);
    assert.equal(detectFormat({ raw: NEUTRAL, fileName: 'ordine.dat' }), undefined);
  });

  void it('tells a declared foreign type from a generic or missing one', () => {
    assert.equal(declaredForeign({ raw: NEUTRAL, mediaType: 'Application/PDF; x=1' }), 'media type application/pdf');
    assert.equal(declaredForeign({ raw: NEUTRAL, mediaType: 'image/png' }), 'media type image/png');
    assert.equal(declaredForeign({ raw: NEUTRAL, fileName: 'scan.JPG' }), 'a .jpg file');
    assert.equal(declaredForeign({ raw: NEUTRAL, mediaType: 'text/plain' }), undefined);
    assert.equal(declaredForeign({ raw: NEUTRAL, mediaType: 'application/octet-stream', fileName: 'ordine.dat' }), undefined);
    assert.equal(declaredForeign({ raw: NEUTRAL }), undefined);
  });

  void it('recognises common binary files by their first bytes', () => {
    assert.match(binaryKind(utf8('%PDF-1.7\n...')) ?? '', /PDF/);
    assert.match(binaryKind(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14])) ?? '', /ZIP.*xlsx/);
    assert.match(binaryKind(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0])) ?? '', /\.xls/);
    assert.match(binaryKind(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d])) ?? '', /PNG/);
    assert.equal(binaryKind(CSV_BODY), undefined);
    assert.equal(binaryKind(Buffer.alloc(0)), undefined);
  });
});
