import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { SOAP11, SOAP12, envelope, faultOf, inviaOrdine, orderFields, post, statoOrdine } from './helpers.ts';

const run = promisify(execFile);

let t: TestService;
/** A second service with a small body limit, and whose database the last test closes. */
let small: TestService;
let c1: TestCustomer;
let ns: string;

// Both services start here, before any test: startTestService silences stdout while it starts, which would also
// swallow the test reporter's lines if it ran in the middle of the file.
before(async () => {
  t = await startTestService();
  small = await startTestService({ INTAKE_MAX_BODY_BYTES: '2048' });
  c1 = await t.customer('C001');
  ns = `${t.url}/ws/ordini`;
});
after(async () => {
  await t.close();
  await small.close();
});

async function submissions(): Promise<number> {
  return (await t.service.store.listSubmissions({ limit: 1000 })).length;
}

void describe('SOAP faults: the key', () => {
  void it('no Autenticazione header: Client fault, no detail, nothing stored', async () => {
    const before = await submissions();
    const a = await post(t.url, inviaOrdine(ns, undefined, 'C001', 'F-1'));
    assert.deepEqual(faultOf(a), { faultcode: 'soap:Client', faultstring: 'Missing ord:ApiKey in the ord:Autenticazione SOAP header' });
    assert.equal(await submissions(), before);
  });

  void it('an empty ApiKey counts as missing', async () => {
    const a = await post(t.url, inviaOrdine(ns, '  ', 'C001', 'F-2'));
    assert.equal(faultOf(a).faultstring, 'Missing ord:ApiKey in the ord:Autenticazione SOAP header');
  });

  void it('a wrong key: Client fault worded like REST 401, nothing stored', async () => {
    const before = await submissions();
    const wrong = c1.apiKey.slice(0, -1) + (c1.apiKey.endsWith('a') ? 'b' : 'a');
    for (const key of [wrong, 'not-a-key']) {
      const a = await post(t.url, inviaOrdine(ns, key, 'C001', 'F-3'));
      assert.deepEqual(faultOf(a), { faultcode: 'soap:Client', faultstring: 'Invalid API key' });
    }
    const stato = await post(t.url, statoOrdine(ns, wrong, '<ord:riferimento_ordine>F-3</ord:riferimento_ordine>'));
    assert.deepEqual(faultOf(stato), { faultcode: 'soap:Client', faultstring: 'Invalid API key' });
    assert.equal(await submissions(), before);
  });
});

void describe('SOAP faults: the envelope', () => {
  void it('malformed XML: Client fault with the line and column, also in the detail', async () => {
    const xml = `<s:Envelope xmlns:s="${SOAP11}"><s:Body><ord:InviaOrdine xmlns:ord="${ns}"></s:Body></s:Envelope>`;
    const f = faultOf(await post(t.url, xml));
    const at = xml.indexOf('</s:Body>') + 1;
    const opened = xml.indexOf('<ord:InviaOrdine') + 1;
    const message = `body must be well-formed XML (line 1, column ${at}: Expected closing tag 'ord:InviaOrdine' (opened in line 1, col ${opened}) instead of closing tag 's:Body')`;
    assert.deepEqual(f, { faultcode: 'soap:Client', faultstring: message, detail: [message] });
  });

  void it('not XML at all, and an empty body', async () => {
    const json = faultOf(await post(t.url, '{"codice_cliente": "C001"}'));
    assert.equal(json.faultcode, 'soap:Client');
    assert.match(json.faultstring, /^body must be well-formed XML \(line 1, column 1: char '\{' is not expected\)$/);
    const empty = faultOf(await post(t.url, ''));
    assert.deepEqual(empty, {
      faultcode: 'soap:Client',
      faultstring: 'the request body is empty: send a SOAP 1.1 envelope',
      detail: ['the request body is empty: send a SOAP 1.1 envelope'],
    });
  });

  void it('a DOCTYPE is refused before parsing (no entity is ever expanded)', async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>`
      + inviaOrdine(ns, c1.apiKey, 'C001', '&lol2;').replace(/^<\?xml[^>]*>\n/, '');
    const f = faultOf(await post(t.url, bomb));
    const message = 'XML documents with a DOCTYPE are not accepted';
    assert.deepEqual(f, { faultcode: 'soap:Client', faultstring: message, detail: [message] });
    const entity = faultOf(await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'F-4').replace('<soapenv:Body>', '<!ENTITY x "y"><soapenv:Body>')));
    assert.equal(entity.faultstring, 'XML documents with ENTITY declarations are not accepted');
  });

  void it('a SOAP 1.2 envelope: VersionMismatch', async () => {
    const xml = `<env:Envelope xmlns:env="${SOAP12}"><env:Body><ord:InviaOrdine xmlns:ord="${ns}">${orderFields('C001', 'F-5')}</ord:InviaOrdine></env:Body></env:Envelope>`;
    const a = await post(t.url, xml, { 'content-type': 'application/soap+xml; charset=utf-8' });
    assert.deepEqual(faultOf(a), {
      faultcode: 'soap:VersionMismatch',
      faultstring: `SOAP 1.2 is not supported: send a SOAP 1.1 envelope (namespace ${SOAP11})`,
    });
  });

  void it('a header block marked mustUnderstand that the service does not process: MustUnderstand, nothing stored', async () => {
    const security = (attrs: string) => `<wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" ${attrs}><wsse:UsernameToken/></wsse:Security>`;
    const withHeader = (block: string, ref: string) => `<soapenv:Envelope xmlns:soapenv="${SOAP11}" xmlns:ord="${ns}"><soapenv:Header>${block}<ord:Autenticazione soapenv:mustUnderstand="1"><ord:ApiKey>${c1.apiKey}</ord:ApiKey></ord:Autenticazione></soapenv:Header><soapenv:Body><ord:InviaOrdine>${orderFields('C001', ref)}</ord:InviaOrdine></soapenv:Body></soapenv:Envelope>`;
    const before = (await t.service.store.listSubmissions({ limit: 1000 })).length;
    for (const must of ['1', 'true']) {
      const f = faultOf(await post(t.url, withHeader(security(`soapenv:mustUnderstand="${must}"`), `MU-${must}`)));
      assert.equal(f.faultcode, 'soap:MustUnderstand');
      assert.match(f.faultstring, /<Security> is marked mustUnderstand/);
    }
    assert.equal((await t.service.store.listSubmissions({ limit: 1000 })).length, before, 'a refused request stores nothing');
    // Not for us (another actor), or optional: processed normally; our own header may be marked mustUnderstand.
    for (const [attrs, ref] of [['soapenv:actor="urn:some-proxy" soapenv:mustUnderstand="1"', 'MU-actor'], ['soapenv:mustUnderstand="0"', 'MU-0'], ['', 'MU-none']] as const) {
      const ok = await post(t.url, withHeader(security(attrs), ref));
      assert.equal(ok.status, 200, ok.text);
      assert.equal((ok.body.InviaOrdineResponse as { esito?: string } | undefined)?.esito, 'ok', ok.text);
    }
  });

  void it('an Envelope in no namespace or another one: VersionMismatch', async () => {
    for (const open of ['<Envelope>', '<s:Envelope xmlns:s="urn:other">']) {
      const close = open.startsWith('<s:') ? '</s:Envelope>' : '</Envelope>';
      const a = await post(t.url, `${open}<Body/>${close}`);
      assert.deepEqual(faultOf(a), { faultcode: 'soap:VersionMismatch', faultstring: `the Envelope must be in the SOAP 1.1 namespace ${SOAP11}` });
    }
  });

  void it('a plain XML order instead of an envelope', async () => {
    const f = faultOf(await post(t.url, `<ordine>${orderFields('C001', 'F-6', { p: '' })}</ordine>`));
    assert.equal(f.faultcode, 'soap:Client');
    assert.equal(f.faultstring, 'the root element must be soap:Envelope, not <ordine>');
  });

  void it('a Body without an operation, or with two', async () => {
    const message = 'soap:Body must hold exactly one operation element: InviaOrdine, ModificaOrdine, AnnullaOrdine or StatoOrdine';
    const none = faultOf(await post(t.url, envelope(ns, c1.apiKey, '')));
    assert.deepEqual(none, { faultcode: 'soap:Client', faultstring: message, detail: [message] });
    const two = faultOf(await post(t.url, envelope(ns, c1.apiKey, '<ord:StatoOrdine/><ord:StatoOrdine/>')));
    assert.equal(two.faultstring, message);
  });

  void it('an unknown operation: Client fault naming the operations there are', async () => {
    const a = await post(t.url, envelope(ns, c1.apiKey, '<ord:CancellaOrdine><ord:id_ordine>x</ord:id_ordine></ord:CancellaOrdine>'), { soapaction: `"${ns}#CancellaOrdine"` });
    assert.deepEqual(faultOf(a), {
      faultcode: 'soap:Client',
      faultstring: 'Unknown operation "CancellaOrdine": this service offers InviaOrdine, ModificaOrdine, AnnullaOrdine and StatoOrdine',
    });
  });

  void it('the operation is the Body element, whatever SOAPAction says', async () => {
    const a = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>nessuno</ord:riferimento_ordine>'), { soapaction: `"${ns}#InviaOrdine"` });
    assert.deepEqual(faultOf(a), { faultcode: 'soap:Client', faultstring: 'No order with riferimento_ordine "nessuno"' });
  });

  void it('element names that would reach a prototype are refused and pollute nothing', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const body = `<ord:InviaOrdine>${orderFields('C001', 'F-7')}<ord:${name}><polluted>yes</polluted></ord:${name}></ord:InviaOrdine>`;
      const f = faultOf(await post(t.url, envelope(ns, c1.apiKey, body)));
      assert.deepEqual(f, { faultcode: 'soap:Client', faultstring: `XML element name "${name}" is not allowed`, detail: [`XML element name "${name}" is not allowed`] });
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted'), false);
  });

  void it('nesting deeper than the bound is refused, not walked', async () => {
    const deep = '<x>'.repeat(5000) + '</x>'.repeat(5000);
    const f = faultOf(await post(t.url, envelope(ns, c1.apiKey, `<ord:StatoOrdine>${deep}</ord:StatoOrdine>`)));
    assert.equal(f.faultstring, 'XML must not nest elements more than 32 levels deep');
  });

  void it('an empty Content-Type header: Client fault saying what to send (no Content-Type at all is fine)', async () => {
    const a = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>x</ord:riferimento_ordine>'), { 'content-type': '' });
    assert.deepEqual(faultOf(a), { faultcode: 'soap:Client', faultstring: 'Send the SOAP envelope with Content-Type: text/xml; charset=utf-8' });
    const { stdout } = await run('curl', ['-sS', '-X', 'POST', `${t.url}/ws/ordini`, '-H', 'Content-Type:', '--data-binary', statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>x</ord:riferimento_ordine>')]);
    assert.match(stdout, /<faultstring>No order with riferimento_ordine &quot;x&quot;<\/faultstring>/);
  });

  void it('GET /ws/ordini without ?wsdl says where the WSDL is', async () => {
    const res = await fetch(`${t.url}/ws/ordini`);
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { statusCode: 404, message: 'Cannot GET /ws/ordini: the WSDL is at /ws/ordini?wsdl', error: 'Not Found', code: 'ROUTE_NOT_FOUND' });
  });
});

void describe('SOAP faults: size and internal failures', () => {
  void it('a body over the limit is a Client fault, before anything is parsed or stored', async () => {
    const c = await small.customer('C001');
    const lines = Array.from({ length: 40 }, () => ({ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }));
    const a = await post(small.url, inviaOrdine(`${small.url}/ws/ordini`, c.apiKey, 'C001', 'BIG', { lines }));
    assert.deepEqual(faultOf(a), { faultcode: 'soap:Client', faultstring: 'Request body is larger than the limit of 2048 bytes' });
    assert.equal((await small.service.store.listSubmissions({ limit: 10 })).length, 0);
  });

  void it('the database gone: a Server fault with no internal detail', async () => {
    const c = await small.customer('C003');
    await small.service.store.close();
    const a = await post(small.url, inviaOrdine(`${small.url}/ws/ordini`, c.apiKey, 'C003', 'S-1'));
    assert.deepEqual(faultOf(a), { faultcode: 'soap:Server', faultstring: 'Internal error' });
    assert.doesNotMatch(a.text, /database|sqlite|Error:/i);
  });
});
