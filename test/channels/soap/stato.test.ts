import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { envelope, faultOf, inviaOrdine, post, statoOrdine } from './helpers.ts';

let t: TestService;
let c1: TestCustomer;
let c2: TestCustomer;
let ns: string;
/** The order C001 registered by REST in before(). */
let rest: { id_ordine: string; numero_ordine: string };

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
  c2 = await t.customer('C002');
  ns = `${t.url}/ws/ordini`;
  const res = await fetch(`${t.url}/api/v1/ordini`, {
    method: 'POST', body: JSON.stringify(order('C001', 'ST-1')), headers: { 'content-type': 'application/json', 'x-api-key': c1.apiKey },
  });
  assert.equal(res.status, 201);
  rest = (await res.json()) as typeof rest;
});
after(() => t.close());

function view(a: { status: number; text: string; body: Record<string, unknown> }): Record<string, unknown> {
  assert.equal(a.status, 200, a.text);
  const v = a.body.StatoOrdineResponse as Record<string, unknown> | undefined;
  assert.ok(v, 'a StatoOrdineResponse');
  return v;
}

void describe('SOAP StatoOrdine', () => {
  void it('by id_ordine: the registered order, whatever channel brought it (here REST)', async () => {
    const v = view(await post(t.url, statoOrdine(ns, c1.apiKey, `<ord:id_ordine>${rest.id_ordine}</ord:id_ordine>`)));
    const registratoIl = v.registrato_il as string;
    assert.ok(!Number.isNaN(Date.parse(registratoIl)));
    assert.deepEqual(v, {
      stato: 'registrato', id_ordine: rest.id_ordine, numero_ordine: rest.numero_ordine,
      codice_cliente: 'C001', riferimento_ordine: 'ST-1', data_ordine: '2026-11-20', data_consegna: '2026-12-01',
      righe: { riga: [
        { codice_articolo: 'BV-STD', quantita: '500', unita_misura: 'PZ' },
        { codice_articolo: 'VOL-A4', quantita: '1000', unita_misura: 'PZ' },
      ] },
      canale: 'rest', registrato_il: registratoIl,
      versione: '1', versioni: { versione: { versione: '1', ricevuto_il: registratoIl, canale: 'rest', azione: 'nuovo' } },
    });
  });

  void it('by riferimento_ordine, unprefixed and with white space around it: the same view as REST shows', async () => {
    const v = view(await post(t.url, envelope(ns, c1.apiKey, `<StatoOrdine xmlns="${ns}"><riferimento_ordine> ST-1 </riferimento_ordine></StatoOrdine>`)));
    const r = await fetch(`${t.url}/api/v1/ordini?riferimento_ordine=ST-1`, { headers: { 'x-api-key': c1.apiKey } });
    const json = (await r.json()) as Record<string, unknown>;
    assert.equal(v.id_ordine, json.id_ordine);
    assert.equal(v.numero_ordine, json.numero_ordine);
    assert.equal(v.stato, json.stato);
    assert.equal(v.registrato_il, json.registrato_il);
  });

  void it('an order refused for business reasons: stato rifiutato with its errori', async () => {
    await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'ST-2', { lines: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] }));
    const v = view(await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>ST-2</ord:riferimento_ordine>')));
    assert.equal(v.stato, 'rifiutato');
    assert.equal(v.canale, 'soap');
    assert.equal(v.riferimento_ordine, 'ST-2');
    assert.deepEqual(v.errori, { errore: [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "NOPE"' }] });
  });

  void it('an order refused for its structure: stato rifiutato with the messages', async () => {
    await post(t.url, envelope(ns, c1.apiKey,
      '<ord:InviaOrdine><ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>ST-3</ord:riferimento_ordine>'
      + '<ord:data_ordine>2026-11-20</ord:data_ordine><ord:righe/></ord:InviaOrdine>'));
    const v = view(await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>ST-3</ord:riferimento_ordine>')));
    assert.equal(v.stato, 'rifiutato');
    assert.deepEqual(v.messaggi, { messaggio: ['righe must contain at least 1 elements'] });
  });

  void it('unknown id and unknown reference: Client fault, order not found', async () => {
    const byId = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:id_ordine>0190f0e0-0000-7000-8000-000000000000</ord:id_ordine>'));
    assert.deepEqual(faultOf(byId), { faultcode: 'soap:Client', faultstring: 'Order 0190f0e0-0000-7000-8000-000000000000 not found' });
    const byRef = await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:riferimento_ordine>MAI-VISTO</ord:riferimento_ordine>'));
    assert.deepEqual(faultOf(byRef), { faultcode: 'soap:Client', faultstring: 'No order with riferimento_ordine "MAI-VISTO"' });
  });

  void it("another customer's order does not exist for this one, by id or by reference", async () => {
    const byId = await post(t.url, statoOrdine(ns, c2.apiKey, `<ord:id_ordine>${rest.id_ordine}</ord:id_ordine>`));
    assert.deepEqual(faultOf(byId), { faultcode: 'soap:Client', faultstring: `Order ${rest.id_ordine} not found` });
    const byRef = await post(t.url, statoOrdine(ns, c2.apiKey, '<ord:riferimento_ordine>ST-1</ord:riferimento_ordine>'));
    assert.deepEqual(faultOf(byRef), { faultcode: 'soap:Client', faultstring: 'No order with riferimento_ordine "ST-1"' });
  });

  void it('neither or both of id_ordine and riferimento_ordine, or a repeated one: Client fault with detail', async () => {
    const neither = faultOf(await post(t.url, statoOrdine(ns, c1.apiKey, '')));
    assert.deepEqual(neither, {
      faultcode: 'soap:Client',
      faultstring: 'id_ordine or riferimento_ordine should not be empty',
      detail: ['id_ordine or riferimento_ordine should not be empty'],
    });
    const both = faultOf(await post(t.url, statoOrdine(ns, c1.apiKey, `<ord:id_ordine>${rest.id_ordine}</ord:id_ordine><ord:riferimento_ordine>ST-1</ord:riferimento_ordine>`)));
    assert.deepEqual(both.detail, ['StatoOrdine takes either id_ordine or riferimento_ordine, not both']);
    const twice = faultOf(await post(t.url, statoOrdine(ns, c1.apiKey, '<ord:id_ordine>a</ord:id_ordine><ord:id_ordine>b</ord:id_ordine>')));
    assert.deepEqual(twice.detail, ['id_ordine must be a string']);
  });
});
