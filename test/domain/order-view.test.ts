import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { registeredView, VIEW_KEYS } from '../../src/domain/order-view.ts';
import type { RegisteredOrder } from '../../src/domain/types.ts';

const base: RegisteredOrder = {
  codice_cliente: 'C001', riferimento_ordine: 'R-1', data_ordine: '2026-01-15',
  righe: [{ codice_articolo: 'A1', quantita: 2, unita_misura: 'PZ' }],
  id_ordine: '0190f0f0-0000-7000-8000-000000000001', numero_ordine: '2026-000001', customerId: 'cust', submissionId: 'sub',
  channel: 'rest', registeredAt: '2026-01-15T10:00:00.000Z', versione: 1,
};

function inOrder(keys: string[]): boolean {
  const at = keys.map((k) => VIEW_KEYS.indexOf(k as never));
  return at.every((i, n) => i >= 0 && (n === 0 || i > at[n - 1]!));
}

void describe('registeredView', () => {
  void it('has no key without a value, and its keys in VIEW_KEYS order (the JSON of events and GET never differ)', () => {
    const v = registeredView(base);
    assert.deepEqual(Object.keys(v), ['stato', 'id_ordine', 'numero_ordine', 'codice_cliente', 'riferimento_ordine', 'data_ordine', 'righe', 'canale', 'registrato_il', 'versione']);
    assert.equal(JSON.stringify(v), '{"stato":"registrato","id_ordine":"0190f0f0-0000-7000-8000-000000000001","numero_ordine":"2026-000001",'
      + '"codice_cliente":"C001","riferimento_ordine":"R-1","data_ordine":"2026-01-15","righe":[{"codice_articolo":"A1","quantita":2,'
      + '"unita_misura":"PZ"}],"canale":"rest","registrato_il":"2026-01-15T10:00:00.000Z","versione":1}');
  });

  void it('shows the optional fields in their place when they have a value', () => {
    const v = registeredView({
      ...base, data_consegna: '2026-02-01', sito_produzione: 'S1', productionState: 'spedito',
      productionHistory: [{ stato: 'spedito', aggiornato_il: '2026-01-20T00:00:00.000Z' }],
    });
    const keys = Object.keys(v);
    assert.ok(inOrder(keys), keys.join(','));
    assert.deepEqual(keys.filter((k) => ['data_consegna', 'sito_produzione', 'stato_produzione', 'storico_produzione'].includes(k)),
      ['data_consegna', 'sito_produzione', 'stato_produzione', 'storico_produzione']);
    assert.deepEqual(v.storico_produzione, [{ stato: 'spedito', aggiornato_il: '2026-01-20T00:00:00.000Z' }]);
  });
});
