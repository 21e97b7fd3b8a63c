import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import iconv from 'iconv-lite';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';

let t: TestService;
let c1: TestCustomer;

async function post(body: string | Buffer, type: string, key = c1.apiKey, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', body, headers: { 'content-type': type, 'x-api-key': key, ...headers } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
});
after(() => t.close());

describe('REST submission of each format', () => {
  it('registers a JSON order: 201 shape A, a numero_ordine of the year, a Location to its status', async () => {
    const r = await post(JSON.stringify(order('C001', 'J-1')), 'application/json');
    assert.equal(r.status, 201);
    assert.equal(r.body.esito, 'ok');
    assert.match(String(r.body.id_ordine), /^[0-9a-f-]{36}$/);
    assert.match(String(r.body.numero_ordine), /^\d{4}-\d{6}$/);
    assert.equal(typeof r.body.messaggio, 'string');
    assert.equal(r.headers.get('location'), `/api/v1/ordini/${r.body.id_ordine}`);
    const status = await fetch(`${t.url}${r.headers.get('location')}`, { headers: { 'x-api-key': c1.apiKey } });
    const view = (await status.json()) as Record<string, unknown>;
    assert.equal(view.stato, 'registrato');
    assert.equal(view.numero_ordine, r.body.numero_ordine);
    assert.deepEqual(view.righe, order('C001', 'J-1').righe);
  });

  it('numbers orders in sequence', async () => {
    const a = await post(JSON.stringify(order('C001', 'SEQ-1')), 'application/json');
    const b = await post(JSON.stringify(order('C001', 'SEQ-2')), 'application/json');
    const seq = (n: unknown) => Number(String(n).split('-')[1]);
    assert.equal(seq(b.body.numero_ordine), seq(a.body.numero_ordine) + 1);
  });

  it('registers an XML order with namespace prefixes (application/xml and text/xml)', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<ord:ordine xmlns:ord="urn:example:ordini">
  <ord:codice_cliente>C001</ord:codice_cliente><ord:riferimento_ordine>X-1</ord:riferimento_ordine>
  <ord:data_ordine>2026-11-20</ord:data_ordine><ord:data_consegna>2026-12-01</ord:data_consegna>
  <ord:righe><ord:riga><ord:codice_articolo>BV-STD</ord:codice_articolo><ord:quantita>250</ord:quantita><ord:unita_misura>PZ</ord:unita_misura></ord:riga></ord:righe>
</ord:ordine>`;
    const r = await post(xml, 'application/xml');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const r2 = await post(xml.replaceAll('X-1', 'X-2'), 'text/xml; charset=utf-8');
    assert.equal(r2.status, 201, JSON.stringify(r2.body));
  });

  it('registers a Windows-1252 CSV order with decimal comma', async () => {
    const csv = 'Codice_Cliente;Riferimento_Ordine;Data_Ordine;Data_Consegna;Codice_Articolo;Quantita;Unita_Misura;Note\r\n'
      + 'C001;CSV-1;2026-11-20;2026-12-01;CAR-A4-80;2,5;RS;consegna entro le 12 - però non sabato\r\n'
      + 'C001;CSV-1;2026-11-20;2026-12-01;BV-STD;1000;pz;€ fattura\r\n';
    const r = await post(iconv.encode(csv, 'win1252'), 'text/csv');
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const view = (await (await fetch(`${t.url}/api/v1/ordini?riferimento_ordine=CSV-1`, { headers: { 'x-api-key': c1.apiKey } })).json()) as { righe: unknown[] };
    assert.deepEqual(view.righe, [
      { codice_articolo: 'CAR-A4-80', quantita: 2.5, unita_misura: 'RS' },
      { codice_articolo: 'BV-STD', quantita: 1000, unita_misura: 'PZ' },
    ]);
  });

  it('refuses a CSV holding several orders with a clear error', async () => {
    const csv = 'codice_cliente,riferimento_ordine,data_ordine,codice_articolo,quantita,unita_misura\n'
      + 'C001,M-1,2026-11-20,BV-STD,10,PZ\nC001,M-2,2026-11-20,BV-STD,10,PZ\n';
    const r = await post(csv, 'text/csv');
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'Bad Request');
    assert.match(String((r.body.message as string[])[0]), /holds 2 orders: send one order per request/);
  });
});

describe('REST duplicates and conflicts', () => {
  it('answers 200 with the same numbers for the same order sent again, by any format', async () => {
    const first = await post(JSON.stringify(order('C001', 'D-1')), 'application/json');
    assert.equal(first.status, 201);
    const again = await post(JSON.stringify(order('C001', 'D-1')), 'application/json');
    assert.equal(again.status, 200);
    assert.equal(again.body.duplicato, true);
    assert.equal(again.body.id_ordine, first.body.id_ordine);
    assert.equal(again.body.numero_ordine, first.body.numero_ordine);
    const csv = 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura\n'
      + 'C001;D-1;2026-11-20;2026-12-01;BV-STD;500;PZ\nC001;D-1;2026-11-20;2026-12-01;VOL-A4;1000;PZ\n';
    const asCsv = await post(csv, 'text/csv');
    assert.equal(asCsv.status, 200);
    assert.equal(asCsv.body.numero_ordine, first.body.numero_ordine);
  });

  it('answers 409 in shape B when the reference was used with different content', async () => {
    await post(JSON.stringify(order('C001', 'D-2')), 'application/json');
    const other = order('C001', 'D-2', { data_consegna: '2026-12-24' });
    const r = await post(JSON.stringify(other), 'application/json');
    assert.equal(r.status, 409);
    assert.equal(r.body.esito, 'errore');
    assert.equal((r.body.errori as { campo: string }[])[0]!.campo, 'riferimento_ordine');
  });

  it('answers 202 shape B with Prefer: respond-async, and the order is registered in the background', async () => {
    const r = await post(JSON.stringify(order('C001', 'A-1')), 'application/json', c1.apiKey, { prefer: 'respond-async' });
    assert.equal(r.status, 202);
    assert.equal(r.body.esito, 'ok');
    assert.equal(r.body.numero_ordine, undefined);
    assert.equal(r.headers.get('location'), `/api/v1/ordini/${r.body.id_ordine}`);
    await t.service.intake.idle();
    const view = (await (await fetch(`${t.url}/api/v1/ordini/${r.body.id_ordine}`, { headers: { 'x-api-key': c1.apiKey } })).json()) as Record<string, unknown>;
    assert.equal(view.stato, 'registrato');
    assert.equal(view.id_ordine, r.body.id_ordine);
    assert.match(String(view.numero_ordine), /^\d{4}-\d{6}$/);
  });

  it('shows a refused async order as rifiutato with its errors', async () => {
    const r = await post(JSON.stringify(order('C001', 'A-2', { righe: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] })), 'application/json', c1.apiKey, { prefer: 'respond-async' });
    assert.equal(r.status, 202);
    await t.service.intake.idle();
    const view = (await (await fetch(`${t.url}/api/v1/ordini/${r.body.id_ordine}`, { headers: { 'x-api-key': c1.apiKey } })).json()) as Record<string, unknown>;
    assert.equal(view.stato, 'rifiutato');
    assert.deepEqual(view.errori, [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "NOPE"' }]);
    const byRef = (await (await fetch(`${t.url}/api/v1/ordini?riferimento_ordine=A-2`, { headers: { 'x-api-key': c1.apiKey } })).json()) as Record<string, unknown>;
    assert.equal(byRef.stato, 'rifiutato');
  });
});
