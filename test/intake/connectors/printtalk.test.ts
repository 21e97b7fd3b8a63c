// PrintTalk 2.x decoding (src/intake/connectors/printtalk.ts): references, customer, prices, expiry, several XJDF,
// the Cancellation candidate, limits, and the quick look the route takes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeConnectorPayload, readPrintTalkRequest } from '../../../src/intake/connectors/index.ts';
import { nmtoken } from '../../../src/intake/connectors/printtalk-answer.ts';
import { cancellationRefs, MAX_PRICE_LINES, MAX_PRINTTALK_XJDF } from '../../../src/intake/connectors/printtalk.ts';
import { fixture, profile, RECEIVED_AT } from './helpers.ts';
import { assertIntakeError } from '../formats/helpers.ts';

const PO = fixture('printtalk/purchase-order.ptk').toString('utf8');
const CANCEL = fixture('printtalk/cancellation.ptk');
const LOOKUP = { 'Biglietti da visita': { codice_articolo: 'BIGL-85', unita_misura: 'PZ' } };

async function refused(p: Promise<unknown>, code: 'NOT_PARSEABLE' | 'UNSUPPORTED_MEDIA_TYPE', message: RegExp): Promise<void> {
  assertIntakeError(await p.then(() => undefined, (e: unknown) => e), code, message);
}

function decode(xml: string | Buffer, format: 'xjdf' | 'jdf' = 'xjdf') {
  return decodeConnectorPayload({ raw: Buffer.isBuffer(xml) ? xml : Buffer.from(xml), contentType: 'application/xml', profile: profile(format, LOOKUP), receivedAt: RECEIVED_AT });
}

const XJDF = (job: string, name: string) => `<xjdf:XJDF JobID="${job}" Types="Product"><xjdf:ProductList>`
  + `<xjdf:Product Amount="10" DescriptiveName="${name}"/></xjdf:ProductList></xjdf:XJDF>`;

void describe('PrintTalk decoding', () => {
  void it('a PurchaseOrder with one XJDF: BusinessID is the reference, the Credential the customer, prices kept', async () => {
    const d = await decode(PO);
    assert.equal(d.kind, 'printtalk');
    assert.deepEqual(d.candidates, [{
      codice_cliente: 'SHOP-77', riferimento_ordine: 'WEB-2026-0412', data_ordine: '2026-11-22', data_consegna: '2099-12-15',
      righe: [{ codice_articolo: 'BIGL-85', quantita: 500, unita_misura: 'PZ' }],
    }]);
    const details = d.notes![0]!.details;
    assert.equal(details.job_id, 'WEB-2026-0412-1');
    assert.equal(details.printtalk?.quote_id, 'PREV-88');
    assert.equal(details.printtalk?.reorder_id, 'WEB-2026-0301');
    assert.deepEqual(details.printtalk?.prezzi.map((p) => p.prezzo), [48.5, 9.9, 58.4]);
  });

  void it('several XJDF: one order each, referenced BusinessID/JobID, each with the price lines', async () => {
    const several = PO.replace(/<xjdf:XJDF[\s\S]*<\/xjdf:XJDF>/, `${XJDF('J-1', 'Biglietti da visita')}${XJDF('J-2', 'Biglietti da visita')}`);
    const d = await decode(several);
    assert.deepEqual(d.candidates.map((c) => (c as { riferimento_ordine: string }).riferimento_ordine), ['WEB-2026-0412/J-1', 'WEB-2026-0412/J-2']);
    assert.deepEqual(d.notes!.map((n) => n.details.printtalk?.prezzi.length), [3, 3]);
  });

  void it('no Credential CustomerID: the XJDF\'s own CustomerInfo names the customer', async () => {
    const d = await decode(PO.replace(/<Credential domain="CustomerID">.*?<\/Credential>/, '')
      .replace('<xjdf:ProductList>', '<xjdf:ResourceSet Name="CustomerInfo" Usage="Input"><xjdf:Resource><xjdf:CustomerInfo CustomerID="K-9"/></xjdf:Resource></xjdf:ResourceSet><xjdf:ProductList>'));
    assert.equal((d.candidates[0] as { codice_cliente: string }).codice_cliente, 'K-9');
  });

  void it('refuses what cannot be an order, saying why in Italian', async () => {
    const cases: Array<[string, RegExp]> = [
      [PO.replace('Expires="2099-12-31T18:00:00+01:00"', 'Expires="2026-11-22T09:00:00+01:00"'), /è scaduto il 2026-11-22T09:00:00\+01:00/],
      [PO.replace('Expires="2099-12-31T18:00:00+01:00"', 'Expires="domani"'), /Expires "domani" non è una data e ora/],
      [PO.replace('Price="48.50"', 'Price="1,5"'), /Pricing\/Price 1: il prezzo "1,5" non è un numero/],
      [PO.replace(/<xjdf:XJDF[\s\S]*<\/xjdf:XJDF>/, ''), /non contiene alcun xjdf:XJDF/],
      [PO.replace(' BusinessID="WEB-2026-0412"', ''), /Request senza BusinessID/],
      [PO.replace('Version="2.2"', 'Version="3.0"'), /Version "3\.0" non è supportata/],
      [PO.replace(/<Request[\s\S]*<\/Request>/, '<Request BusinessID="X"><RFQ/></Request>'), /RFQ non porta ordini/],
      [PO.replace(/<xjdf:XJDF[\s\S]*<\/xjdf:XJDF>/, XJDF('J', 'A').repeat(MAX_PRINTTALK_XJDF + 1)), new RegExp(`al massimo ${MAX_PRINTTALK_XJDF}`)],
      [PO.replace(/<Price [^>]*\/>/, '<Price DescriptiveName="x" Price="1" PriceType="Product" TaxType="Net"/>'.repeat(MAX_PRICE_LINES + 1)), new RegExp(`al massimo ${MAX_PRICE_LINES}`)],
    ];
    for (const [xml, message] of cases) {
      await refused(decode(xml), 'NOT_PARSEABLE', message);
    }
  });

  void it('a JDF connector names the connector a PrintTalk document needs', async () => {
    await refused(decode(PO, 'jdf'), 'UNSUPPORTED_MEDIA_TYPE', /<PrintTalk> needs a connector with format xjdf/);
  });

  void it('a Cancellation becomes the lifecycle\'s annulla candidate for the PurchaseOrder\'s reference', async () => {
    const d = await decode(CANCEL);
    assert.deepEqual(d.candidates, [{
      azione: 'annulla', codice_cliente: 'SHOP-77', riferimento_ordine: 'WEB-2026-0412', motivo: 'Il cliente ha annullato l\'acquisto sul sito',
    }]);
    const info = readPrintTalkRequest(CANCEL, 'application/xml')!.info!;
    assert.deepEqual(cancellationRefs(info), ['WEB-2026-0412', 'WEB-2026-0412/WEB-2026-0412-1']);
    await refused(decode(CANCEL.toString().replace(' BusinessRefID="WEB-2026-0412"', '')), 'NOT_PARSEABLE', /BusinessRefID/);
  });

  void it('the route\'s quick look: PrintTalk or not, and why a PrintTalk document is not read', () => {
    assert.equal(readPrintTalkRequest(Buffer.from('<XJDF xmlns="http://www.CIP4.org/JDFSchema_2_0"/>')), undefined);
    assert.equal(readPrintTalkRequest(Buffer.from('{"PrintTalk": 1}')), undefined);
    const withProlog = readPrintTalkRequest(Buffer.from(`\uFEFF<?xml version="1.0"?>\n<!-- dal negozio -->\n${PO.replace(/^<\?xml[^>]*>\n/, '')}`));
    assert.equal(withProlog?.problem, undefined);
    assert.equal(withProlog?.info?.object, 'PurchaseOrder');
    assert.equal(withProlog?.info?.customerId, 'SHOP-77');
    const prefixed = readPrintTalkRequest(Buffer.from('<ptk:PrintTalk xmlns:ptk="http://www.printtalk.org/schema_20" Version="2.0"><ptk:Header/><ptk:Request BusinessID="A"><ptk:RFQ/></ptk:Request></ptk:PrintTalk>'));
    assert.equal(prefixed?.problem, undefined);
    assert.equal(prefixed?.info?.object, 'RFQ');
    assert.match(readPrintTalkRequest(Buffer.from('<PrintTalk xmlns="http://www.printtalk.org/schema"/>'))?.problem ?? '', /namespace/);
    assert.match(readPrintTalkRequest(Buffer.from('<PrintTalk xmlns="http://www.printtalk.org/schema_20"><Header>'))?.problem ?? '', /non può essere letto/);
    assert.match(readPrintTalkRequest(Buffer.from('<!DOCTYPE x [<!ENTITY a "b">]><PrintTalk xmlns="http://www.printtalk.org/schema_20"/>'))?.problem ?? '', /non può essere letto/);
  });

  void it('ReasonDetails tokens keep Italian letters and drop what an NMTOKEN cannot hold', () => {
    assert.equal(nmtoken('Riga 1: quantità "0" non è valida'), 'Riga_1:_quantità_0_non_è_valida');
    assert.equal(nmtoken('«»'), '_');
  });
});
