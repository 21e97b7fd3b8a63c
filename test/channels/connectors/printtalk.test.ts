// PrintTalk 2.x through a real HTTP server on port 0, sent with curl by a web-to-print shop's XJDF connector: a
// PurchaseOrder registers its order and gets a Confirmation, a bad one a Refusal naming the errors in Italian, an
// OrderStatusRequest gets an OrderStatusResponse, an RFQ a Refusal for the sales office, and every one of CIP4's
// published PrintTalk samples gets a PrintTalk answer, never a 5xx. Every answer validates against PrintTalk 2.2
// and XJDF 2.x (xmllint).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { updateProductionState } from '../../../src/handoff/production.ts';
import { decideRequest } from '../../../src/intake/lifecycle.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { call, startConnectorService, type ConnectorService } from './helpers.ts';
import {
  attrOf, comments, curlPost, FIXTURES, identities, objectOf, PRINTTALK_SAMPLES, PRINTTALK_SKIP, printTalkSchemaErrors,
  SHOP_ARTICLES, shopConnector,
} from './printtalk.ts';

const PO = readFileSync(path.join(FIXTURES, 'purchase-order.ptk'), 'utf8');
const STATUS = readFileSync(path.join(FIXTURES, 'order-status-request.ptk'), 'utf8');
const CANCEL = readFileSync(path.join(FIXTURES, 'cancellation.ptk'), 'utf8');

function cancellation(id: string): string {
  return CANCEL.replaceAll('WEB-2026-0412', id);
}

/** Our PurchaseOrder with another BusinessID (and JobID), so that each test has an order of its own. */
function po(id: string, edit: (xml: string) => string = (x) => x): string {
  return edit(PO.replaceAll('WEB-2026-0412', id));
}

void describe('PrintTalk 2.x on the connector routes', { skip: PRINTTALK_SKIP }, () => {
  let svc: ConnectorService;
  let key: string;
  let url: string;

  before(async () => {
    svc = await startConnectorService();
    await svc.store.upsertArticles(SHOP_ARTICLES);
    await svc.site('VR', 'Verona');
    await svc.customer('C900');
    key = (await shopConnector(svc, 'C900')).key;
    url = `${svc.url}/api/v1/connettori/ordini`;
  });
  after(async () => svc?.close());

  async function send(body: string | Buffer, contentType?: string): Promise<string> {
    const r = await curlPost(url, key, body, contentType);
    assert.equal(r.status, 200, r.body);
    assert.match(r.contentType, /^application\/xml/);
    assert.equal(await printTalkSchemaErrors(r.body), '', `the answer validates against PrintTalk 2.2 + XJDF:\n${r.body}`);
    return r.body;
  }

  void it('a PurchaseOrder registers its order and is confirmed; prices and references are kept with the order', async () => {
    const answer = await send(po('WEB-CONF-1'));
    assert.equal(objectOf(answer), 'Confirmation', answer);
    assert.equal(attrOf(answer, 'Request', 'BusinessRefID'), 'WEB-CONF-1');
    assert.match(attrOf(answer, 'Request', 'BusinessID') ?? '', /^B[0-9a-f]{32}$/);
    assert.deepEqual(identities(answer, 'From'), ['https://tipografia.example.it/printtalk'], 'From and To swapped');
    assert.deepEqual(identities(answer, 'To'), ['SHOP-77', 'https://shop.example.it/printtalk']);
    const numero = attrOf(answer, 'Ordine', 'numero_ordine');
    const id = attrOf(answer, 'Ordine', 'id_ordine');
    assert.ok(numero && id, answer);
    assert.match(comments(answer)[0] ?? '', new RegExp(`Ordine "WEB-CONF-1": registrato con numero ${numero} \\(id_ordine ${id}, sito VR\\)`));

    const view = await call(`${url}/${id}`, { key });
    assert.equal(view.status, 200, view.text);
    assert.equal(view.json.riferimento_ordine, 'WEB-CONF-1');
    assert.equal(view.json.codice_cliente, 'C900', 'SHOP-77 of the Credential, through the connector\'s customer table');
    assert.equal(view.json.data_consegna, '2099-12-15');
    assert.deepEqual(view.json.righe, [{ codice_articolo: 'BIGL-85', quantita: 500, unita_misura: 'PZ' }]);
    const ticket = view.json.ticket as { job_id: string; printtalk: Record<string, unknown> };
    assert.equal(ticket.job_id, 'WEB-CONF-1-1', 'the JobID is kept as for XJDF');
    assert.deepEqual(ticket.printtalk, {
      versione: '2.2', business_id: 'WEB-CONF-1', quote_id: 'PREV-88', reorder_id: 'WEB-CONF-1'.replace('CONF-1', '2026-0301'),
      scadenza: '2099-12-31T18:00:00+01:00', valuta: 'EUR',
      prezzi: [
        { descrizione: 'Biglietti da visita 500 pz', prezzo: 48.5, tipo: 'Product', tipo_imposta: 'Net', id_riga: 'R1' },
        { descrizione: 'Spedizione', prezzo: 9.9, tipo: 'Shipping', tipo_imposta: 'Net', id_riga: 'R2' },
        { descrizione: 'Totale', prezzo: 58.4, tipo: 'Total', tipo_imposta: 'Net', id_riga: 'R3', righe_rif: 'R1 R2' },
      ],
    });

    const again = await send(po('WEB-CONF-1'));
    assert.equal(objectOf(again), 'Confirmation');
    assert.equal(attrOf(again, 'Ordine', 'id_ordine'), id, 'a resend is the same order');
    assert.equal(attrOf(again, 'Ordine', 'duplicato'), 'true');
    assert.match(comments(again)[0] ?? '', /già registrato/);
  });

  void it('an OrderStatusRequest is answered from the order\'s intake and production state', async () => {
    const confirmation = await send(po('WEB-STATO-A'));
    const id = attrOf(confirmation, 'Ordine', 'id_ordine')!;
    const status = STATUS.replaceAll('WEB-2026-0412', 'WEB-STATO-A');
    const first = await send(status);
    assert.equal(objectOf(first), 'OrderStatusResponse', first);
    assert.equal(attrOf(first, 'Request', 'BusinessRefID'), 'WEB-STATO-1');
    assert.equal(attrOf(first, 'OrderStatusResponse', 'JobIDRef'), 'WEB-STATO-A-1');
    assert.equal(attrOf(first, 'Milestone', 'MilestoneType'), 'Accepted');
    assert.match(comments(first)[0] ?? '', /^Ordine registrato con numero \S+ \(id_ordine /);

    await updateProductionState({ store: svc.store }, { orderId: id, stato: 'in_lavorazione', nota: 'in stampa', integration: 'test' });
    const second = await send(status);
    assert.deepEqual([...second.matchAll(/MilestoneType="(\w+)"/g)].map((m) => m[1]), ['Accepted', 'JobInProgress']);
    assert.ok(comments(second).includes('Produzione: in lavorazione (in stampa)'), second);

    const unknown = await send(STATUS.replaceAll('WEB-2026-0412', 'WEB-MAI-VISTO'));
    assert.equal(objectOf(unknown), 'Refusal');
    assert.equal(attrOf(unknown, 'Refusal', 'Reason'), 'Other');
    assert.match(comments(unknown)[0] ?? '', /Nessun ordine con riferimento "WEB-MAI-VISTO"/);
  });

  void it('a PurchaseOrder that cannot be taken gets a Refusal naming its errors in Italian', async () => {
    const wrongProduct = await send(po('WEB-RIF-1', (x) => x.replace('DescriptiveName="Biglietti da visita" ', 'DescriptiveName="Calendario 2027" ')));
    assert.equal(objectOf(wrongProduct), 'Refusal', wrongProduct);
    assert.equal(attrOf(wrongProduct, 'Refusal', 'Reason'), 'WrongProduct');
    assert.equal(attrOf(wrongProduct, 'Request', 'BusinessRefID'), 'WEB-RIF-1');
    assert.match(comments(wrongProduct)[0] ?? '', /^Ordine "WEB-RIF-1", riga 1: nessun articolo per il prodotto con chiave "calendario 2027"/);
    assert.match(attrOf(wrongProduct, 'Refusal', 'ReasonDetails') ?? '', /^Ordine_WEB-RIF-1_/);

    const expired = await send(po('WEB-RIF-2', (x) => x.replace('Expires="2099-12-31T18:00:00+01:00"', 'Expires="2020-01-31T18:00:00+01:00"')));
    assert.equal(attrOf(expired, 'Refusal', 'Reason'), 'Other');
    assert.match(comments(expired)[0] ?? '', /l'ordine WEB-RIF-2 è scaduto il 2020-01-31T18:00:00\+01:00/);

    const price = await send(po('WEB-RIF-3', (x) => x.replace('Price="9.90"', 'Price="gratis"')));
    assert.equal(attrOf(price, 'Refusal', 'Reason'), 'InvalidPrice');
    assert.match(comments(price)[0] ?? '', /Pricing\/Price 2: il prezzo "gratis" non è un numero/);

    const stranger = await send(po('WEB-RIF-4', (x) => x.replace('<Identity>SHOP-77</Identity>', '<Identity>ALTRO-1</Identity>')));
    assert.equal(attrOf(stranger, 'Refusal', 'Reason'), 'Other');
    assert.match(comments(stranger)[0] ?? '', /^Ordine "WEB-RIF-4": il cliente "ALTRO-1" indicato nel ticket non è tra i clienti di questo connettore/);

    for (const ref of ['WEB-RIF-1', 'WEB-RIF-2', 'WEB-RIF-3', 'WEB-RIF-4']) {
      const r = await call(`${url}?riferimento_ordine=${ref}`, { key });
      assert.notEqual(r.json.stato, 'registrato', `${ref} registered nothing`);
    }
  });

  void it('a Cancellation cancels at once before production starts, and is confirmed', async () => {
    const id = attrOf(await send(po('WEB-ANN-1')), 'Ordine', 'id_ordine')!;
    const answer = await send(cancellation('WEB-ANN-1'));
    assert.equal(objectOf(answer), 'Confirmation', answer);
    assert.equal(attrOf(answer, 'Request', 'BusinessRefID'), 'WEB-ANNULLA-1');
    assert.equal(attrOf(answer, 'Ordine', 'id_ordine'), id);
    assert.equal(attrOf(answer, 'Ordine', 'stato'), 'annullato');
    assert.match(comments(answer)[0] ?? '', /^Ordine "WEB-ANN-1" \(numero \S+\): annullato$/);
    const view = await call(`${url}/${id}`, { key });
    assert.equal(view.json.stato_produzione, 'annullato', view.text);

    const again = await send(cancellation('WEB-ANN-1'));
    assert.equal(objectOf(again), 'Confirmation');
    assert.match(comments(again)[0] ?? '', /era già annullato/);
  });

  void it('a Cancellation of an order in production waits for production; of a shipped one is refused', async () => {
    const id = attrOf(await send(po('WEB-ANN-2')), 'Ordine', 'id_ordine')!;
    await updateProductionState({ store: svc.store }, { orderId: id, stato: 'in_lavorazione', integration: 'test' });
    const pending = await send(cancellation('WEB-ANN-2'));
    assert.equal(objectOf(pending), 'OrderStatusResponse', 'not a Confirmation: the order is not cancelled yet');
    assert.equal(attrOf(pending, 'Notification', 'Class'), 'Information');
    assert.match(comments(pending)[0] ?? '', /^Richiesta di annullamento \S+ dell'ordine "WEB-ANN-2" .*decide la produzione/);
    const requestId = /Richiesta di annullamento (\S+) /.exec(comments(pending)[0] ?? '')![1]!;
    const askStatus = STATUS.replaceAll('WEB-2026-0412', 'WEB-ANN-2');
    assert.ok(comments(await send(askStatus)).includes(`Richiesta di annullamento ${requestId}: ricevuta, in attesa della decisione della produzione`));
    await decideRequest({ store: svc.store }, { orderId: id, requestId, esito: 'rifiutata', nota: 'già stampato', by: 'test' });
    const decided = await send(askStatus);
    assert.ok(comments(decided).includes(`Richiesta di annullamento ${requestId}: rifiutata dalla produzione (già stampato)`), decided);

    const id3 = attrOf(await send(po('WEB-ANN-3')), 'Ordine', 'id_ordine')!;
    await updateProductionState({ store: svc.store }, { orderId: id3, stato: 'in_lavorazione', integration: 'test' });
    await updateProductionState({ store: svc.store }, { orderId: id3, stato: 'spedito', integration: 'test' });
    const locked = await send(cancellation('WEB-ANN-3'));
    assert.equal(objectOf(locked), 'Refusal', locked);
    assert.equal(attrOf(locked, 'Refusal', 'Reason'), 'Milestone');
    assert.match(comments(locked)[0] ?? '', /^Ordine "WEB-ANN-3"/);

    const unknown = await send(cancellation('WEB-MAI-ORDINATO'));
    assert.equal(attrOf(unknown, 'Refusal', 'Reason'), 'Other');
    assert.match(comments(unknown)[0] ?? '', /WEB-MAI-ORDINATO/);
  });

  void it('a Cancellation with JobIDRef finds the one order of a PurchaseOrder that held several XJDF', async () => {
    const xjdf = (job: string) => `<xjdf:XJDF JobID="${job}" Types="Product"><xjdf:ProductList><xjdf:Product Amount="100" DescriptiveName="Biglietti da visita"/></xjdf:ProductList></xjdf:XJDF>`;
    const two = await send(po('WEB-DUE', (x) => x.replace(/<xjdf:XJDF[\s\S]*<\/xjdf:XJDF>/, `${xjdf('J-1')}${xjdf('J-2')}`)));
    assert.deepEqual([...two.matchAll(/riferimento_ordine="([^"]*)"/g)].map((m) => m[1]), ['WEB-DUE/J-1', 'WEB-DUE/J-2']);
    const answer = await send(cancellation('WEB-DUE').replace('JobIDRef="WEB-DUE-1"', 'JobIDRef="J-2"'));
    assert.equal(objectOf(answer), 'Confirmation', answer);
    assert.equal(attrOf(answer, 'Ordine', 'riferimento_ordine'), 'WEB-DUE/J-2');
    const first = await call(`${url}?riferimento_ordine=${encodeURIComponent('WEB-DUE/J-1')}`, { key });
    assert.equal(first.json.stato_produzione, undefined, 'the other order stays');
  });

  void it('an RFQ is sent to the sales office; documents that are not PrintTalk 2.x are refused in PrintTalk', async () => {
    const rfq = await send(readFileSync(path.join(PRINTTALK_SAMPLES, 'idusage-ChangeRFQ.ptk')));
    assert.equal(attrOf(rfq, 'Refusal', 'Reason'), 'Other');
    assert.equal(attrOf(rfq, 'Request', 'BusinessRefID'), 'Change_RFQ_1');
    assert.match(comments(rfq)[0] ?? '', /ufficio commerciale/);

    const oldVersion = await send(po('WEB-V13', (x) => x.replace('Version="2.2"', 'Version="1.3"')));
    assert.match(comments(oldVersion)[0] ?? '', /PrintTalk Version "1\.3" non è supportata/);
    const otherNs = await send(po('WEB-NS', (x) => x.replace('xmlns="http://www.printtalk.org/schema_20"', 'xmlns="http://www.printtalk.org/schema"')));
    assert.match(comments(otherNs)[0] ?? '', /namespace http:\/\/www\.printtalk\.org\/schema_20/);
    const broken = await send(po('WEB-ROTTO').replace('</Request>', ''));
    assert.equal(objectOf(broken), 'Refusal');
    assert.equal(attrOf(broken, 'Request', 'BusinessRefID'), undefined, 'nothing of an unreadable request is echoed');
    assert.match(comments(broken)[0] ?? '', /Il documento PrintTalk non può essere letto/);
  });

  void it('the PurchaseOrder labelled as XJDF, and through the site path, is PrintTalk too', async () => {
    const answer = await curlPost(`${svc.url}/api/v1/connettori/VR/ordini`, key, po('WEB-XJDF-1'), 'application/vnd.cip4-xjdf+xml');
    assert.equal(answer.status, 200, answer.body);
    assert.equal(objectOf(answer.body), 'Confirmation', answer.body);
  });

  void it('the exchange in docs/customers/connectors.md: every document validates, and the requests get the answers shown', async () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/customers/connectors.md'), 'utf8');
    const section = /\n## PrintTalk 2\.x[\s\S]*?(?=\n## )/.exec(doc)?.[0] ?? '';
    const blocks = [...section.matchAll(/```xml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    assert.equal(blocks.length, 7, 'a PurchaseOrder, its Confirmation, a Refusal, an OrderStatusRequest and its answer, a Cancellation, a callback');
    for (const b of blocks) assert.equal(await printTalkSchemaErrors(b), '', b);
    const [order, confirmation, , statusRequest, statusResponse, cancel] = blocks as [string, string, string, string, string, string];
    const answer = await send(order);
    assert.equal(objectOf(answer), objectOf(confirmation));
    assert.equal(attrOf(answer, 'Request', 'BusinessRefID'), attrOf(confirmation, 'Request', 'BusinessRefID'));
    assert.deepEqual(identities(answer, 'To'), identities(confirmation, 'To'));
    const status = await send(statusRequest);
    assert.equal(objectOf(status), objectOf(statusResponse));
    assert.equal(attrOf(status, 'OrderStatusResponse', 'JobIDRef'), attrOf(statusResponse, 'OrderStatusResponse', 'JobIDRef'));
    const cancelled = await send(cancel);
    assert.equal(attrOf(cancelled, 'Ordine', 'stato'), 'annullato', cancelled);
  });

  const samples = PRINTTALK_SKIP === false ? readdirSync(PRINTTALK_SAMPLES).filter((f) => f.endsWith('.ptk')).sort() : [];
  for (const name of samples) {
    void it(`CIP4 sample ${name}: a PrintTalk answer, never a 5xx`, async () => {
      const answer = await send(readFileSync(path.join(PRINTTALK_SAMPLES, name)));
      assert.ok(['Confirmation', 'Refusal', 'OrderStatusResponse'].includes(objectOf(answer) ?? ''), answer);
      assert.ok(comments(answer).every((c) => c.length > 10), 'every comment says something');
    });
  }

  void it('CIP4\'s web-to-print PurchaseOrder, not yet expired, becomes an order with its price lines', async () => {
    const body = readFileSync(path.join(PRINTTALK_SAMPLES, 'ICS-app-purchase-order.ptk'), 'utf8').replace(/Expires="[^"]*"/, 'Expires="2099-01-01T00:00:00Z"');
    const answer = await send(body);
    assert.equal(objectOf(answer), 'Confirmation', answer);
    assert.equal(attrOf(answer, 'Request', 'BusinessRefID'), 'B-42');
    const view = await call(`${url}/${attrOf(answer, 'Ordine', 'id_ordine')}`, { key });
    assert.equal(view.json.codice_cliente, 'C900', 'CID-123 of the Credential');
    assert.deepEqual(view.json.righe, [{ codice_articolo: 'FLY-A6', quantita: 1000, unita_misura: 'PZ' }]);
    const ticket = view.json.ticket as { printtalk: { prezzi: Array<{ prezzo: number; tipo_imposta: string }>; valuta: string } };
    assert.equal(ticket.printtalk.valuta, 'EUR');
    assert.deepEqual(ticket.printtalk.prezzi.map((p) => [p.prezzo, p.tipo_imposta]), [[100, 'Net'], [19, 'Tax'], [119, 'Gross']]);
  });
});

void describe('PrintTalk 2.x on PostgreSQL', { skip: PG_SKIP || PRINTTALK_SKIP }, () => {
  void it('a PurchaseOrder is confirmed, a resend is the same order, its status is answered, a Cancellation cancels it', async () => {
    const schema = await createSchema(testDatabaseUrl!, 'ptk');
    const t = await startConnectorService({ INTAKE_DATABASE_URL: schema.url });
    try {
      await t.store.upsertArticles(SHOP_ARTICLES);
      await t.site('VR');
      await t.customer('C900');
      const { key } = await shopConnector(t, 'C900');
      const url = `${t.url}/api/v1/connettori/ordini`;
      const first = await curlPost(url, key, po('WEB-PG-1'));
      assert.equal(objectOf(first.body), 'Confirmation', first.body);
      assert.equal(await printTalkSchemaErrors(first.body), '');
      const again = await curlPost(url, key, po('WEB-PG-1'));
      assert.equal(attrOf(again.body, 'Ordine', 'id_ordine'), attrOf(first.body, 'Ordine', 'id_ordine'));
      const status = await curlPost(url, key, STATUS.replaceAll('WEB-2026-0412', 'WEB-PG-1'));
      assert.equal(objectOf(status.body), 'OrderStatusResponse', status.body);
      assert.equal(attrOf(status.body, 'Milestone', 'MilestoneType'), 'Accepted');
      const view = await call(`${url}/${attrOf(first.body, 'Ordine', 'id_ordine')}`, { key });
      assert.equal((view.json.ticket as { printtalk: { prezzi: unknown[] } }).printtalk.prezzi.length, 3);
      const cancelled = await curlPost(url, key, cancellation('WEB-PG-1'));
      assert.equal(attrOf(cancelled.body, 'Ordine', 'stato'), 'annullato', cancelled.body);
      assert.equal((await call(`${url}/${attrOf(first.body, 'Ordine', 'id_ordine')}`, { key })).json.stato_produzione, 'annullato');
      assert.equal(t.store.kind, 'postgres');
    } finally {
      await t.close();
      await schema.drop();
    }
  });
});
