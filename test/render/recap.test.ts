// The recap's gathering (src/render/recap.ts) against a small fake of its port: the budget of orders and lines, the
// count of what is left out, duplicates read once, reads scoped to the customer given, quantities written one way.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gatherRecap, quantityText, recapTextLines, type RecapPort } from '../../src/render/recap.ts';
import type { OrderOutcome, RegisteredOrder } from '../../src/domain/types.ts';

function registered(id: string, lines: number): RegisteredOrder {
  return {
    id_ordine: id, numero_ordine: `2026-${id.padStart(6, '0')}`, customerId: 'cust', submissionId: 's', channel: 'ftp', versione: 1,
    registeredAt: '2026-11-28T10:00:00.000Z', codice_cliente: 'C001', riferimento_ordine: `R${id}`, data_ordine: '2026-11-20',
    righe: Array.from({ length: lines }, (_, i) => ({ codice_articolo: i % 2 ? 'VOL-A4' : 'BV-STD', quantita: i % 2 ? 2.5 : 1500, unita_misura: 'PZ' })),
  };
}

function fakePort(orders: RegisteredOrder[]): RecapPort & { reads: { customerId: string; ids: readonly string[] }[] } {
  const reads: { customerId: string; ids: readonly string[] }[] = [];
  return {
    reads,
    getOrders(customerId, ids) {
      reads.push({ customerId, ids });
      return Promise.resolve(orders.filter((o) => o.customerId === customerId && ids.includes(o.id_ordine)));
    },
    articleDescriptions: (codes) => Promise.resolve(new Map(codes.filter((c) => c === 'BV-STD').map((c) => [c, 'Biglietti da visita']))),
  };
}

const ok = (index: number, id: string, duplicate = false): OrderOutcome => ({ index, esito: 'ok', id_ordine: id, numero_ordine: id, duplicate });

void describe('gatherRecap', () => {
  void it('stops at the line budget inside an order, counts the lines and the orders left out', async () => {
    const port = fakePort([registered('1', 3), registered('2', 4), registered('3', 2)]);
    const recap = await gatherRecap(port, 'cust', [ok(0, '1'), { index: 1, esito: 'errore' }, ok(2, '2'), ok(3, '3')], { orders: 10, lines: 5 });
    assert.equal(recap.byOrder.get('1')!.righe.length, 3);
    assert.deepEqual([recap.byOrder.get('2')!.righe.length, recap.byOrder.get('2')!.altre], [2, 2]);
    assert.equal(recap.byOrder.has('3'), false);
    assert.equal(recap.omittedOrders, 1);
    assert.deepEqual(recapTextLines(recap.byOrder.get('2')!), [
      '    BV-STD (Biglietti da visita): 1500 PZ', '    VOL-A4: 2,5 PZ', '    … e altre 2 righe',
    ]);
  });

  void it('stops at the order budget; a duplicate of an order already recapped is read once', async () => {
    const port = fakePort([registered('1', 1), registered('2', 1), registered('3', 1)]);
    const recap = await gatherRecap(port, 'cust', [ok(0, '1'), ok(1, '1', true), ok(2, '2'), ok(3, '3')], { orders: 2, lines: 100 });
    assert.deepEqual([...recap.byOrder.keys()], ['1', '2']);
    assert.equal(recap.omittedOrders, 1);
    assert.deepEqual(port.reads, [{ customerId: 'cust', ids: ['1', '2'] }]);
  });

  void it('reads only the customer\'s orders', async () => {
    const port = fakePort([{ ...registered('1', 1), customerId: 'other' }]);
    const recap = await gatherRecap(port, 'cust', [ok(0, '1')], { orders: 10, lines: 10 });
    assert.equal(recap.byOrder.size, 0);
    assert.equal(port.reads[0]!.customerId, 'cust');
  });

  void it('writes integers without a thousands separator and decimals with a comma', () => {
    assert.deepEqual([1500, 2.5, 1000000, 0.125].map(quantityText), ['1500', '2,5', '1000000', '0,125']);
  });
});
