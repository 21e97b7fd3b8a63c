import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import iconv from 'iconv-lite';
import { ERROR_CATALOG, IntakeError } from '../../../src/domain/errors.ts';
import { readEnvelope, SOAP11_NS } from '../../../src/channels/soap/envelope.ts';
import { SoapFault } from '../../../src/channels/soap/fault.ts';
import { faultResponse } from '../../../src/channels/soap/responses.ts';
import { decimalText, escapeXml } from '../../../src/channels/soap/xml-text.ts';
import { SOAP11 } from './helpers.ts';

const NS = 'http://localhost:8080/ws/ordini';

function env(body: string, header = ''): string {
  return `<s:Envelope xmlns:s="${SOAP11}" xmlns:o="${NS}">${header}<s:Body>${body}</s:Body></s:Envelope>`;
}

void describe('xml-text', () => {
  void it('escapes markup and replaces characters XML 1.0 cannot carry', () => {
    assert.equal(escapeXml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
    assert.equal(escapeXml('a\u0001b\uD800c\uFFFEd\tè😀'), 'a\uFFFDb\uFFFDc\uFFFDd\tè😀');
  });

  void it('reads request text with the predefined entities and character references decoded once', () => {
    const env = `<soap:Envelope xmlns:soap="${SOAP11_NS}"><soap:Header><Autenticazione><ApiKey>R&amp;D &lt;1&gt; &#232;&#x1F600; &amp;lt;</ApiKey></Autenticazione></soap:Header><soap:Body><StatoOrdine/></soap:Body></soap:Envelope>`;
    assert.equal(readEnvelope(Buffer.from(env)).apiKey, 'R&D <1> è😀 &lt;');
  });

  void it('writes decimals without exponents', () => {
    assert.equal(decimalText(2.5), '2.5');
    assert.equal(decimalText(1e21), '1000000000000000000000');
    assert.equal(decimalText(1e-7), '0.0000001');
  });
});

void describe('fault mapping comes from the catalog', () => {
  void it('every catalog code gives its soapFault; detail only for the 400 (shape A) codes', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOG)) {
      const f = SoapFault.fromIntakeError(new IntakeError(code as keyof typeof ERROR_CATALOG, ['one', 'two']));
      assert.equal(f.faultcode, entry.soapFault, code);
      assert.equal(f.faultstring, 'one; two');
      assert.deepEqual(f.detail, entry.http === 400 ? ['one', 'two'] : undefined, code);
    }
  });

  void it('the fault XML escapes its text and qualifies the faultcode', () => {
    const xml = faultResponse(NS, SoapFault.of('VALIDATION', ['a <b> & "c"']));
    assert.match(xml, /<faultcode>soap:Client<\/faultcode><faultstring>a &lt;b&gt; &amp; &quot;c&quot;<\/faultstring>/);
    assert.match(xml, /<detail><ord:erroriValidazione xmlns:ord="http:\/\/localhost:8080\/ws\/ordini"><ord:messaggio>a &lt;b&gt;/);
    assert.doesNotMatch(faultResponse(NS, SoapFault.internal()), /<detail>/);
  });
});

void describe('readEnvelope', () => {
  void it('finds the operation and the key, with any prefixes', () => {
    const r = readEnvelope(Buffer.from(env('<o:StatoOrdine><id_ordine>x</id_ordine></o:StatoOrdine>', '<s:Header><o:Autenticazione><o:ApiKey> k&amp;1 </o:ApiKey></o:Autenticazione></s:Header>')));
    assert.deepEqual(r, { operation: 'StatoOrdine', apiKey: 'k&1', content: { id_ordine: 'x' } });
  });

  void it('a key given twice, or as a structure, is no key', () => {
    const twice = readEnvelope(Buffer.from(env('<o:StatoOrdine/>', '<s:Header><o:Autenticazione><o:ApiKey>a</o:ApiKey><o:ApiKey>b</o:ApiKey></o:Autenticazione></s:Header>')));
    assert.equal(twice.apiKey, undefined);
    const nested = readEnvelope(Buffer.from(env('<o:StatoOrdine/>', '<s:Header><o:Autenticazione><o:ApiKey><x>a</x></o:ApiKey></o:Autenticazione></s:Header>')));
    assert.equal(nested.apiKey, undefined);
  });

  void it('reads UTF-8 with a BOM, UTF-16 with a BOM, and a charset from the Content-Type', () => {
    const doc = env('<o:StatoOrdine><riferimento_ordine>PERCHÉ</riferimento_ordine></o:StatoOrdine>');
    const bom = readEnvelope(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(doc)]));
    assert.equal(bom.content.riferimento_ordine, 'PERCHÉ');
    const utf16 = readEnvelope(Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(doc, 'utf-16le')]));
    assert.equal(utf16.content.riferimento_ordine, 'PERCHÉ');
    const latin1 = readEnvelope(iconv.encode(doc, 'latin1'), 'iso-8859-1');
    assert.equal(latin1.content.riferimento_ordine, 'PERCHÉ');
  });

  void it('bytes that are not UTF-8, with nothing declared, are an unreadable request', () => {
    const doc = iconv.encode(env('<o:StatoOrdine><riferimento_ordine>PERCHÉ</riferimento_ordine></o:StatoOrdine>'), 'latin1');
    assert.throws(() => readEnvelope(doc), (e: unknown) => e instanceof IntakeError && e.code === 'NOT_PARSEABLE' && /UTF-8/.test(e.message));
  });

  void it('two Bodies, or two roots, are refused', () => {
    const two = `<s:Envelope xmlns:s="${SOAP11}"><s:Body><o:StatoOrdine xmlns:o="${NS}"/></s:Body><s:Body/></s:Envelope>`;
    assert.throws(() => readEnvelope(Buffer.from(two)), /at most one soap:Header and one soap:Body/);
    assert.throws(() => readEnvelope(Buffer.from(`${env('<o:StatoOrdine/>')}${env('<o:StatoOrdine/>')}`)), /well-formed XML .*Multiple possible root nodes/);
  });
});
