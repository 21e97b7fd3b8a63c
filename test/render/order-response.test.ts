// Peppol Order Responses (src/render/order-response.ts): valid against the OASIS schema of their transaction (the
// plain response UBL 2.1, the advanced one 2.3), with the codes, references and Notes the buyer's system reads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeXml } from '../../src/intake/formats/xml/index.ts';
import type { UblInfo } from '../../src/intake/formats/ubl/decode.ts';
import { renderOrderResponse } from '../../src/render/order-response.ts';
import { schemaValid, UBL_SCHEMAS, UBL_SKIP } from '../helpers/ubl.ts';
import { ublOrder, ublOrderCancellation, ublOrderChange } from '../intake/formats/ubl-fixtures.ts';

const info = (xml: string) => ((decodeXml({ raw: Buffer.from(xml) })[0]) as { ubl: UblInfo }).ubl;
const at = new Date('2026-11-20T10:15:30Z');

void describe('Order Response', { skip: UBL_SKIP }, () => {
  void it('accepts an Order: AP, our number as SalesOrderID, the buyer\'s ID as OrderReference; valid UBL 2.1', () => {
    const xml = renderOrderResponse({ document: info(ublOrder({ id: 'PO-1' })), code: 'AP', notes: [], id: 'OR-1', at, timeZone: 'Europe/Rome', numero_ordine: '2026-000042', seller: { scheme: '0211', identifier: 'IT09876543210' } });
    schemaValid(xml, UBL_SCHEMAS.orderResponse);
    assert.match(xml, /<cbc:CustomizationID>urn:fdc:peppol\.eu:poacc:trns:order_response:3<\/cbc:CustomizationID>/);
    assert.match(xml, /<cbc:SalesOrderID>2026-000042<\/cbc:SalesOrderID>/);
    assert.match(xml, /<cbc:IssueDate>2026-11-20<\/cbc:IssueDate>\n<cbc:IssueTime>11:15:30<\/cbc:IssueTime>/);
    assert.match(xml, /<cbc:OrderResponseCode>AP<\/cbc:OrderResponseCode>/);
    assert.match(xml, /<cac:OrderReference><cbc:ID>PO-1<\/cbc:ID><\/cac:OrderReference>/);
    assert.match(xml, /<cac:SellerSupplierParty><cac:Party><cbc:EndpointID schemeID="0211">IT09876543210<\/cbc:EndpointID>/);
    assert.match(xml, /<cac:BuyerCustomerParty><cac:Party><cbc:EndpointID schemeID="0211">IT01234567890<\/cbc:EndpointID><cac:PartyLegalEntity><cbc:RegistrationName>ASL Roma 9</);
  });

  void it('rejects with the reasons in the Note, escaped; many reasons are cut with a count', () => {
    const reasons = ['OrderLine[1]/LineItem/Item: la riga non identifica l\'articolo <&>', ...Array.from({ length: 60 }, (_, i) => `motivo ${i}`)];
    const xml = renderOrderResponse({ document: info(ublOrder()), code: 'RE', notes: reasons, id: 'OR-2', at, timeZone: 'Europe/Rome' });
    schemaValid(xml, UBL_SCHEMAS.orderResponse);
    assert.match(xml, /<cbc:OrderResponseCode>RE<\/cbc:OrderResponseCode>/);
    assert.match(xml, /<cbc:Note>OrderLine\[1\]\/LineItem\/Item: la riga non identifica l'articolo &lt;&amp;&gt;\nmotivo 0\n/);
    assert.match(xml, /… e altri 11 motivi<\/cbc:Note>/);
    assert.doesNotMatch(xml, /SalesOrderID/);
  });

  void it('answers a change, a cancellation and an NSO replacement with the advanced response; valid UBL 2.3', () => {
    for (const doc of [ublOrderChange({ orderId: 'PO-9' }), ublOrderCancellation({ orderId: 'PO-9' }), ublOrder({ id: 'PO-10', nsoReference: { id: 'PO-9', code: 'Revised' } })]) {
      for (const code of ['AP', 'AB', 'RE'] as const) {
        const xml = renderOrderResponse({ document: info(doc), code, notes: code === 'RE' ? ['Ordine già spedito'] : [], id: 'OR-3', at, timeZone: 'Europe/Rome', numero_ordine: '2026-000009' });
        schemaValid(xml, UBL_SCHEMAS.orderResponseAdvanced);
        assert.match(xml, /urn:fdc:peppol\.eu:poacc:trns:order_response_advanced:3/);
        assert.match(xml, /urn:fdc:peppol\.eu:poacc:bis:advanced_ordering:3/);
        assert.match(xml, /<cac:OrderReference><cbc:ID>PO-9<\/cbc:ID><\/cac:OrderReference>/);
      }
    }
  });
});
