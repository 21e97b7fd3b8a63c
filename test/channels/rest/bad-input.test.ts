// Forged values in the REST API's lookups and bodies, on both stores (SQLite, and PostgreSQL on a fresh schema). A NUL
// is in no stored id, reference or note: PostgreSQL cannot even compare one with a text column, so a lookup naming
// one must answer what any lookup naming nothing answers (404), and a body carrying one a 400 or the order's own
// refusal, never a 500 from the store.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { run } from '../files/helpers.ts';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { createSchema, PG_SKIP, testDatabaseUrl, type TestSchema } from '../../store/pg-schema.ts';

for (const engine of ['sqlite', 'postgres'] as const) {
  void describe(`REST: a NUL in a lookup or a body (${engine})`, { skip: engine === 'postgres' ? PG_SKIP : false }, () => {
    let t: TestService;
    let schema: TestSchema | undefined;
    let a: TestCustomer;
    let mis: string;
    let id: string;

    before(async () => {
      if (engine === 'postgres') schema = await createSchema(testDatabaseUrl!, 'restnul');
      t = await startTestService(schema ? { INTAKE_DATABASE_URL: schema.url } : {});
      a = await t.customer('C001');
      mis = (await addIntegration(t.service.store, 'MIS')).api_key;
      const res = await fetch(`${t.url}/api/v1/ordini`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': a.apiKey }, body: JSON.stringify(order('C001', 'R1')),
      });
      assert.equal(res.status, 201);
      id = ((await res.json()) as { id_ordine: string }).id_ordine;
    });

    after(async () => {
      await t?.close();
      await schema?.drop();
    });

    const send = async (method: string, path: string, key: string, body?: string) => {
      const res = await fetch(`${t.url}${path}`, {
        method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body,
      });
      return { status: res.status, body: (await res.json()) as { statusCode?: number; message?: string | string[]; esito?: string } };
    };

    void it('a status lookup by an id or a reference holding a NUL is not found', async () => {
      for (const path of [`/api/v1/ordini/${id}%00`, '/api/v1/ordini/%00', '/api/v1/ordini?riferimento_ordine=R1%00', '/api/v1/ordini?riferimento_ordine=%00x']) {
        const r = await send('GET', path, a.apiKey);
        assert.equal(r.status, 404, `${path}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.statusCode, 404, path);
      }
      // The real order is still there, for its owner.
      assert.equal((await send('GET', `/api/v1/ordini/${id}`, a.apiKey)).status, 200);
    });

    void it('a production status for an id holding a NUL is not found; a note holding one is refused with 400', async () => {
      const r = await send('POST', `/api/v1/ordini/${id}%00/stato`, mis, JSON.stringify({ stato: 'in_lavorazione' }));
      assert.equal(r.status, 404, JSON.stringify(r.body));
      const n = await send('POST', `/api/v1/ordini/${id}/stato`, mis, JSON.stringify({ stato: 'in_lavorazione', nota: 'lastra\u0000 pronta' }));
      assert.equal(n.status, 400, JSON.stringify(n.body));
      assert.match(String(n.body.message), /nota/);
      const ok = await send('POST', `/api/v1/ordini/${id}/stato`, mis, JSON.stringify({ stato: 'in_lavorazione', nota: 'lastra pronta' }));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
    });

    void it('a note holding half a UTF-16 surrogate pair is refused with 400 INVALID_PARAMETERS', async () => {
      // The JSON escape as an exporter that cut a string inside an emoji writes it; PostgreSQL cannot store it.
      const r = await run('curl', ['-sS', '-w', '\n%{http_code}', '-X', 'POST', '-H', 'content-type: application/json', '-H', `x-api-key: ${mis}`,
        '--data-binary', '@-', `${t.url}/api/v1/ordini/${id}/stato`], '{"stato":"spedito","nota":"BRT \\ud83c 123"}');
      assert.equal(r.code, 0, r.stderr);
      const [json, status] = [r.stdout.slice(0, r.stdout.lastIndexOf('\n')), r.stdout.slice(r.stdout.lastIndexOf('\n') + 1)];
      assert.equal(status, '400', json);
      const body = JSON.parse(json) as { code: string; message: string[] };
      assert.equal(body.code, 'INVALID_PARAMETERS');
      assert.match(body.message.join(), /nota/);
      const seen = await send('GET', `/api/v1/ordini/${id}`, a.apiKey);
      assert.equal(seen.status, 200, 'the order is still served');
    });

    void it('an order whose fields hold a NUL is refused with the outcome\'s own error, and kept', async () => {
      const o = order('C001', 'R\u00002');
      const r = await send('POST', '/api/v1/ordini', a.apiKey, JSON.stringify(o));
      assert.ok(r.status === 400 || r.status === 422, `${r.status} ${JSON.stringify(r.body)}`);
      const subs = await t.service.store.listSubmissions({ limit: 10 });
      assert.equal(subs.length, 2, 'the refused body is kept with its outcome');
    });
  });
}
