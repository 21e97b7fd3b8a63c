import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';

let t: TestService;
let c1: TestCustomer;
let c2: TestCustomer;

async function post(body: string | Buffer, type = 'application/json', key: string | null = c1.apiKey) {
  const headers: Record<string, string> = { 'content-type': type };
  if (key !== null) headers['x-api-key'] = key;
  const res = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', body, headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
  c2 = await t.customer('C002');
});
after(() => t.close());

describe('REST authentication and tenancy', () => {
  it('401 without a key and with a wrong key, in the {statusCode, message, error} form', async () => {
    const none = await post(JSON.stringify(order('C001', 'U-1')), 'application/json', null);
    assert.deepEqual(none, { status: 401, body: { statusCode: 401, message: 'Missing X-API-Key header', error: 'Unauthorized', code: 'API_KEY_MISSING' } });
    const wrong = await post(JSON.stringify(order('C001', 'U-1')), 'application/json', c1.apiKey.slice(0, -1) + (c1.apiKey.endsWith('a') ? 'b' : 'a'));
    assert.deepEqual(wrong, { status: 401, body: { statusCode: 401, message: 'Invalid API key', error: 'Unauthorized', code: 'API_KEY_INVALID' } });
    const garbage = await post(JSON.stringify(order('C001', 'U-1')), 'application/json', 'not-a-key');
    assert.equal(garbage.status, 401);
  });

  it("403 when the order names another customer's code; nothing registered", async () => {
    const r = await post(JSON.stringify(order('C002', 'T-1')));
    assert.equal(r.status, 403);
    assert.equal(r.body.error, 'Forbidden');
    const seen = await fetch(`${t.url}/api/v1/ordini?riferimento_ordine=T-1`, { headers: { 'x-api-key': c2.apiKey } });
    assert.equal(seen.status, 404);
  });

  it("404 for another customer's order, by id and by reference", async () => {
    const r = await post(JSON.stringify(order('C001', 'T-2')));
    assert.equal(r.status, 201);
    const byId = await fetch(`${t.url}/api/v1/ordini/${r.body.id_ordine}`, { headers: { 'x-api-key': c2.apiKey } });
    assert.equal(byId.status, 404);
    const byRef = await fetch(`${t.url}/api/v1/ordini?riferimento_ordine=T-2`, { headers: { 'x-api-key': c2.apiKey } });
    assert.equal(byRef.status, 404);
    const own = await fetch(`${t.url}/api/v1/ordini/${r.body.id_ordine}`, { headers: { 'x-api-key': c1.apiKey } });
    assert.equal(own.status, 200);
  });

  it('the same reference is a separate order for another customer', async () => {
    const a = await post(JSON.stringify(order('C001', 'SAME')));
    const b = await post(JSON.stringify(order('C002', 'SAME')), 'application/json', c2.apiKey);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    assert.notEqual(a.body.id_ordine, b.body.id_ordine);
  });
});

describe('REST validation errors', () => {
  it('stage A: shape A with class-validator wording for a missing codice_cliente and empty righe', async () => {
    const r = await post(JSON.stringify({ riferimento_ordine: 'V-1', data_ordine: '2026-11-20', righe: [] }));
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, {
      statusCode: 400,
      message: ['codice_cliente should not be empty', 'codice_cliente must be a string', 'righe must contain at least 1 elements'],
      error: 'Bad Request',
      code: 'VALIDATION',
    });
  });

  it('stage A: wrong types, impossible dates, non-positive quantities, nested paths', async () => {
    const r = await post(JSON.stringify({
      codice_cliente: 42, riferimento_ordine: 'V-2', data_ordine: '2026-02-30', data_consegna: '01/12/2026',
      righe: [{ codice_articolo: 'BV-STD', quantita: 0, unita_misura: 'PZ' }, { codice_articolo: 7, quantita: '3', unita_misura: '' }],
    }));
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.message, [
      'codice_cliente must be a string',
      'data_ordine must be a valid ISO 8601 date string (YYYY-MM-DD)',
      'data_consegna must be a valid ISO 8601 date string (YYYY-MM-DD)',
      'righe.0.quantita must be a positive number',
      'righe.1.codice_articolo must be a string',
      'righe.1.quantita must be a number conforming to the specified constraints',
      'righe.1.unita_misura should not be empty',
    ]);
  });

  it('a CSV body keeps shapes A and B exactly: the file rows people are told stay out of the answer', async () => {
    const head = 'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura';
    const a = await post(`${head}\nC001;V-CSV-1;2026-11-20;BV-STD;1;PZ\nC001;V-CSV-1;2026-11-20;BV-STD;tanti;PZ\n`, 'text/csv');
    assert.deepEqual(a, {
      status: 400,
      body: { statusCode: 400, message: ['righe.1.quantita must be a number conforming to the specified constraints'], error: 'Bad Request', code: 'VALIDATION' },
    });
    const b = await post(`${head}\nC001;V-CSV-2;2026-11-20;XYZ-404;1;PZ\n`, 'text/csv');
    assert.deepEqual(b, { status: 400, body: { esito: 'errore', errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "XYZ-404"' }], code: 'BUSINESS' } });
  });

  it('stage B: shape B with the path of the unknown article and unit, in Italian', async () => {
    const r = await post(JSON.stringify(order('C001', 'V-3', {
      righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }, { codice_articolo: 'XYZ-404', quantita: 2, unita_misura: 'BOH' }],
    })));
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, {
      esito: 'errore',
      errori: [
        { campo: 'righe[1].codice_articolo', messaggio: 'Articolo sconosciuto: "XYZ-404"' },
        { campo: 'righe[1].unita_misura', messaggio: 'Unità di misura sconosciuta: "BOH"' },
      ],
      code: 'BUSINESS',
    });
  });

  it('stage B: a delivery date before the order date', async () => {
    const r = await post(JSON.stringify(order('C001', 'V-4', { data_consegna: '2026-11-01' })));
    assert.equal(r.status, 400);
    assert.equal((r.body.errori as { campo: string }[])[0]!.campo, 'data_consegna');
  });

  it('415 for a media type the channel does not take, and for none', async () => {
    const r = await post('hello', 'text/plain');
    assert.equal(r.status, 415);
    assert.equal(r.body.error, 'Unsupported Media Type');
    const none = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', headers: { 'x-api-key': c1.apiKey } });
    assert.equal(none.status, 415);
  });

  it('404 in the same form for an unknown route; /healthz answers 200', async () => {
    const r = await fetch(`${t.url}/api/v2/ordini`);
    assert.equal(r.status, 404);
    assert.equal(((await r.json()) as { error: string }).error, 'Not Found');
    const h = await fetch(`${t.url}/healthz`);
    assert.equal(h.status, 200);
    assert.deepEqual(await h.json(), { status: 'ok', store: 'sqlite' });
  });

  it('serves the OpenAPI document and the interactive docs', async () => {
    const doc = (await (await fetch(`${t.url}/api/docs/json`)).json()) as { openapi: string; paths: Record<string, unknown> };
    assert.match(doc.openapi, /^3\./);
    assert.ok(doc.paths['/api/v1/ordini']);
    const ui = await fetch(`${t.url}/api/docs/`);
    assert.equal(ui.status, 200);
    assert.match(await ui.text(), /swagger/i);
  });
});

describe('REST refuses control characters in codes', () => {
  it('a NUL inside riferimento_ordine is a stage A error, not a store failure', async () => {
    const r = await post(JSON.stringify(order('C001', 'NUL\u0000REF')));
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.message, ['riferimento_ordine must not contain control characters']);
  });
});

describe('REST error codes', () => {
  it('every refusal names its catalog code: unknown media type, unknown route, unknown order', async () => {
    const unsupported = await post('x', 'application/pdf');
    assert.equal(unsupported.status, 415);
    assert.equal(unsupported.body.code, 'UNSUPPORTED_MEDIA_TYPE');
    const route = await fetch(`${t.url}/api/v1/nessuna-rotta`, { headers: { 'x-api-key': c1.apiKey } });
    assert.equal(route.status, 404);
    assert.equal(((await route.json()) as { code?: string }).code, 'ROUTE_NOT_FOUND');
    const missing = await fetch(`${t.url}/api/v1/ordini/019a0000-0000-7000-8000-000000000000`, { headers: { 'x-api-key': c1.apiKey } });
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code?: string }).code, 'ORDER_NOT_FOUND');
  });
});
