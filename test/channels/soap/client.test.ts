import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createClientAsync, type Client } from 'soap';
import { startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';

let t: TestService;
let c1: TestCustomer;
let ns: string;

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
  ns = `${t.url}/ws/ordini`;
});
after(() => t.close());

/** A node-soap client built from the served WSDL, with the key in the Autenticazione header as the WSDL declares. */
async function client(key: string): Promise<Client> {
  const c = await createClientAsync(`${t.url}/ws/ordini?wsdl`);
  c.addSoapHeader({ Autenticazione: { ApiKey: key } }, 'Autenticazione', 'ord', ns);
  return c;
}

const ORDER = {
  codice_cliente: 'C001',
  riferimento_ordine: 'NS-1',
  data_ordine: '2026-11-20',
  data_consegna: '2026-12-01',
  righe: { riga: [
    { codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' },
    { codice_articolo: 'CAR-A4-80', quantita: 2.5, unita_misura: 'RS' },
  ] },
};

void describe('node-soap client from the served WSDL', () => {
  void it('describes every operation with their input and output', async () => {
    const c = await client(c1.apiKey);
    const d = c.describe() as Record<string, Record<string, Record<string, unknown>>>;
    const port = d.OrdiniService?.OrdiniPort;
    assert.ok(port, JSON.stringify(d));
    assert.deepEqual(Object.keys(port).sort(), ['AnnullaOrdine', 'InviaOrdine', 'ModificaOrdine', 'StatoOrdine']);
  });

  void it('InviaOrdine registers the order; again it is a duplicate with the same numbers', async () => {
    const c = await client(c1.apiKey);
    const [first] = (await c.InviaOrdineAsync(ORDER)) as [Record<string, unknown>];
    assert.equal(first.esito, 'ok');
    assert.match(String(first.numero_ordine), /^\d{4}-\d{6}$/);
    assert.equal(first.messaggio, 'Ordine ricevuto ed elaborato correttamente');
    assert.equal(first.duplicato, undefined);
    const [again] = (await c.InviaOrdineAsync(ORDER)) as [Record<string, unknown>];
    assert.equal(again.id_ordine, first.id_ordine);
    assert.equal(again.numero_ordine, first.numero_ordine);
    assert.equal(again.duplicato, true);
  });

  void it('StatoOrdine by id and by reference returns the registered order, typed as the schema says', async () => {
    const c = await client(c1.apiKey);
    const [sent] = (await c.InviaOrdineAsync({ ...ORDER, riferimento_ordine: 'NS-2' })) as [Record<string, unknown>];
    const [byId] = (await c.StatoOrdineAsync({ id_ordine: sent.id_ordine })) as [Record<string, unknown>];
    assert.equal(byId.stato, 'registrato');
    assert.equal(byId.numero_ordine, sent.numero_ordine);
    assert.equal(byId.canale, 'soap');
    const righe = (byId.righe as { riga: { codice_articolo: string; quantita: unknown }[] }).riga;
    assert.deepEqual(righe.map((r) => r.codice_articolo), ['BV-STD', 'CAR-A4-80']);
    assert.equal(Number(righe[1]!.quantita), 2.5);
    const [byRef] = (await c.StatoOrdineAsync({ riferimento_ordine: 'NS-2' })) as [Record<string, unknown>];
    assert.equal(byRef.id_ordine, sent.id_ordine);
  });

  void it('business errors arrive as esito errore with errori', async () => {
    const c = await client(c1.apiKey);
    const [r] = (await c.InviaOrdineAsync({
      ...ORDER, riferimento_ordine: 'NS-3', righe: { riga: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] },
    })) as [{ esito: string; errori: { errore: unknown } }];
    assert.equal(r.esito, 'errore');
    const list = ([] as unknown[]).concat(r.errori.errore);
    assert.deepEqual(list, [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "NOPE"' }]);
  });

  void it('a wrong key and a structure error reach the client as SOAP faults', async () => {
    const wrong = await client('not-a-key');
    await assert.rejects(wrong.InviaOrdineAsync({ ...ORDER, riferimento_ordine: 'NS-4' }), (err: { root?: { Envelope?: { Body?: { Fault?: Record<string, unknown> } } } }) => {
      const f = err.root?.Envelope?.Body?.Fault;
      assert.equal(f?.faultcode, 'soap:Client');
      assert.equal(f?.faultstring, 'Invalid API key');
      return true;
    });
    const c = await client(c1.apiKey);
    await assert.rejects(c.InviaOrdineAsync({ ...ORDER, riferimento_ordine: 'NS-5', righe: {} }), (err: { root?: { Envelope?: { Body?: { Fault?: Record<string, unknown> } } } }) => {
      const f = err.root?.Envelope?.Body?.Fault;
      assert.equal(f?.faultcode, 'soap:Client');
      assert.equal(f?.faultstring, 'righe must contain at least 1 elements');
      assert.ok(JSON.stringify(f?.detail).includes('righe must contain at least 1 elements'));
      return true;
    });
  });
});
