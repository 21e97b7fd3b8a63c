// UBL documents judged (src/intake/ubl-resolve.ts): the buyer's Peppol identifier names the customer, lines find their
// article by our code, GTIN or the buyer's own code, units by UN/ECE code; refusals name the document's elements.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import type { Principal } from '../../src/domain/types.ts';
import { seedIntakeStore } from './seed.ts';
import { ublOrder, ublOrderCancellation, ublOrderChange } from './formats/ubl-fixtures.ts';

let store: Store;
let intake: Intake;
let principal: Principal;

before(async () => {
  store = await openSqliteStore(':memory:');
  principal = await seedIntakeStore(store);
  const other = await store.createCustomer({ id: 'cust-2', code: 'C002', name: 'Due', mailbox: 'c002-x@ordini.test' });
  await store.setPeppolIds(principal.customerId, [{ scheme: '0211', identifier: 'IT01234567890' }]);
  await store.setPeppolIds(other.id, [{ scheme: '9906', identifier: 'UFOTHER' }]);
  await store.upsertArticleGtins([{ gtin: '08001234567897', codice_articolo: 'VOL-A4' }]);
  await store.upsertArticleXrefs(principal.customerId, [{ codice_cliente_articolo: 'ASL-77', codice_articolo: 'CAR-A4-80' }]);
  intake = createIntake({
    store, timeZone: 'Europe/Rome', log: createLogger('silent'), now: () => new Date('2026-11-20T10:00:00Z'),
    peppol: { sellerId: { scheme: '0211', identifier: 'IT09876543210' }, units: new Map([['C62', 'PZ']]) },
  });
});
after(() => store.close());

const send = (xml: string) => intake.submit({ principal, channel: 'sftp', fileName: 'ordine.xml', raw: Buffer.from(xml) });

void describe('judging UBL documents', () => {
  void it('registers an Order whose buyer, items and units resolve: our code, GTIN, cross-reference; operator and built-in units', async () => {
    const { outcome } = await send(ublOrder({
      id: 'PO-1', deliveryEnd: '2026-12-01',
      lines: [{ sellers: 'BV-STD', quantity: 250 }, { gtin: '8001234567897', unitCode: 'PK' }, { buyers: 'ASL-77', unitCode: 'RM' }],
    }));
    assert.equal(outcome.esito, 'ok', JSON.stringify(outcome));
    const o = outcome.orders[0]!;
    assert.deepEqual([o.codice_cliente, o.riferimento_ordine], ['C001', 'PO-1']);
    const stored = await store.getOrderByRef(principal.customerId, 'PO-1');
    assert.deepEqual(stored?.righe, [
      { codice_articolo: 'BV-STD', quantita: 250, unita_misura: 'PZ' },
      { codice_articolo: 'VOL-A4', quantita: 100, unita_misura: 'XPK' },
      { codice_articolo: 'CAR-A4-80', quantita: 100, unita_misura: 'RM' },
    ]);
    assert.equal(stored?.data_consegna, '2026-12-01');
  });

  void it('refuses, in the document\'s terms, lines it cannot resolve and units the table does not know', async () => {
    const { outcome } = await send(ublOrder({
      id: 'PO-2',
      lines: [{ sellers: 'NOPE' }, { gtin: '4000000000006' }, { buyers: 'ASL-99' }, { name: 'Senza codice' }, { sellers: 'BV-STD', unitCode: 'ZZZ' }, { sellers: 'BV-STD', unitCode: null }],
    }));
    const o = outcome.orders[0]!;
    assert.equal(o.code, 'BUSINESS');
    assert.deepEqual(o.errori, [
      { campo: 'OrderLine[2]/LineItem/Item/StandardItemIdentification/ID', messaggio: 'Il GTIN 4000000000006 non corrisponde a nessun articolo del catalogo' },
      { campo: 'OrderLine[3]/LineItem/Item/BuyersItemIdentification/ID', messaggio: 'Il codice articolo del cliente «ASL-99» non ha una corrispondenza con i nostri articoli' },
      { campo: 'OrderLine[4]/LineItem/Item', messaggio: "La riga non identifica l'articolo: manca SellersItemIdentification/ID, StandardItemIdentification/ID con schemeID 0160 (GTIN) o BuyersItemIdentification/ID" },
      { campo: 'OrderLine[6]/LineItem/Quantity/@unitCode', messaggio: "Manca l'unità di misura (unitCode)" },
    ]);
    // Resolved lines go on to stage B once resolution succeeds: a code and a unit unknown to the catalog.
    const second = (await send(ublOrder({ id: 'PO-3', lines: [{ sellers: 'NOPE' }, { sellers: 'BV-STD', unitCode: 'ZZZ' }] }))).outcome.orders[0]!;
    assert.deepEqual(second.errori, [
      { campo: 'OrderLine[1]/LineItem/Item/SellersItemIdentification/ID', messaggio: 'Articolo sconosciuto: "NOPE"' },
      { campo: 'OrderLine[2]/LineItem/Quantity/@unitCode', messaggio: 'Unità di misura sconosciuta: "ZZZ"' },
    ]);
  });

  void it('stage A\'s refusals name the document\'s elements too', async () => {
    const o = (await send(ublOrder({ id: 'PO-4', issueDate: '2026-13-40', lines: [{ sellers: 'BV-STD', quantity: -3 }] }))).outcome.orders[0]!;
    assert.equal(o.code, 'VALIDATION');
    assert.deepEqual(o.errori, [{ campo: 'IssueDate', messaggio: 'Valore non valido' }, { campo: 'OrderLine[1]/LineItem/Quantity', messaggio: 'Valore non valido' }]);
  });

  void it('the buyer must be registered and be the authenticated customer; the seller must be us', async () => {
    const unknown = (await send(ublOrder({ id: 'PO-5', buyer: { scheme: '0088', id: '123' } }))).outcome.orders[0]!;
    assert.equal(unknown.code, 'BUSINESS');
    assert.equal(unknown.errori?.[0]?.campo, 'BuyerCustomerParty/Party/EndpointID');
    assert.match(unknown.errori?.[0]?.messaggio ?? '', /L'acquirente 0088:123 non è registrato/);
    const none = (await send(ublOrder({ id: 'PO-6', buyer: null }))).outcome.orders[0]!;
    assert.match(none.errori?.[0]?.messaggio ?? '', /Manca l'identificativo Peppol dell'acquirente/);
    const foreign = (await send(ublOrder({ id: 'PO-7', buyer: { scheme: '9906', id: 'ufother' } }))).outcome.orders[0]!;
    assert.equal(foreign.code, 'FORBIDDEN_CUSTOMER');
    assert.equal(foreign.codice_cliente, 'C002');
    assert.equal(await store.getOrderByRef(principal.customerId, 'PO-7'), undefined);
    const elsewhere = (await send(ublOrder({ id: 'PO-8', seller: { scheme: '0211', id: 'IT11111111111' } }))).outcome.orders[0]!;
    assert.deepEqual(elsewhere.errori, [{ campo: 'SellerSupplierParty/Party/EndpointID', messaggio: 'Il documento è indirizzato a un altro fornitore (0211:IT11111111111), non a 0211:IT09876543210' }]);
  });

  void it('a cancellation without CancellationNote is refused naming it', async () => {
    const o = (await send(ublOrderCancellation({ note: null }))).outcome.orders[0]!;
    assert.deepEqual(o.errori, [{ campo: 'CancellationNote', messaggio: "Manca il motivo dell'annullamento (CancellationNote)" }]);
  });

  void it('an Order Change older than one the order took is refused (SequenceNumberID); a newer one applies', async () => {
    assert.equal((await send(ublOrder({ id: 'PO-SEQ' }))).outcome.esito, 'ok');
    const id = (await store.getOrderByRef(principal.customerId, 'PO-SEQ'))!.id_ordine;
    const change = (sequence: number, quantity: number) => send(ublOrderChange({ id: `CH-${sequence}`, orderId: 'PO-SEQ', sequence, lines: [{ sellers: 'BV-STD', status: '3', quantity }] }));
    assert.equal((await change(2, 20)).outcome.orders[0]?.versione, 2);
    const late = (await change(1, 10)).outcome.orders[0]!;
    assert.deepEqual(late.errori, [{ campo: 'SequenceNumberID', messaggio: 'La modifica numero 1 è precedente alla modifica numero 2, già ricevuta: non viene applicata' }]);
    assert.equal((await store.getOrder(principal.customerId, id))?.righe[0]?.quantita, 20, 'the later change stands');
    assert.equal((await change(3, 30)).outcome.orders[0]?.versione, 3);
    assert.equal(await store.ublChangeSequence(id), 3);
  });
});
