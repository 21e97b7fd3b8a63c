// UBL ordering documents decoded (src/intake/formats/ubl/): the fixtures are real UBL (xmllint against the OASIS
// schemas in ../shared/ubl), each document becomes the candidate the lifecycle contract describes, and hostile XML is
// refused as for our own XML orders.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isIntakeError } from '../../../src/domain/errors.ts';
import { decodeXml } from '../../../src/intake/formats/xml/index.ts';
import type { UblInfo } from '../../../src/intake/formats/ubl/decode.ts';
import { schemaValid, UBL_SKIP } from '../../helpers/ubl.ts';
import { ublOrder, ublOrderCancellation, ublOrderChange } from './ubl-fixtures.ts';

const decode = (xml: string) => decodeXml({ raw: Buffer.from(xml) }) as Record<string, unknown>[];
const one = (xml: string) => {
  const [c] = decode(xml);
  return c as Record<string, unknown> & { ubl: UblInfo };
};

void describe('UBL ordering documents', () => {
  void it('the fixtures are valid UBL: Order 2.1, Order Change and Order Cancellation 2.3', { skip: UBL_SKIP }, () => {
    schemaValid(ublOrder({ note: 'Consegna al piano terra', accountingCost: 'CDC-12', deliveryEnd: '2026-12-01', lines: [{ sellers: 'BV-STD' }, { gtin: '08001234567897', delivery: '2026-12-02' }] }), 'ubl21/maindoc/UBL-Order-2.1.xsd');
    schemaValid(ublOrder({ nsoReference: { id: 'PO-1', code: 'Revised' } }), 'ubl21/maindoc/UBL-Order-2.1.xsd');
    schemaValid(ublOrderChange(), 'ubl23/maindoc/UBL-OrderChange-2.3.xsd');
    schemaValid(ublOrderCancellation(), 'ubl23/maindoc/UBL-OrderCancellation-2.3.xsd');
  });

  void it('an Order becomes a new order: reference, dates, note, quantities, and what resolution and production need', () => {
    const c = one(ublOrder({
      id: 'PO-77', issueDate: '2026-11-20', note: 'Consegna al piano terra', accountingCost: 'CDC-12', deliveryEnd: '2026-12-01',
      buyerPartyId: { scheme: '9906', id: 'ufabc1' },
      lines: [{ sellers: 'BV-STD', quantity: '250', unitCode: 'H87', name: 'Biglietti', price: '0.10', amount: '25.00' }, { gtin: '8001234567897', quantity: '1.5', unitCode: 'KGM' }, { buyers: 'ASL-77' }],
    }));
    assert.equal(c.riferimento_ordine, 'PO-77');
    assert.equal(c.data_ordine, '2026-11-20');
    assert.equal(c.data_consegna, '2026-12-01');
    assert.equal(c.note, 'Consegna al piano terra');
    assert.equal(c.azione, undefined, 'a plain Order is new (the default)');
    assert.equal(c.codice_cliente, undefined, 'the customer is resolved from the buyer\'s identifiers');
    assert.deepEqual(c.righe, [{ quantita: 250 }, { quantita: 1.5 }, { quantita: 100 }]);
    const u = c.ubl;
    assert.equal(u.document, 'Order');
    assert.equal(u.customizationId, 'urn:fdc:peppol.eu:poacc:trns:order:3');
    assert.deepEqual(u.buyerIds, [
      { scheme: '0211', identifier: 'IT01234567890', path: 'BuyerCustomerParty/Party/EndpointID' },
      { scheme: '9906', identifier: 'UFABC1', path: 'BuyerCustomerParty/Party/PartyIdentification[1]/ID' },
    ]);
    assert.deepEqual(u.sellerIds.map((i) => `${i.scheme}:${i.identifier}`), ['0211:IT09876543210']);
    assert.deepEqual(u.lines.map((l) => [l.path, l.id, l.sellers, l.gtin, l.buyers, l.unitCode]), [
      ['OrderLine[1]/LineItem', '1', 'BV-STD', undefined, undefined, 'H87'],
      ['OrderLine[2]/LineItem', '2', undefined, '8001234567897', undefined, 'KGM'],
      ['OrderLine[3]/LineItem', '3', undefined, undefined, 'ASL-77', 'C62'],
    ]);
    assert.deepEqual(u.lines[0]!.extra, { descrizione: 'Biglietti', prezzo: '0.10', importo: '25.00' });
    assert.deepEqual(u.extra, {
      valuta: 'EUR', totale: '50.00',
      acquirente: { nome: 'ASL Roma 9', indirizzo: { via: 'Via Roma 1', citta: 'Roma', cap: '00100', nazione: 'IT' } },
      contatto_acquirente: { nome: 'Ufficio acquisti', telefono: '06 1234567', email: 'acquisti@asl.example' },
      consegna: { id_luogo: '8012345000019', indirizzo: { via: 'Via dei Magazzini 4', citta: 'Roma', cap: '00155', nazione: 'IT' }, destinatario: 'Magazzino centrale' },
      centro_di_costo: 'CDC-12', riferimento_cliente: 'Rif. reparto 12', contratto: 'CONV-2026/7', gara: 'CIG-ZA12345678',
    });
  });

  void it('the delivery date falls back to the latest line delivery; a quantity that is no number stays text for stage A', () => {
    const c = one(ublOrder({ lines: [{ sellers: 'A', delivery: '2026-12-05', quantity: 'tanti' }, { sellers: 'B', delivery: '2026-12-09' }] }));
    assert.equal(c.data_consegna, '2026-12-09');
    assert.deepEqual(c.righe, [{ quantita: 'tanti' }, { quantita: 100 }]);
  });

  void it('a prefixed root in its namespace is UBL; an Order in another namespace is not', () => {
    const prefixed = ublOrder().replace('<Order xmlns="urn:oasis:names:specification:ubl:schema:xsd:Order-2"', '<ubl:Order xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:Order-2"').replace('</Order>', '</ubl:Order>');
    assert.equal(one(prefixed).riferimento_ordine, 'PO-2026-001');
    assert.throws(() => decode(ublOrder().replace(':xsd:Order-2"', ':xsd:Invoice-2"')),
      (e: unknown) => isIntakeError(e) && /root element must be <ordine>, <ordini> or <InviaOrdine>, or a UBL <Order>/.test(e.messages.join(' ')));
  });

  void it('an Order Change carries the whole new order for the lifecycle: its lines except deleted ones', () => {
    const c = one(ublOrderChange({ orderId: 'PO-77', sequence: 3, lines: [{ sellers: 'A', status: '4' }, { sellers: 'B', status: '2' }, { sellers: 'C', status: '1', quantity: 5 }] }));
    assert.equal(c.azione, 'modifica');
    assert.equal(c.riferimento_ordine, 'PO-77');
    assert.equal(c.data_ordine, '2026-11-21');
    assert.equal(c.ubl.sequence, '3');
    assert.deepEqual(c.ubl.lines.map((l) => [l.path, l.sellers, l.status]), [['OrderLine[1]/LineItem', 'A', '4'], ['OrderLine[3]/LineItem', 'C', '1']]);
    assert.deepEqual(c.righe, [{ quantita: 100 }, { quantita: 5 }]);
  });

  void it('an Order Cancellation cancels the order it names, with its note as the reason', () => {
    const c = one(ublOrderCancellation({ orderId: 'PO-77', note: 'Errore di quantità' }));
    assert.equal(c.azione, 'annulla');
    assert.equal(c.riferimento_ordine, 'PO-77');
    assert.equal(c.motivo, 'Errore di quantità');
    assert.equal(c.righe, undefined);
    assert.equal(one(ublOrderCancellation({ note: null })).motivo, undefined, 'resolution refuses it without a note');
  });

  void it('NSO: an Order replacing an earlier one is a change, one revoking it a cancellation, a linked one a new order', () => {
    const replaced = one(ublOrder({ id: 'PO-78', nsoReference: { id: 'PO-77', code: 'Revised' } }));
    assert.deepEqual([replaced.azione, replaced.riferimento_ordine, replaced.ubl.orderReference], ['modifica', 'PO-77', 'PO-77']);
    assert.ok(Array.isArray(replaced.righe));
    const revoked = one(ublOrder({ id: 'PO-79', note: 'Ordine emesso per errore', nsoReference: { id: 'PO-77', code: 'Cancelled' } }));
    assert.deepEqual([revoked.azione, revoked.riferimento_ordine, revoked.motivo, revoked.righe], ['annulla', 'PO-77', 'Ordine emesso per errore', undefined]);
    const linked = one(ublOrder({ id: 'PO-80', nsoReference: { id: 'PO-77', code: 'Connected' } }));
    assert.deepEqual([linked.azione, linked.riferimento_ordine], [undefined, 'PO-80']);
  });

  void it('hostile UBL is refused like any XML: DOCTYPE, entities, depth', () => {
    const withDoctype = ublOrder().replace('<Order ', '<!DOCTYPE Order [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<Order ');
    assert.throws(() => decode(withDoctype), (e: unknown) => isIntakeError(e) && e.code === 'NOT_PARSEABLE' && /DOCTYPE/.test(e.message));
    const deep = ublOrder().replace('<cbc:Name>Biglietti da visita</cbc:Name>', `${'<cbc:X>'.repeat(40)}${'</cbc:X>'.repeat(40)}`);
    assert.throws(() => decode(deep), (e: unknown) => isIntakeError(e) && /nest elements more than/.test(e.message));
    const unknownEntity = ublOrder({ note: 'x' }).replace('<cbc:Note>x</cbc:Note>', '<cbc:Note>&xxe;</cbc:Note>');
    assert.doesNotThrow(() => decode(unknownEntity), 'an undeclared entity is left as text, never expanded');
    const buried = ublOrder().replace('<Order ', `<!--${'x'.repeat(70 * 1024)}-->\n<Order `);
    assert.throws(() => decode(buried), (e: unknown) => isIntakeError(e) && /root element must be/.test(e.message), 'a root past 64 KiB of prolog is not looked for');
  });
});
