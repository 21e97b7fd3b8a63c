import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { decodeXml } from '../../../src/intake/formats/index.ts';
import { throwsIntake, utf8 } from './helpers.ts';

const ORDER_BODY = `
  <codice_cliente>C001</codice_cliente>
  <riferimento_ordine>PO-1</riferimento_ordine>
  <data_ordine>2024-05-02</data_ordine>
  <data_consegna>2024-05-20</data_consegna>
  <righe>
    <riga><codice_articolo>BIGL-100</codice_articolo><quantita>500</quantita><unita_misura>PZ</unita_misura></riga>
    <riga><codice_articolo>VOL-A4</codice_articolo><quantita> 12,5 </quantita><unita_misura>KG</unita_misura></riga>
  </righe>`;

const EXPECTED = {
  codice_cliente: 'C001',
  riferimento_ordine: 'PO-1',
  data_ordine: '2024-05-02',
  data_consegna: '2024-05-20',
  righe: [
    { codice_articolo: 'BIGL-100', quantita: 500, unita_misura: 'PZ' },
    { codice_articolo: 'VOL-A4', quantita: 12.5, unita_misura: 'KG' },
  ],
};

const xml = (s: string): { raw: Buffer } => ({ raw: utf8(s) });

void describe('XML decoder', () => {
  void it('reads a single <ordine>', () => {
    assert.deepEqual(decodeXml(xml(`<?xml version="1.0" encoding="UTF-8"?>\n<ordine>${ORDER_BODY}</ordine>`)), [EXPECTED]);
  });

  void it('reads several orders under <ordini>, and one alone still as a list', () => {
    const two = `<ordini><ordine>${ORDER_BODY}</ordine><ordine><codice_cliente>C002</codice_cliente></ordine></ordini>`;
    assert.deepEqual(decodeXml(xml(two)), [EXPECTED, { codice_cliente: 'C002' }]);
    assert.deepEqual(decodeXml(xml(`<ordini><ordine>${ORDER_BODY}</ordine></ordini>`)), [EXPECTED]);
    assert.deepEqual(decodeXml(xml('<ordini/>')), []);
    assert.deepEqual(decodeXml(xml('<ordini>\n</ordini>')), []);
  });

  void it('reads the SOAP body element <InviaOrdine> as one order', () => {
    const soap = `<ord:InviaOrdine xmlns:ord="https://example.test/ws/ordini">
      <ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>PO-9</ord:riferimento_ordine>
      <ord:data_ordine>2024-05-02</ord:data_ordine>
      <ord:righe><ord:riga><ord:codice_articolo>A</ord:codice_articolo><ord:quantita>3</ord:quantita>
      <ord:unita_misura>PZ</ord:unita_misura></ord:riga></ord:righe></ord:InviaOrdine>`;
    assert.deepEqual(decodeXml(xml(soap)), [{
      codice_cliente: 'C001', riferimento_ordine: 'PO-9', data_ordine: '2024-05-02',
      righe: [{ codice_articolo: 'A', quantita: 3, unita_misura: 'PZ' }],
    }]);
  });

  void it('ignores namespace prefixes declared on the root or on each element, and attributes', () => {
    const onRoot = `<ord:ordine xmlns:ord="urn:ordini">${ORDER_BODY.replace(/<(\/?)(\w+)>/g, '<$1ord:$2>')}</ord:ordine>`;
    assert.deepEqual(decodeXml(xml(onRoot)), [EXPECTED]);
    const onEach = `<o:ordine xmlns:o="urn:a">${ORDER_BODY.replace(/<(\w+)>/g, '<p:$1 xmlns:p="urn:b" tipo="x">').replace(/<\/(\w+)>/g, '</p:$1>')}</o:ordine>`;
    assert.deepEqual(decodeXml(xml(onEach)), [EXPECTED]);
    const defaultNs = `<ordine xmlns="urn:ordini" versione="2">${ORDER_BODY}</ordine>`;
    assert.deepEqual(decodeXml(xml(defaultNs)), [EXPECTED]);
  });

  void it('converts only a line\'s quantita, and only when it is a decimal number', () => {
    const body = `<ordine><codice_cliente>007</codice_cliente><quantita>5</quantita><righe>
      <riga><quantita>12.5</quantita></riga><riga><quantita>-3</quantita></riga>
      <riga><quantita>dodici</quantita></riga><riga><quantita>1e3</quantita></riga><riga><quantita/></riga>
    </righe></ordine>`;
    assert.deepEqual(decodeXml(xml(body)), [{
      codice_cliente: '007',
      quantita: '5',
      righe: [{ quantita: 12.5 }, { quantita: -3 }, { quantita: 'dodici' }, { quantita: '1e3' }, { quantita: '' }],
    }]);
  });

  void it('gives righe as a list: one line, no lines, absent', () => {
    assert.deepEqual(decodeXml(xml('<ordine><righe><riga><quantita>1</quantita></riga></righe></ordine>')), [{ righe: [{ quantita: 1 }] }]);
    assert.deepEqual(decodeXml(xml('<ordine><righe/></ordine>')), [{ righe: [] }]);
    assert.deepEqual(decodeXml(xml('<ordine><righe>  </righe></ordine>')), [{ righe: [] }]);
    assert.deepEqual(decodeXml(xml('<ordine><codice_cliente>C1</codice_cliente></ordine>')), [{ codice_cliente: 'C1' }]);
    assert.deepEqual(decodeXml(xml('<ordine><righe><riga/></righe></ordine>')), [{ righe: [{}] }]);
    assert.deepEqual(
      decodeXml(xml('<ordine><righe><riga><quantita>1</quantita></riga></righe><righe><riga><quantita>2</quantita></riga></righe></ordine>')),
      [{ righe: [{ quantita: 1 }, { quantita: 2 }] }],
    );
  });

  void it('leaves out an empty optional data_consegna and keeps other empty elements as ""', () => {
    assert.deepEqual(
      decodeXml(xml('<ordine><codice_cliente/><data_consegna/><data_ordine></data_ordine></ordine>')),
      [{ codice_cliente: '', data_ordine: '' }],
    );
  });

  void it('passes nested or repeated elements through for stage A to judge', () => {
    assert.deepEqual(
      decodeXml(xml('<ordine><codice_cliente><a>1</a></codice_cliente><riferimento_ordine>A</riferimento_ordine><riferimento_ordine>B</riferimento_ordine></ordine>')),
      [{ codice_cliente: { a: '1' }, riferimento_ordine: ['A', 'B'] }],
    );
  });

  void it('decodes the predefined entities and character references, but not inside CDATA', () => {
    const body = '<ordine><codice_cliente>A&amp;B &lt;1&gt; &#233;&#x20AC;</codice_cliente><riferimento_ordine><![CDATA[x&amp;<y>]]></riferimento_ordine><data_ordine>&#0;&#x110000;</data_ordine></ordine>';
    assert.deepEqual(decodeXml(xml(body)), [{ codice_cliente: 'A&B <1> é€', riferimento_ordine: 'x&amp;<y>', data_ordine: '&#0;&#x110000;' }]);
  });

  void it('refuses a DOCTYPE (billion laughs) quickly', () => {
    const lol = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<ordine><codice_cliente>&lol9;</codice_cliente></ordine>`;
    throwsIntake(() => decodeXml(xml(lol)), 'NOT_PARSEABLE', /^XML documents with a DOCTYPE are not accepted$/);
    throwsIntake(() => decodeXml(xml('<!doctype ordine><ordine/>')), 'NOT_PARSEABLE', /DOCTYPE/);
  });

  void it('refuses an external entity (XXE)', () => {
    const xxe = '<?xml version="1.0"?><!DOCTYPE ordine [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><ordine><codice_cliente>&xxe;</codice_cliente></ordine>';
    throwsIntake(() => decodeXml(xml(xxe)), 'NOT_PARSEABLE', /DOCTYPE are not accepted/);
    throwsIntake(() => decodeXml(xml('<ordine><!ENTITY xxe SYSTEM "file:///etc/passwd"></ordine>')), 'NOT_PARSEABLE', /ENTITY declarations are not accepted/);
  });

  void it('leaves undeclared entity references as written, never resolving them', () => {
    assert.deepEqual(decodeXml(xml('<ordine><codice_cliente>&xxe;</codice_cliente></ordine>')), [{ codice_cliente: '&xxe;' }]);
  });

  void it('refuses malformed XML with the line and column', () => {
    throwsIntake(
      () => decodeXml(xml('<ordine>\n  <codice_cliente>C001</codice>\n</ordine>')),
      'NOT_PARSEABLE',
      /^body must be well-formed XML \(line 2, column \d+: Expected closing tag 'codice_cliente' .*\)$/,
    );
    throwsIntake(() => decodeXml(xml('<ordine>')), 'NOT_PARSEABLE', /Unclosed tag 'ordine'/);
    throwsIntake(() => decodeXml(xml('ordine')), 'NOT_PARSEABLE', /well-formed XML/);
    throwsIntake(() => decodeXml(xml('<ordine></ordine>trailing')), 'NOT_PARSEABLE', /well-formed XML/);
  });

  void it('refuses two roots and unknown roots', () => {
    throwsIntake(() => decodeXml(xml('<ordine/><ordine/>')), 'NOT_PARSEABLE', /exactly one root element/);
    throwsIntake(() => decodeXml(xml('<ordine/><ordini/>')), 'NOT_PARSEABLE', /exactly one root element/);
    throwsIntake(() => decodeXml(xml('<listino/>')), 'NOT_PARSEABLE', /root element must be <ordine>, <ordini> or <InviaOrdine>, or a UBL <Order>, <OrderChange> or <OrderCancellation> in its namespace, not <listino>/);
  });

  void it('unwraps a SOAP envelope around InviaOrdine and refuses an envelope without an order', () => {
    const env = (body: string) => xml(`<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ord="urn:o">`
      + `<soap:Header><ord:Autenticazione><ord:ApiKey>k</ord:ApiKey></ord:Autenticazione></soap:Header><soap:Body>${body}</soap:Body></soap:Envelope>`);
    const [o] = decodeXml(env('<ord:InviaOrdine><ord:codice_cliente>C001</ord:codice_cliente><ord:righe><ord:riga><ord:quantita>2</ord:quantita></ord:riga></ord:righe></ord:InviaOrdine>'));
    assert.deepEqual(o, { codice_cliente: 'C001', righe: [{ quantita: 2 }] });
    throwsIntake(() => decodeXml(xml('<soap:Envelope xmlns:soap="urn:s"><soap:Header/></soap:Envelope>')), 'NOT_PARSEABLE', /must contain a Body/);
    throwsIntake(() => decodeXml(env('<ord:Altro/>')), 'NOT_PARSEABLE', /root element must be/);
  });

  void it('refuses __proto__, constructor and prototype elements without polluting anything', () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const body = `<ordine><${name}><polluted>yes</polluted></${name}><righe><riga><${name}><polluted>yes</polluted></${name}></riga></righe></ordine>`;
      throwsIntake(() => decodeXml(xml(body)), 'NOT_PARSEABLE', new RegExp(`XML element name "${name}" is not allowed`));
      throwsIntake(() => decodeXml(xml(`<ordine><x:${name} xmlns:x="urn:x">1</x:${name}></ordine>`)), 'NOT_PARSEABLE', /is not allowed/);
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.constructor, Object);
  });

  void it('keeps other property-like names as harmless data', () => {
    const [order] = decodeXml(xml('<ordine><toString>x</toString><codice_cliente>C1</codice_cliente></ordine>')) as Array<Record<string, unknown>>;
    assert.ok(order);
    assert.equal(order.codice_cliente, 'C1');
    assert.equal(typeof Object.prototype.toString, 'function');
    assert.equal(String(order), '[object Object]');
  });

  void it('refuses deep nesting', () => {
    const deep = '<ordine>' + '<a>'.repeat(10_000) + '</a>'.repeat(10_000) + '</ordine>';
    throwsIntake(() => decodeXml(xml(deep)), 'NOT_PARSEABLE', /more than 32 levels deep/);
  });

  void it('respects the declared encoding in the XML declaration', () => {
    const text = `<?xml version="1.0" encoding="windows-1252"?><ordine><codice_cliente>Caffè €</codice_cliente></ordine>`;
    assert.deepEqual(decodeXml({ raw: iconv.encode(text, 'windows-1252') }), [{ codice_cliente: 'Caffè €' }]);
    const latin1 = `<?xml version='1.0' encoding='ISO-8859-1' standalone='yes'?><ordine><codice_cliente>Però</codice_cliente></ordine>`;
    assert.deepEqual(decodeXml({ raw: iconv.encode(latin1, 'latin1') }), [{ codice_cliente: 'Però' }]);
  });

  void it('lets a declared charset or a BOM win over the XML declaration', () => {
    const text = `<?xml version="1.0" encoding="ISO-8859-1"?><ordine><codice_cliente>Caffè</codice_cliente></ordine>`;
    assert.deepEqual(decodeXml({ raw: utf8(text), charset: 'utf-8' }), [{ codice_cliente: 'Caffè' }]);
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(text)]);
    assert.deepEqual(decodeXml({ raw: bom }), [{ codice_cliente: 'Caffè' }]);
    const utf16 = iconv.encode(`<?xml version="1.0" encoding="UTF-16"?><ordine><codice_cliente>Caffè</codice_cliente></ordine>`, 'utf-16le', { addBOM: true });
    assert.deepEqual(decodeXml({ raw: utf16 }), [{ codice_cliente: 'Caffè' }]);
  });

  void it('refuses invalid UTF-8 when no other encoding is declared', () => {
    const raw = Buffer.concat([utf8('<ordine><codice_cliente>Caff'), Buffer.from([0xe8]), utf8('</codice_cliente></ordine>')]);
    throwsIntake(() => decodeXml({ raw }), 'NOT_PARSEABLE', /XML must be encoded in UTF-8: invalid byte 0xE8 on line 1/);
  });

  void it('refuses an encoding it does not know', () => {
    throwsIntake(
      () => decodeXml(xml('<?xml version="1.0" encoding="klingon-8"?><ordine/>')),
      'NOT_PARSEABLE',
      /XML charset "klingon-8" is not supported/,
    );
  });
});
