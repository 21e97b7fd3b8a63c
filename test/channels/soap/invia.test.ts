import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import iconv from 'iconv-lite';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { DEFAULT_LINES, SOAP11, envelope, faultOf, inviaOrdine, orderFields, post, statoOrdine } from './helpers.ts';

let t: TestService;
let c1: TestCustomer;
let c2: TestCustomer;
let ns: string;

const ACCEPTED = 'Ordine ricevuto ed elaborato correttamente';
const DUPLICATE = 'Ordine già registrato con lo stesso contenuto: nessuna nuova registrazione';

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
  c2 = await t.customer('C002');
  ns = `${t.url}/ws/ordini`;
});
after(() => t.close());

function accepted(body: Record<string, unknown>) {
  const r = body.InviaOrdineResponse as Record<string, string>;
  assert.ok(r, `an InviaOrdineResponse, not ${JSON.stringify(body)}`);
  assert.equal(r.esito, 'ok');
  assert.match(r.id_ordine!, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(r.numero_ordine!, /^\d{4}-\d{6}$/);
  return r;
}

void describe('SOAP InviaOrdine: envelopes as ERPs write them', () => {
  void it('prefixes declared on the envelope: the response has esito, id_ordine, numero_ordine, messaggio', async () => {
    const a = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'S-1'), { soapaction: `"${ns}#InviaOrdine"` });
    assert.equal(a.status, 200, a.text);
    assert.equal(a.contentType, 'text/xml; charset=utf-8');
    const r = accepted(a.body);
    assert.deepEqual(Object.keys(r), ['esito', 'id_ordine', 'numero_ordine', 'messaggio']);
    assert.equal(r.messaggio, ACCEPTED);
    assert.match(a.text, new RegExp(`<ord:InviaOrdineResponse xmlns:ord="${ns}">`));
    assert.match(a.text, new RegExp(`^<\\?xml version="1.0" encoding="UTF-8"\\?>\\n<soap:Envelope xmlns:soap="${SOAP11}">`));
  });

  void it('no prefixes: default namespaces declared on the elements; SOAPAction absent', async () => {
    const xml = `<Envelope xmlns="${SOAP11}"><Header><Autenticazione xmlns="${ns}"><ApiKey>${c1.apiKey}</ApiKey></Autenticazione></Header>`
      + `<Body><InviaOrdine xmlns="${ns}">${orderFields('C001', 'S-2', { p: '' })}</InviaOrdine></Body></Envelope>`;
    const a = await post(t.url, xml);
    assert.equal(a.status, 200, a.text);
    accepted(a.body);
  });

  void it('namespace declared on the operation element and its children unqualified; SOAPAction "InviaOrdine"', async () => {
    const xml = `<s:Envelope xmlns:s="${SOAP11}"><s:Header><o:Autenticazione xmlns:o="${ns}"><ApiKey>${c1.apiKey}</ApiKey></o:Autenticazione></s:Header>`
      + `<s:Body><o:InviaOrdine xmlns:o="${ns}">${orderFields('C001', 'S-3', { p: '' })}</o:InviaOrdine></s:Body></s:Envelope>`;
    const a = await post(t.url, xml, { soapaction: '"InviaOrdine"' });
    assert.equal(a.status, 200, a.text);
    accepted(a.body);
  });

  void it('an empty SOAPAction and another namespace URI (a client built against another host name) still work', async () => {
    const a = await post(t.url, inviaOrdine('http://erp.example/ws/ordini', c1.apiKey, 'C001', 'S-4', { consegna: null }), { soapaction: '""' });
    assert.equal(a.status, 200, a.text);
    accepted(a.body);
  });

  void it('the stored submission is the envelope exactly as received, channel soap, operation in meta', async () => {
    const xml = inviaOrdine(ns, c1.apiKey, 'C001', 'S-5');
    const r = accepted((await post(t.url, xml)).body);
    const customer = await t.service.store.getCustomerByCode('C001');
    const stored = await t.service.store.getOrder(customer!.id, r.id_ordine!);
    assert.equal(stored!.channel, 'soap');
    const sub = await t.service.store.getSubmission(stored!.submissionId);
    assert.equal(sub!.raw.toString('utf8'), xml);
    assert.equal(sub!.channel, 'soap');
    assert.equal(sub!.mediaType, 'text/xml');
    assert.equal(sub!.singleOrder, true);
    assert.equal(sub!.fileName, undefined);
    assert.equal(sub!.meta.operation, 'InviaOrdine');
    assert.ok(sub!.meta.remote);
  });

  void it('entities in values are decoded once; the response escapes them again', async () => {
    const a = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'R&amp;D &lt;1&gt;'));
    const r = accepted(a.body);
    const s = await post(t.url, statoOrdine(ns, c1.apiKey, `<ord:id_ordine>${r.id_ordine}</ord:id_ordine>`));
    assert.match(s.text, /<ord:riferimento_ordine>R&amp;D &lt;1&gt;<\/ord:riferimento_ordine>/);
    assert.equal((s.body.StatoOrdineResponse as Record<string, string>).riferimento_ordine, 'R&D <1>');
    const byRef = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>R&amp;D &lt;1&gt;</ord:riferimento_ordine>'));
    assert.equal((byRef.body.StatoOrdineResponse as Record<string, string>).id_ordine, r.id_ordine);
  });

  void it('an envelope in ISO-8859-1, as declared in its XML declaration, keeps its accented letters', async () => {
    const xml = inviaOrdine(ns, c1.apiKey, 'C001', 'CONSEGNA-PERCHÉ').replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
    const a = await post(t.url, iconv.encode(xml, 'latin1'), { 'content-type': 'text/xml' });
    const r = accepted(a.body);
    const s = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>CONSEGNA-PERCHÉ</ord:riferimento_ordine>'));
    assert.equal((s.body.StatoOrdineResponse as Record<string, string>).id_ordine, r.id_ordine);
  });
});

void describe('SOAP InviaOrdine: one order identity across channels', () => {
  void it('the same order again: duplicato true, the same id and number, nothing registered twice', async () => {
    const xml = inviaOrdine(ns, c1.apiKey, 'C001', 'D-1');
    const first = accepted((await post(t.url, xml)).body);
    const again = await post(t.url, xml);
    assert.equal(again.status, 200, again.text);
    const r = accepted(again.body);
    assert.deepEqual(r, { esito: 'ok', id_ordine: first.id_ordine, numero_ordine: first.numero_ordine, messaggio: DUPLICATE, duplicato: 'true' });
  });

  void it('an order first sent by REST, then by SOAP: the existing numbers, marked duplicato', async () => {
    const rest = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', body: JSON.stringify(order('C001', 'X-1')), headers: { 'content-type': 'application/json', 'x-api-key': c1.apiKey },
    });
    assert.equal(rest.status, 201);
    const fromRest = (await rest.json()) as { id_ordine: string; numero_ordine: string };
    const r = accepted((await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'X-1'))).body);
    assert.equal(r.id_ordine, fromRest.id_ordine);
    assert.equal(r.numero_ordine, fromRest.numero_ordine);
    assert.equal(r.duplicato, 'true');
  });

  void it('the same reference with different content: esito errore with the conflict, no id', async () => {
    const first = accepted((await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'D-2'))).body);
    const other = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'D-2', { lines: [{ ...DEFAULT_LINES[0]!, quantita: 999 }] }));
    assert.equal(other.status, 200, other.text);
    assert.deepEqual(other.body.InviaOrdineResponse, {
      esito: 'errore',
      errori: { errore: [{ campo: 'riferimento_ordine', messaggio: `L'ordine "D-2" è già stato registrato (numero ${first.numero_ordine}) con un contenuto diverso: per cambiarlo, inviarlo con azione "modifica"; per un nuovo ordine, usare un altro riferimento` }] },
    });
  });
});

void describe('SOAP InviaOrdine: errors', () => {
  void it('stage B: unknown article and unit are errori with the line path, in Italian', async () => {
    const a = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'E-1', {
      lines: [DEFAULT_LINES[0]!, { codice_articolo: 'XYZ-404', quantita: 2, unita_misura: 'BOH' }],
    }));
    assert.equal(a.status, 200, a.text);
    assert.deepEqual(a.body.InviaOrdineResponse, {
      esito: 'errore',
      errori: {
        errore: [
          { campo: 'righe[1].codice_articolo', messaggio: 'Articolo sconosciuto: "XYZ-404"' },
          { campo: 'righe[1].unita_misura', messaggio: 'Unità di misura sconosciuta: "BOH"' },
        ],
      },
    });
  });

  void it('stage A: an empty righe is a Client fault whose detail lists the messages REST gives', async () => {
    const a = await post(t.url, envelope(ns, c1.apiKey,
      '<ord:InviaOrdine><ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>E-2</ord:riferimento_ordine>'
      + '<ord:data_ordine>2026-11-20</ord:data_ordine><ord:righe/></ord:InviaOrdine>'));
    assert.deepEqual(faultOf(a), {
      faultcode: 'soap:Client',
      faultstring: 'righe must contain at least 1 elements',
      detail: ['righe must contain at least 1 elements'],
    });
    assert.match(a.text, new RegExp(`<detail><ord:erroriValidazione xmlns:ord="${ns}"><ord:messaggio>righe must contain at least 1 elements</ord:messaggio></ord:erroriValidazione></detail>`));
  });

  void it('stage A: several problems at once, each a messaggio of the detail', async () => {
    const a = await post(t.url, envelope(ns, c1.apiKey,
      '<ord:InviaOrdine><ord:riferimento_ordine>E-3</ord:riferimento_ordine><ord:data_ordine>2026-02-30</ord:data_ordine>'
      + '<ord:righe><ord:riga><ord:codice_articolo>BV-STD</ord:codice_articolo><ord:quantita>tanti</ord:quantita><ord:unita_misura>PZ</ord:unita_misura></ord:riga></ord:righe></ord:InviaOrdine>'));
    const messages = [
      'codice_cliente should not be empty',
      'codice_cliente must be a string',
      'data_ordine must be a valid ISO 8601 date string (YYYY-MM-DD)',
      'righe.0.quantita must be a number conforming to the specified constraints',
    ];
    assert.deepEqual(faultOf(a), { faultcode: 'soap:Client', faultstring: messages.join('; '), detail: messages });
  });

  void it("another customer's codice_cliente: Client fault as REST's 403, nothing registered", async () => {
    const a = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C002', 'E-4'));
    assert.deepEqual(faultOf(a), {
      faultcode: 'soap:Client',
      faultstring: 'codice_cliente "C002" does not belong to the authenticated customer',
    });
    const seen = await post(t.url, statoOrdine(ns, c2.apiKey, '<ord:riferimento_ordine>E-4</ord:riferimento_ordine>'));
    assert.deepEqual(faultOf(seen), { faultcode: 'soap:Client', faultstring: 'No order with riferimento_ordine "E-4"' });
  });

  void it('customer-controlled text inside error messages is escaped', async () => {
    const a = await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'E-5', {
      lines: [{ codice_articolo: '&lt;/ord:messaggio&gt;&lt;x&gt;&amp;', quantita: 1, unita_misura: 'PZ' }],
    }));
    assert.match(a.text, /<ord:messaggio>Articolo sconosciuto: &quot;&lt;\/ord:messaggio&gt;&lt;x&gt;&amp;&quot;<\/ord:messaggio>/);
    const r = a.body.InviaOrdineResponse as { errori: { errore: { messaggio: string }[] } };
    assert.equal(r.errori.errore.length, 1);
  });
});
