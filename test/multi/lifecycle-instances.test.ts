// Changes to one order sent at once to three service instances on one PostgreSQL database: every change makes its own
// version (2, 3, … with no gap and no repeat), whichever instance took it, with no lock wider than the order's row;
// with If-Match the same version is won by one change only, the others get 412; production decides a request on any
// instance. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { order, startTestService, type TestService } from '../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';

void describe('lifecycle across instances (PostgreSQL)', { skip: PG_SKIP }, () => {
  void it('numbers concurrent versions without repeats on three instances, and gives If-Match losers 412', { timeout: 120_000 }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'lifecycle_multi');
    const instances: TestService[] = [];
    try {
      for (let k = 0; k < 3; k++) instances.push(await startTestService({ INTAKE_DATABASE_URL: schema.url }));
      const c = await instances[0]!.customer('C001');
      const mis = (await addIntegration(instances[0]!.service.store, 'MIS')).api_key;
      const call = async (k: number, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, key = c.apiKey) => {
        const res = await fetch(`${instances[k % 3]!.url}${path}`, {
          method, headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, body: (await res.json()) as Record<string, unknown> };
      };
      const created = await call(0, 'POST', '/api/v1/ordini', order('C001', 'M-1'));
      assert.equal(created.status, 201);
      const id = created.body.id_ordine as string;
      const changed = (q: number) => order('C001', 'M-1', { righe: [{ codice_articolo: 'BV-STD', quantita: q, unita_misura: 'PZ' }] });

      const N = 15;
      const all = await Promise.all(Array.from({ length: N }, (_, i) => call(i, 'PUT', `/api/v1/ordini/${id}`, changed(100 + i))));
      assert.deepEqual(all.map((r) => r.status), Array(N).fill(200));
      assert.deepEqual(all.map((r) => r.body.versione as number).sort((a, b) => a - b), Array.from({ length: N }, (_, i) => i + 2));
      const view = await call(1, 'GET', `/api/v1/ordini/${id}`);
      assert.equal(view.body.versione, N + 1);
      assert.deepEqual((view.body.versioni as { versione: number }[]).map((v) => v.versione), Array.from({ length: N + 1 }, (_, i) => i + 1));

      const current = `"${N + 1}"`;
      const raced = await Promise.all(Array.from({ length: 6 }, (_, i) => call(i, 'PUT', `/api/v1/ordini/${id}`, changed(900 + i), { 'if-match': current })));
      assert.deepEqual(raced.map((r) => r.status).sort(), [200, 412, 412, 412, 412, 412]);

      // Production started: a change is a request, decided on another instance than the one that took it.
      assert.equal((await call(2, 'POST', `/api/v1/ordini/${id}/stato`, { stato: 'in_lavorazione' }, {}, mis)).status, 200);
      const asked = await Promise.all([0, 1, 2].map((k) => call(k, 'POST', `/api/v1/ordini/${id}/annulla`, { motivo: `da ${k}` })));
      assert.deepEqual(asked.map((r) => r.status).sort(), [202, 409, 409], 'one request waits; the others are told one waits');
      const rid = asked.find((r) => r.status === 202)!.body.id_richiesta as string;
      const decided = await Promise.all([0, 1, 2].map((k) => call(k, 'POST', `/api/v1/ordini/${id}/richieste/${rid}`, { esito: 'accettata' }, {}, mis)));
      assert.deepEqual(decided.map((r) => r.status), [200, 200, 200]);
      assert.equal(decided.filter((r) => r.body.aggiornato === true).length, 1, 'the decision is applied once');
      assert.equal((await call(0, 'GET', `/api/v1/ordini/${id}`)).body.stato, 'annullato');
    } finally {
      for (const t of instances) await t.close();
      await schema.drop();
    }
  });
});
