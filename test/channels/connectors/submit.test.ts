// Orders through the connector path, end to end (real server, real HTTP client, real store): JDF, XJDF, JMF and
// XJMF in multipart/related packages, JMF queries, ERP JSON and XML with mappings, the spec's own JSON; the site
// every order gets; and the refusals (another customer, a site the key lacks, malformed and hostile tickets).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { importLookup } from '../../../src/connectors/lookup-csv.ts';
import { order } from '../../helpers/service.ts';
import { call, startConnectorService, xmlAttr, type ConnectorService } from './helpers.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/connectors/infra');
const fixture = (name: string): string => readFileSync(path.join(FIXTURES, name), 'utf8');

const JDF = 'application/vnd.cip4-jdf+xml';
const XJDF = 'application/vnd.cip4-xjdf+xml';
const JMF = 'application/vnd.cip4-jmf+xml';
const XJMF = 'application/vnd.cip4-xjmf+xml';

/** A multipart/related package as a JMF client builds it: the message first (the root), then the ticket. */
function related(rootType: string, root: string, ticket: { cid: string; type: string; body: string }): { body: Buffer; contentType: string } {
  const boundary = 'MIME_boundary_0815';
  const body = [
    `--${boundary}`, `Content-Type: ${rootType}; charset=UTF-8`, 'Content-ID: <root.message@client.example>', '', root,
    `--${boundary}`, `Content-Type: ${ticket.type}; charset=UTF-8`, `Content-ID: <${ticket.cid}>`, 'Content-Transfer-Encoding: 8bit', '', ticket.body,
    `--${boundary}--`, '',
  ].join('\r\n');
  return { body: Buffer.from(body), contentType: `multipart/related; type="${rootType}"; boundary="${boundary}"; start="<root.message@client.example>"` };
}

let t: ConnectorService;
let switchVr: { id: string; key: string };
let prinectMi: { id: string; key: string };
let erpJson: { id: string; key: string };
let erpXml: { id: string; key: string };
let plainJson: { id: string; key: string };
let otherCustomer: { id: string; key: string };

const ORDERS = '/api/v1/connettori/ordini';
const post = (key: string, body: string | Buffer, contentType: string, url = `${t.url}${ORDERS}`) => call(url, { key, body, contentType });

async function stored(): Promise<number> {
  return (await t.store.listSubmissions({ limit: 1000 })).length;
}

async function registered(code: string, ref: string) {
  const c = await t.store.getCustomerByCode(code);
  return t.store.getOrderByRef(c!.id, ref);
}

before(async () => {
  t = await startConnectorService();
  await t.customer('C001');
  await t.customer('C002');
  for (const s of ['VR', 'MI', 'TO']) await t.site(s);
  switchVr = await t.connector({ customer: 'C001', sites: 'VR,MI', format: 'jdf', name: 'Switch Verona' });
  prinectMi = await t.connector({ customer: 'C001', sites: 'MI', format: 'xjdf', name: 'Prinect Milano' });
  erpJson = await t.connector({ customer: 'C001', sites: 'MI,VR', format: 'json', mapping: fixture('erp-json.jsonata') });
  erpXml = await t.connector({ customer: 'C001', sites: 'TO', format: 'xml', mapping: fixture('erp-xml.jsonata') });
  plainJson = await t.connector({ customer: 'C001', sites: 'VR,MI', format: 'json' });
  otherCustomer = await t.connector({ customer: 'C002', sites: 'VR', format: 'jdf' });
  for (const c of [switchVr, prinectMi, otherCustomer]) await importLookup(t.store, c.id, path.join(FIXTURES, 'lookup.csv'));
});
after(() => t.close());

void describe('connector: the spec\'s own JSON order', () => {
  void it('201 with sito_produzione from the path and a Location; registered with its site; status shows it', async () => {
    const r = await post(plainJson.key, JSON.stringify(order('C001', 'CJ-1')), 'application/json', `${t.url}/api/v1/connettori/vr/ordini`);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.esito, 'ok');
    assert.equal(r.json.sito_produzione, 'VR');
    assert.match(String(r.json.numero_ordine), /^\d{4}-\d{6}$/);
    assert.equal(r.headers.location, `/api/v1/connettori/ordini/${String(r.json.id_ordine)}`);
    const o = await registered('C001', 'CJ-1');
    assert.equal(o?.sito_produzione, 'VR');
    assert.equal(o?.channel, 'connector');
    assert.equal(o?.numero_ordine, r.json.numero_ordine);
    const byId = await call(`${t.url}${String(r.headers.location)}`, { key: plainJson.key });
    assert.equal(byId.status, 200);
    assert.equal(byId.json.stato, 'registrato');
    assert.equal(byId.json.sito_produzione, 'VR');
    assert.equal(byId.json.canale, 'connector');
    const byRef = await call(`${t.url}${ORDERS}?riferimento_ordine=CJ-1`, { key: plainJson.key });
    assert.equal(byRef.json.numero_ordine, r.json.numero_ordine);
    const rest = await call(`${t.url}/api/v1/ordini?riferimento_ordine=CJ-1`, { headers: { 'x-api-key': t.apiKeys.get('C001')! } });
    assert.equal(rest.json.sito_produzione, 'VR', 'the REST status shows the site too');
    const again = await post(plainJson.key, JSON.stringify(order('C001', 'CJ-1')), 'application/json', `${t.url}/api/v1/connettori/VR/ordini`);
    assert.equal(again.status, 200);
    assert.equal(again.json.duplicato, true);
    assert.equal(again.json.numero_ordine, r.json.numero_ordine);
  });

  void it('takes the site named in the payload, and keeps the submission with the whole content type', async () => {
    const r = await post(plainJson.key, JSON.stringify({ ...order('C001', 'CJ-2'), sito_produzione: 'MI' }), 'application/json; charset=utf-8');
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.sito_produzione, 'MI');
    assert.equal((await registered('C001', 'CJ-2'))?.sito_produzione, 'MI');
    const s = (await t.store.listSubmissions({ limit: 1 }))[0]!;
    assert.equal(s.channel, 'connector');
    assert.equal(s.connectorId, plainJson.id);
    assert.equal(s.mediaType, 'application/json');
    assert.equal(s.meta.contentType, 'application/json; charset=utf-8');
    assert.equal(s.meta.remote, '127.0.0.1');
  });

  void it('400 SITE_REQUIRED when the key has several sites and nothing names one; nothing registered', async () => {
    const r = await post(plainJson.key, JSON.stringify(order('C001', 'CJ-3')), 'application/json');
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(r.json.message), /production site is not known/);
    assert.equal(await registered('C001', 'CJ-3'), undefined);
  });

  void it('403 for a payload naming a site the key does not have, or another site than the path', async () => {
    const other = await post(plainJson.key, JSON.stringify({ ...order('C001', 'CJ-4'), sito_produzione: 'TO' }), 'application/json');
    assert.equal(other.status, 403);
    assert.match(String(other.json.message), /"TO".*not bound/);
    const mismatch = await post(plainJson.key, JSON.stringify({ ...order('C001', 'CJ-4'), sito_produzione: 'MI' }), 'application/json', `${t.url}/api/v1/connettori/VR/ordini`);
    assert.equal(mismatch.status, 403);
    assert.equal(mismatch.json.sito_produzione, 'VR');
    assert.equal(await registered('C001', 'CJ-4'), undefined);
  });
});

void describe('connector: JDF and XJDF tickets', () => {
  void it('registers a JDF product intent: customer, reference, dates, one line per final product via the lookup, site VR', async () => {
    const r = await post(switchVr.key, fixture('order.jdf'), JDF);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.sito_produzione, 'VR');
    const o = await registered('C001', 'PO-JDF-1');
    assert.equal(o?.id_ordine, r.json.id_ordine);
    assert.equal(o?.sito_produzione, 'VR');
    assert.equal(o?.data_ordine, '2026-11-20');
    assert.equal(o?.data_consegna, '2026-12-01');
    assert.deepEqual(o?.righe, [
      { codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' },
      { codice_articolo: 'VOL-A4', quantita: 1000, unita_misura: 'PZ' },
    ]);
  });

  void it('registers an XJDF ticket from Prinect for site MI', async () => {
    const r = await post(prinectMi.key, fixture('order.xjdf'), XJDF);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.sito_produzione, 'MI');
    const o = await registered('C001', 'PO-XJDF-1');
    assert.deepEqual(o?.righe, [{ codice_articolo: 'BRO-A5', quantita: 250, unita_misura: 'PZ' }]);
    assert.equal(o?.data_consegna, '2026-12-05');
  });

  void it('400 shape B for a product the lookup does not know, naming the raw key', async () => {
    const jdf = fixture('order.jdf').replace('PO-JDF-1', 'PO-JDF-2').replace('DescriptiveName="Volantini A4"', 'DescriptiveName="Manifesti 70x100"');
    const r = await post(switchVr.key, jdf, JDF);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.json.esito, 'errore');
    assert.match(JSON.stringify(r.json.errori), /righe\[1\]\.codice_articolo.*Nessun articolo per il prodotto con chiave \\"flyer\\".*tabella di conversione/);
    assert.equal(r.json.sito_produzione, 'VR');
  });

  void it("403 for a key of another customer sending C001's ticket; nothing registered for either", async () => {
    const jdf = fixture('order.jdf').replace('PO-JDF-1', 'PO-JDF-OTHER');
    const r = await post(otherCustomer.key, jdf, JDF);
    assert.equal(r.status, 403, r.text);
    assert.match(String(r.json.message), /does not belong to the authenticated customer/);
    assert.equal(await registered('C001', 'PO-JDF-OTHER'), undefined);
    assert.equal(await registered('C002', 'PO-JDF-OTHER'), undefined);
  });

  void it('403 FORBIDDEN_SITE for a ticket naming a site the key is not bound to', async () => {
    const jdf = fixture('order.jdf').replace('PO-JDF-1', 'PO-JDF-TO').replace('IDValue="VR"', 'IDValue="TO"');
    const r = await post(switchVr.key, jdf, JDF);
    assert.equal(r.status, 403, r.text);
    assert.match(String(r.json.message), /production site "TO"/);
    assert.equal(await registered('C001', 'PO-JDF-TO'), undefined);
    const xjdf = await post(prinectMi.key, fixture('order.xjdf'), XJDF, `${t.url}/api/v1/connettori/VR/ordini`);
    assert.equal(xjdf.status, 403, 'a path site the key lacks is refused before the body is read');
  });

  void it('400 for a malformed ticket and for hostile XML, which is never expanded; the raw bytes are kept', async () => {
    const before = await stored();
    const broken = await post(switchVr.key, fixture('order.jdf').slice(0, 400), JDF);
    assert.equal(broken.status, 400, broken.text);
    assert.equal(broken.json.error, 'Bad Request');
    const lol = '<?xml version="1.0"?><!DOCTYPE JDF [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
      + '<JDF xmlns="http://www.CIP4.org/JDFSchema_1_1" Type="Product" JobID="&c;"/>';
    const hostile = await post(switchVr.key, lol, JDF);
    assert.equal(hostile.status, 400, hostile.text);
    assert.doesNotMatch(hostile.text, /aaaaaaaaaa/);
    const xxe = await post(switchVr.key, '<?xml version="1.0"?><!DOCTYPE JDF [<!ENTITY x SYSTEM "file:///etc/passwd">]><JDF JobID="&x;"/>', JDF);
    assert.equal(xxe.status, 400);
    assert.doesNotMatch(xxe.text, /root:/);
    assert.equal(await stored(), before + 3, 'refused payloads are kept with their outcome');
  });

  void it('415 for a JSON body sent to a JDF connector', async () => {
    const r = await post(switchVr.key, JSON.stringify(order('C001', 'X-415')), 'application/json');
    assert.equal(r.status, 415, r.text);
  });
});

void describe('connector: JMF and XJMF, as a device answers', () => {
  void it('JMF SubmitQueueEntry in multipart/related: 200, ReturnCode 0, QueueEntryID = id_ordine', async () => {
    const jdf = fixture('order.jdf').replace('PO-JDF-1', 'PO-JMF-1');
    const pkg = related(JMF, fixture('submit.jmf'), { cid: 'ticket.jdf@switch.example', type: JDF, body: jdf });
    const r = await post(switchVr.key, pkg.body, pkg.contentType);
    assert.equal(r.status, 200, r.text);
    assert.match(r.contentType, /application\/vnd\.cip4-jmf\+xml/);
    assert.match(r.text, /<Response\b/);
    assert.equal(xmlAttr(r.text, 'ReturnCode'), '0', r.text);
    assert.equal(xmlAttr(r.text, 'refID'), 'C_0815');
    const o = await registered('C001', 'PO-JMF-1');
    assert.equal(xmlAttr(r.text, 'QueueEntryID'), o?.id_ordine);
    assert.equal(o?.sito_produzione, 'VR');
    assert.equal(o?.channel, 'connector');
    const s = (await t.store.listSubmissions({ limit: 1 }))[0]!;
    assert.equal(s.meta.contentType, pkg.contentType, 'the whole Content-Type (boundary included) is kept for reprocessing');
    const again = await post(switchVr.key, pkg.body, pkg.contentType);
    assert.equal(xmlAttr(again.text, 'ReturnCode'), '0', 'the same job sent again is a duplicate, still a success');
    assert.equal(xmlAttr(again.text, 'QueueEntryID'), o?.id_ordine);
  });

  void it('XJMF CommandSubmitQueueEntry in multipart/related: 200, ResponseSubmitQueueEntry, ReturnCode 0', async () => {
    const xjdf = fixture('order.xjdf').replace('PO-XJDF-1', 'PO-XJMF-1');
    const pkg = related(XJMF, fixture('submit.xjmf'), { cid: 'job.xjdf@prinect.example', type: XJDF, body: xjdf });
    const r = await post(prinectMi.key, pkg.body, pkg.contentType);
    assert.equal(r.status, 200, r.text);
    assert.match(r.contentType, /application\/vnd\.cip4-xjmf\+xml/);
    assert.match(r.text, /<ResponseSubmitQueueEntry\b/);
    assert.equal(xmlAttr(r.text, 'ReturnCode'), '0', r.text);
    const o = await registered('C001', 'PO-XJMF-1');
    assert.equal(xmlAttr(r.text, 'QueueEntryID'), o?.id_ordine);
    assert.equal(o?.sito_produzione, 'MI');
  });

  void it('a refused job: 200 with a non-zero ReturnCode and the reason in the notification', async () => {
    const jdf = fixture('order.jdf').replace('PO-JDF-1', 'PO-JMF-BAD').replace('CustomerID="C001"', 'CustomerID="C002"');
    const pkg = related(JMF, fixture('submit.jmf'), { cid: 'ticket.jdf@switch.example', type: JDF, body: jdf });
    const r = await post(switchVr.key, pkg.body, pkg.contentType);
    assert.equal(r.status, 200);
    assert.notEqual(xmlAttr(r.text, 'ReturnCode'), '0');
    assert.match(r.text, /C002/);
    assert.equal(await registered('C002', 'PO-JMF-BAD'), undefined);
  });

  void it('a JMF whose ticket is only a URL is refused (tickets are never fetched), and the message is kept', async () => {
    const before = await stored();
    const jmf = fixture('submit.jmf').replace('cid:ticket.jdf@switch.example', 'http://169.254.169.254/latest/meta-data/');
    const r = await post(switchVr.key, jmf, JMF);
    assert.equal(r.status, 200);
    assert.notEqual(xmlAttr(r.text, 'ReturnCode'), '0');
    assert.match(r.text, /not fetched/);
    assert.equal(await stored(), before + 1);
  });

  void it('an unreadable JMF or XJMF gets the XML parser error ReturnCode, in its own dialect', async () => {
    const r = await post(switchVr.key, '<JMF xmlns="http://www.CIP4.org/JDFSchema_1_1"><Command', JMF);
    assert.equal(r.status, 200);
    assert.match(r.contentType, /cip4-jmf\+xml/);
    assert.equal(xmlAttr(r.text, 'ReturnCode'), '3', r.text);
    const x = await post(prinectMi.key, '<XJMF xmlns="http://www.CIP4.org/JDFSchema_2_0"><Header', XJMF);
    assert.equal(x.status, 200);
    assert.match(x.contentType, /cip4-xjmf\+xml/);
    assert.equal(xmlAttr(x.text, 'ReturnCode'), '3', x.text);
  });

  void it('a broken package (no boundary, or no ticket part) is refused with a JMF ReturnCode, not a crash', async () => {
    const noBoundary = await post(switchVr.key, fixture('submit.jmf'), `multipart/related; type="${JMF}"`);
    assert.equal(noBoundary.status, 200);
    assert.notEqual(xmlAttr(noBoundary.text, 'ReturnCode'), '0', noBoundary.text);
    const pkg = related(JMF, fixture('submit.jmf'), { cid: 'other@switch.example', type: JDF, body: fixture('order.jdf') });
    const missing = await post(switchVr.key, pkg.body, pkg.contentType);
    assert.equal(missing.status, 200);
    assert.notEqual(xmlAttr(missing.text, 'ReturnCode'), '0');
    assert.match(missing.text, /Content-ID/);
  });

  void it('a JMF query sent as plain text/xml is still recognised and answered as JMF', async () => {
    const r = await post(switchVr.key, fixture('known-messages.jmf'), 'text/xml; charset=utf-8');
    assert.equal(r.status, 200);
    assert.match(r.contentType, /cip4-jmf\+xml/);
    assert.equal(xmlAttr(r.text, 'ReturnCode'), '0', r.text);
  });

  void it('KnownMessages (JMF) and QueryKnownMessages (XJMF) are answered and nothing is stored', async () => {
    const before = await stored();
    const jmf = await post(switchVr.key, fixture('known-messages.jmf'), JMF);
    assert.equal(jmf.status, 200);
    assert.equal(xmlAttr(jmf.text, 'ReturnCode'), '0', jmf.text);
    assert.match(jmf.text, /SubmitQueueEntry/);
    const xjmf = await post(prinectMi.key, fixture('query-known-messages.xjmf'), XJMF);
    assert.equal(xjmf.status, 200);
    assert.equal(xmlAttr(xjmf.text, 'ReturnCode'), '0', xjmf.text);
    const status = await post(switchVr.key, fixture('known-messages.jmf').replace('KnownMessages', 'QueueStatus'), JMF);
    assert.equal(status.status, 200);
    assert.equal(xmlAttr(status.text, 'ReturnCode'), '5', 'not implemented');
    assert.equal(await stored(), before);
  });
});

void describe('connector: ERP exports with a mapping', () => {
  void it('a JSON export with two orders: 200 with one entry per order, both registered for the site it names', async () => {
    const r = await post(erpJson.key, fixture('erp-export.json'), 'application/json');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.esito, 'ok');
    assert.equal(r.json.sito_produzione, 'MI');
    const entries = r.json.ordini as Record<string, unknown>[];
    assert.deepEqual(entries.map((e) => [e.indice, e.riferimento_ordine, e.statusCode, e.esito]), [[0, 'ERP-100', 201, 'ok'], [1, 'ERP-101', 201, 'ok']]);
    const o = await registered('C001', 'ERP-101');
    assert.equal(o?.numero_ordine, entries[1]!.numero_ordine);
    assert.equal(o?.sito_produzione, 'MI');
    assert.deepEqual(o?.righe, [{ codice_articolo: 'CAR-A4-80', quantita: 2.5, unita_misura: 'RS' }]);
    assert.deepEqual((await registered('C001', 'ERP-100'))?.righe.map((l) => l.quantita), [250, 1000]);
  });

  void it('a mixed export: esito errore, each order with its own status', async () => {
    const doc = JSON.parse(fixture('erp-export.json')) as { export: { documenti: { numero: string; righe: { codice: string }[] }[] } };
    doc.export.documenti[0]!.numero = 'ERP-200';
    doc.export.documenti[1]!.numero = 'ERP-201';
    doc.export.documenti[1]!.righe[0]!.codice = 'NOPE';
    const r = await post(erpJson.key, JSON.stringify(doc), 'application/json');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.esito, 'errore');
    const [ok, bad] = r.json.ordini as Record<string, unknown>[];
    assert.equal(ok!.statusCode, 201);
    assert.equal(bad!.statusCode, 400);
    assert.deepEqual(bad!.errori, [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "NOPE"' }]);
    assert.ok(await registered('C001', 'ERP-200'));
    assert.equal(await registered('C001', 'ERP-201'), undefined);
  });

  void it('an XML export (namespaced, attributes) through its mapping, on the key\'s only site', async () => {
    const r = await post(erpXml.key, fixture('erp-export.xml'), 'text/xml');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.sito_produzione, 'TO');
    assert.deepEqual((r.json.ordini as Record<string, unknown>[]).map((e) => e.statusCode), [201, 201]);
    const o = await registered('C001', 'ERPX-2');
    assert.equal(o?.sito_produzione, 'TO');
    assert.equal(o?.righe.length, 2);
    const status = await call(`${t.url}${ORDERS}?riferimento_ordine=ERPX-2`, { key: erpXml.key });
    assert.equal(status.json.sito_produzione, 'TO');
    assert.equal(status.json.numero_ordine, o?.numero_ordine);
  });
});
