import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeOrders } from '../../../src/intake/formats/index.ts';
import { throwsIntake, utf8 } from './helpers.ts';

const JSON_ORDER = '{"codice_cliente":"C001","riferimento_ordine":"PO-1","data_ordine":"2024-05-02","righe":[{"codice_articolo":"A","quantita":2,"unita_misura":"PZ"}]}';
const XML_ORDER = '<ordine><codice_cliente>C001</codice_cliente><riferimento_ordine>PO-1</riferimento_ordine><data_ordine>2024-05-02</data_ordine><righe><riga><codice_articolo>A</codice_articolo><quantita>2</quantita><unita_misura>PZ</unita_misura></riga></righe></ordine>';
const CSV_ORDER = 'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura\nC001;PO-1;2024-05-02;A;2;PZ\n';
const EXPECTED = [{ codice_cliente: 'C001', riferimento_ordine: 'PO-1', data_ordine: '2024-05-02', righe: [{ codice_articolo: 'A', quantita: 2, unita_misura: 'PZ' }] }];

void describe('decodeOrders', () => {
  void it('gives the same candidate for the same order in each format', () => {
    assert.deepEqual(decodeOrders({ raw: utf8(JSON_ORDER), mediaType: 'application/json' }), EXPECTED);
    assert.deepEqual(decodeOrders({ raw: utf8(XML_ORDER), fileName: 'ordine.xml' }), EXPECTED);
    assert.deepEqual(decodeOrders({ raw: utf8(CSV_ORDER), fileName: 'ordine.txt' }), EXPECTED);
  });

  void it('reads content whatever a mislabelled foreign type says', () => {
    assert.deepEqual(decodeOrders({ raw: utf8(JSON_ORDER), mediaType: 'application/pdf' }), EXPECTED);
  });

  void it('refuses an empty file', () => {
    throwsIntake(() => decodeOrders({ raw: Buffer.alloc(0) }), 'NOT_PARSEABLE', /^the file is empty$/);
    throwsIntake(() => decodeOrders({ raw: utf8('\ufeff \n '), mediaType: 'application/json' }), 'NOT_PARSEABLE', /^the file is empty$/);
  });

  void it('says NO_ORDERS for a readable file without orders', () => {
    throwsIntake(() => decodeOrders({ raw: utf8('[]') }), 'NO_ORDERS', /^the file holds no order$/);
    throwsIntake(() => decodeOrders({ raw: utf8('{"ordini": []}') }), 'NO_ORDERS');
    throwsIntake(() => decodeOrders({ raw: utf8('<ordini/>') }), 'NO_ORDERS');
    throwsIntake(() => decodeOrders({ raw: utf8(CSV_ORDER.split('\n')[0] ?? '') }), 'NO_ORDERS');
  });

  void it('says UNSUPPORTED_MEDIA_TYPE for a declared foreign type it cannot read', () => {
    throwsIntake(
      () => decodeOrders({ raw: utf8('hello'), mediaType: 'application/pdf' }),
      'UNSUPPORTED_MEDIA_TYPE',
      /^media type application\/pdf is not accepted; send the order as JSON, XML, CSV or Excel$/,
    );
    throwsIntake(() => decodeOrders({ raw: utf8('hello'), mediaType: 'image/jpeg' }), 'UNSUPPORTED_MEDIA_TYPE', /image\/jpeg/);
    throwsIntake(() => decodeOrders({ raw: utf8('hello'), fileName: 'ordine.docx' }), 'UNSUPPORTED_MEDIA_TYPE', /^a \.docx file is not accepted/);
  });

  void it('names a binary file by its content, even when labelled as CSV', () => {
    const xls = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0]);
    throwsIntake(() => decodeOrders({ raw: xls, mediaType: 'application/vnd.ms-excel', fileName: 'ordine.xls' }), 'UNSUPPORTED_MEDIA_TYPE', /Office document.*send the order as JSON, XML, CSV or Excel/);
    throwsIntake(() => decodeOrders({ raw: utf8('%PDF-1.4 ...') }), 'UNSUPPORTED_MEDIA_TYPE', /PDF/);
  });

  void it('says NOT_PARSEABLE when nothing tells the format', () => {
    throwsIntake(() => decodeOrders({ raw: utf8('ciao, ecco il mio ordine') }), 'NOT_PARSEABLE', /not JSON, XML, CSV or Excel/);
    throwsIntake(() => decodeOrders({ raw: utf8('hello'), mediaType: 'text/plain', fileName: 'ordine.dat' }), 'NOT_PARSEABLE');
  });

  void it('passes format errors through', () => {
    throwsIntake(() => decodeOrders({ raw: utf8('{"a":'), mediaType: 'application/json' }), 'NOT_PARSEABLE', /body must be valid JSON/);
    throwsIntake(() => decodeOrders({ raw: utf8('<ordine>'), mediaType: 'text/xml' }), 'NOT_PARSEABLE', /well-formed XML/);
    throwsIntake(() => decodeOrders({ raw: utf8('a;b\n1;2\n'), mediaType: 'text/csv' }), 'NOT_PARSEABLE', /CSV header must name/);
  });
});
