// CIP4's own published samples (../shared/cip4/samples), EVERY file, posted through a real HTTP server on port 0
// to XJDF connectors set up as an integrator would (lookup table, customer table, product key): each product ticket
// becomes an order with the right reference, dates and lines; every other sample gets a clear 4xx or an in-band
// XJMF error, never a 5xx; every XJMF answer validates against CIP4's schema (xmllint). The samples all use
// JobID JOB-42, so each file goes to its own customer's connector (one customer's JOB-42 is one order).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, startConnectorService, xmlAttr, type ConnectorService } from './helpers.ts';
import {
  CIP4_ARTICLES, CIP4_SKIP, integratorConnector, SAMPLES_DIR, schemaErrors, submitQueueEntryPackage, todayInRome, XJDF, XJMF,
} from './cip4.ts';

type Line = [codice_articolo: string, quantita: number];

/** What each product ticket must become (the integrator's lookup table maps the products; see cip4.ts). */
const PRODUCT_TICKETS: Record<string, { lines: Line[]; consegna?: string; artwork?: string; viaCustomerTable?: boolean }> = {
  'book-product-2.xjdf': { lines: [['LEAF-F6', 2500]] },
  'book-product-complex-1.xjdf': { lines: [['MAG-A4', 1000]] },
  'book-product-complex-2.xjdf': { lines: [['NOTE-A4', 500]] },
  'book-product-complex-3.xjdf': { lines: [['ROLLUP', 10]] },
  'book-product-simple-1.xjdf': { lines: [['FLY-A6', 1000]] },
  'book-product-simple-2.xjdf': { lines: [['LEAF-F6', 750]] },
  'book-product-simple-3.xjdf': { lines: [['BANNER', 10]] },
  'book-product.xjdf': { lines: [['POSTER-A1', 250], ['POSTER-A3', 1000]] },
  'book-web-to-print.xjdf': { lines: [['FLY-STD', 1000]], consegna: '2024-10-20', artwork: 'http://example.org/artwork.pdf', viaCustomerTable: true },
  'product.xjdf': { lines: [['FLY-A6', 1000]], consegna: '2024-10-20', artwork: 'http://example.org/my-artwork.pdf', viaCustomerTable: true },
};

const files = CIP4_SKIP === false ? readdirSync(SAMPLES_DIR).filter((f) => !f.startsWith('.')).sort() : [];

void describe('CIP4 samples through an XJDF connector', { skip: CIP4_SKIP }, () => {
  let svc: ConnectorService;
  let n = 0;
  /** A fresh customer with its integrator-style connector; CUSTOMER-ID (the samples' printer-side id) maps to it. */
  async function fresh(): Promise<{ code: string; key: string; apiKey: string }> {
    const code = `K${String(++n).padStart(3, '0')}`;
    const apiKey = await svc.customer(code);
    const c = await integratorConnector(svc, code, [`CUSTOMER-ID;${code}`]);
    return { code, key: c.key, apiKey };
  }

  before(async () => {
    svc = await startConnectorService();
    await svc.store.upsertArticles(CIP4_ARTICLES);
    await svc.site('VR', 'Verona');
  });
  after(async () => svc?.close());

  void it('has the samples this test knows, and more than the product tickets', () => {
    for (const name of Object.keys(PRODUCT_TICKETS)) assert.ok(files.includes(name), `${name} is among the samples`);
    assert.ok(files.length > Object.keys(PRODUCT_TICKETS).length, 'the samples hold messages too');
  });

  for (const name of files) {
    void it(`${name}: an order, or a clear refusal, never a 5xx`, async () => {
      const body = readFileSync(path.join(SAMPLES_DIR, name));
      const isMessage = /<(?:\w+:)?XJMF[\s>]/.test(body.toString('utf8'));
      const who = await fresh();
      const r = await call(`${svc.url}/api/v1/connettori/ordini`, { key: who.key, body, contentType: isMessage ? XJMF : XJDF });
      assert.ok(r.status < 500, `${name}: ${r.status} ${r.text}`);
      const expected = PRODUCT_TICKETS[name];
      if (isMessage) {
        // In-band: HTTP 200 and an XJMF Response whose ReturnCode says why, valid against CIP4's schema.
        assert.equal(r.status, 200, r.text);
        assert.equal(await schemaErrors(r.text), '', `${name}: the answer validates against xjdf.xsd`);
        assert.notEqual(xmlAttr(r.text, 'ReturnCode'), '0', `${name} alone registers nothing: ${r.text}`);
        assert.match(r.text, /<Notification Class="Error"><Comment>[^<]{20,}<\/Comment>/, 'a clear text says why');
        return;
      }
      if (!expected) {
        // A ticket this test has no expectations for: 201 with its JobID, or a clear 4xx.
        assert.ok(r.status === 201 || (r.status >= 400 && r.status < 500), `${name}: ${r.status} ${r.text}`);
        return;
      }
      assert.equal(r.status, 201, `${name}: ${r.text}`);
      const id = String(r.json.id_ordine);
      const status = await call(`${svc.url}/api/v1/connettori/ordini/${id}`, { key: who.key });
      assert.equal(status.status, 200, status.text);
      const order = status.json;
      assert.equal(order.codice_cliente, who.code, expected.viaCustomerTable ? 'CUSTOMER-ID mapped through the customer table' : 'no CustomerInfo: the connector\'s customer');
      assert.equal(order.riferimento_ordine, 'JOB-42');
      assert.equal(order.sito_produzione, 'VR');
      // No date in the ticket: the day received, but not after the delivery date (CIP4's samples are due in 2024).
      assert.equal(order.data_ordine, expected.consegna ?? todayInRome());
      assert.equal(order.data_consegna, expected.consegna);
      assert.deepEqual(order.righe, expected.lines.map(([codice_articolo, quantita]) => ({ codice_articolo, quantita, unita_misura: 'PZ' })));
      const ticket = order.ticket as { formato: string; job_id: string; file: string[]; prodotti: { riga?: number; intenti: Record<string, unknown> }[] };
      assert.equal(ticket.formato, 'xjdf');
      assert.equal(ticket.job_id, 'JOB-42');
      assert.deepEqual(ticket.file, expected.artwork ? [expected.artwork] : []);
      const lineProducts = ticket.prodotti.filter((p) => p.riga !== undefined);
      assert.equal(lineProducts.length, expected.lines.length);
      assert.ok(ticket.prodotti.some((p) => Object.keys(p.intenti).length > 0), 'the intents are kept');
      // The customer sees it over REST too; the same file again is the same order.
      const rest = await call(`${svc.url}/api/v1/ordini/${id}`, { headers: { 'x-api-key': who.apiKey } });
      assert.equal(rest.status, 200, rest.text);
      const again = await call(`${svc.url}/api/v1/connettori/ordini`, { key: who.key, body, contentType: XJDF });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.id_ordine, id);
    });
  }

  void it('CommandSubmitQueueEntry registers the ticket it names, packaged with it; ResubmitQueueEntry is answered 105 or 5', async () => {
    const who = await fresh();
    const { body, contentType } = submitQueueEntryPackage();
    const r = await call(`${svc.url}/api/v1/connettori/ordini`, { key: who.key, body, contentType });
    assert.equal(r.status, 200, r.text);
    assert.equal(await schemaErrors(r.text), '', 'the answer validates against xjdf.xsd');
    assert.match(r.text, /<ResponseSubmitQueueEntry ReturnCode="0">/);
    const id = xmlAttr(r.text, 'QueueEntryID')!;
    const order = await call(`${svc.url}/api/v1/connettori/ordini/${id}`, { key: who.key });
    assert.equal(order.status, 200, order.text);
    assert.deepEqual([order.json.codice_cliente, order.json.riferimento_ordine], [who.code, 'JOB-42']);

    // The sample's resubmission names qe1, which is no order: 105. Naming the order just registered: 5, it stays.
    const resubmit = readFileSync(path.join(SAMPLES_DIR, 'commandResubmitQE.xjmf'), 'utf8');
    const unknown = await call(`${svc.url}/api/v1/connettori/ordini`, { key: who.key, body: resubmit, contentType: XJMF });
    assert.equal(unknown.status, 200);
    assert.match(unknown.text, /<ResponseResubmitQueueEntry ReturnCode="105">/);
    assert.match(unknown.text, /Header[^>]*refID="C1"/);
    assert.equal(await schemaErrors(unknown.text), '');
    const known = await call(`${svc.url}/api/v1/connettori/ordini`, { key: who.key, body: resubmit.replace('QueueEntryID="qe1"', `QueueEntryID="${id}"`), contentType: XJMF });
    assert.match(known.text, /<ResponseResubmitQueueEntry ReturnCode="5">/);
    assert.match(known.text, /non può ancora essere sostituito/);
    assert.equal(await schemaErrors(known.text), '');
    // Another customer's connector cannot learn the order exists.
    const other = await fresh();
    const foreign = await call(`${svc.url}/api/v1/connettori/ordini`, { key: other.key, body: resubmit.replace('QueueEntryID="qe1"', `QueueEntryID="${id}"`), contentType: XJMF });
    assert.match(foreign.text, /ReturnCode="105"/);
  });

  void it('a product the lookup does not map is refused on righe[i].codice_articolo naming the key to add', async () => {
    const code = 'KMISS';
    await svc.customer(code);
    const lookup = (await import('./cip4.ts')).LOOKUP_CSV.replace('My Magazine A4;MAG-A4;PZ\n', '');
    const c = await integratorConnector(svc, code, [], lookup);
    const r = await call(`${svc.url}/api/v1/connettori/ordini`, { key: c.key, body: readFileSync(path.join(SAMPLES_DIR, 'book-product-complex-1.xjdf')), contentType: XJDF });
    assert.equal(r.status, 400, r.text);
    assert.deepEqual(r.json.errori, [{
      campo: 'righe[0].codice_articolo',
      messaggio: 'Nessun articolo per il prodotto con chiave "my magazine a4": aggiungete la chiave "my magazine a4" alla tabella di conversione del connettore',
    }]);
  });
});

void describe('every XJMF answer validates against CIP4 schema', { skip: CIP4_SKIP }, () => {
  let svc: ConnectorService;
  let key: string;
  before(async () => {
    svc = await startConnectorService();
    await svc.site('VR', 'Verona');
    await svc.customer('C001');
    key = (await svc.connector({ customer: 'C001', sites: 'VR', format: 'xjdf' })).key;
  });
  after(async () => svc?.close());

  const header = '<Header DeviceID="Switch" ID="H1" Time="2026-11-25T10:00:00+01:00"/>';
  const cases: Record<string, string> = {
    'QueryKnownMessages': `<XJMF xmlns="http://www.CIP4.org/JDFSchema_2_0" Version="2.1">${header}<QueryKnownMessages>${header.replace('H1', 'Q1')}</QueryKnownMessages></XJMF>`,
    'a query not answered (QueryQueueStatus)': `<XJMF xmlns="http://www.CIP4.org/JDFSchema_2_0">${header}<QueryQueueStatus>${header.replace('H1', 'Q2')}</QueryQueueStatus></XJMF>`,
    'an unreadable body': '<XJMF xmlns="http://www.CIP4.org/JDFSchema_2_0"><Header',
    'a Version and an ID the schema does not allow echoed': `<XJMF xmlns="http://www.CIP4.org/JDFSchema_2_0" Version="9">${header}<CommandSubmitQueueEntry><Header DeviceID="S" ID="has space" Time="2026-11-25T10:00:00Z"/><QueueSubmissionParams URL="cid:none"/></CommandSubmitQueueEntry></XJMF>`,
  };
  for (const [what, body] of Object.entries(cases)) {
    void it(what, async () => {
      const r = await call(`${svc.url}/api/v1/connettori/ordini`, { key, body, contentType: XJMF });
      assert.equal(r.status, 200, r.text);
      assert.match(r.text, /<XJMF /);
      assert.equal(await schemaErrors(r.text), '', r.text);
    });
  }
});
