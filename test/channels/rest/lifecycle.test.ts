// The order lifecycle over real HTTP (server on port 0; curl for the customer's calls, fetch for the integration's),
// on SQLite and PostgreSQL: versions by PUT and by POST with `azione`, If-Match, cancellation, requests production
// decides once it has started, the states that refuse, the events every change writes, and concurrent changes that
// never make two of one version.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { order, startTestService, waitFor, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { run } from '../files/helpers.ts';
import { createSchema, PG_SKIP, testDatabaseUrl, type TestSchema } from '../../store/pg-schema.ts';

interface Answer { status: number; body: Record<string, unknown>; etag?: string }

for (const engine of ['sqlite', 'postgres'] as const) {
  void describe(`REST: order lifecycle (${engine})`, { skip: engine === 'postgres' ? PG_SKIP : false }, () => {
    let t: TestService;
    let schema: TestSchema | undefined;
    let c1: TestCustomer;
    let c2: TestCustomer;
    let mis: string;

    /** A customer's call with curl: status, JSON body and ETag. */
    const curl = async (method: string, path: string, body: unknown, key: string, headers: Record<string, string> = {}): Promise<Answer> => {
      const args = ['-sS', '-D', '-', '-X', method, '-H', `x-api-key: ${key}`];
      for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
      if (body !== undefined) args.push('-H', 'content-type: application/json', '--data-binary', JSON.stringify(body));
      const r = await run('curl', [...args, `${t.url}${path}`]);
      const [head, ...rest] = r.stdout.split('\r\n\r\n');
      const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head!)?.[1]);
      const etag = /^etag: (.+)$/im.exec(head!)?.[1]?.trim();
      return { status, body: JSON.parse(rest.join('\r\n\r\n')) as Record<string, unknown>, ...(etag ? { etag } : {}) };
    };
    const integration = async (path: string, body: unknown): Promise<Answer> => {
      const res = await fetch(`${t.url}${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': mis } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const events = async (id: string) => {
      const res = await fetch(`${t.url}/api/v1/eventi?limite=1000`, { headers: { 'x-api-key': mis } });
      const feed = (await res.json()) as { eventi: { type: string; data: Record<string, unknown> }[] };
      return feed.eventi.filter((e) => e.data.id_ordine === id);
    };
    const register = async (ref: string, customer = c1) => {
      const r = await curl('POST', '/api/v1/ordini', order(customer.code, ref), customer.apiKey);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.id_ordine as string;
    };
    const changed = (ref: string, quantita: number, over: Record<string, unknown> = {}) =>
      order('C001', ref, { righe: [{ codice_articolo: 'BV-STD', quantita, unita_misura: 'PZ' }], ...over });

    before(async () => {
      if (engine === 'postgres') schema = await createSchema(testDatabaseUrl!, 'lifecycle');
      t = await startTestService(schema ? { INTAKE_DATABASE_URL: schema.url } : {});
      c1 = await t.customer('C001');
      c2 = await t.customer('C002');
      mis = (await addIntegration(t.service.store, 'MIS')).api_key;
    });
    after(async () => {
      await t?.close();
      await schema?.drop();
    });

    void it('makes versions of one order by PUT, keeps every version, and honours If-Match', async () => {
      const id = await register('L-1');
      const first = await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey);
      assert.equal(first.body.versione, 1);
      assert.equal(first.etag, '"1"');
      assert.deepEqual((first.body.versioni as unknown[]).length, 1);
      assert.deepEqual(first.body.richieste, []);

      const put = await curl('PUT', `/api/v1/ordini/${id}`, changed('L-1', 750), c1.apiKey, { 'if-match': '"1"' });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal(put.body.versione, 2);
      assert.equal(put.body.id_ordine, id);
      assert.equal(put.body.numero_ordine, first.body.numero_ordine, 'the number stays for life');
      assert.match(String(put.body.messaggio), /^Ordine \d{4}-\d{6} modificato: versione 2$/);
      assert.equal(put.etag, '"2"');

      const now = await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey);
      assert.equal(now.body.versione, 2);
      assert.deepEqual(now.body.righe, [{ codice_articolo: 'BV-STD', quantita: 750, unita_misura: 'PZ' }]);
      assert.deepEqual((now.body.versioni as { versione: number; azione: string; canale: string }[]).map((v) => [v.versione, v.azione, v.canale]),
        [[1, 'nuovo', 'rest'], [2, 'modifica', 'rest']]);

      const stale = await curl('PUT', `/api/v1/ordini/${id}`, changed('L-1', 800), c1.apiKey, { 'if-match': '"1"' });
      assert.equal(stale.status, 412, JSON.stringify(stale.body));
      assert.equal(stale.body.code, 'VERSION_MOVED');
      const again = await curl('PUT', `/api/v1/ordini/${id}`, changed('L-1', 750), c1.apiKey);
      assert.equal(again.status, 200);
      assert.equal(again.body.versione, 2, 'the same change resent makes no version');
      assert.match(String(again.body.messaggio), /nessuna nuova versione/);

      const bad = await curl('PUT', `/api/v1/ordini/${id}`, order('C001', 'L-1', { righe: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] }), c1.apiKey);
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.errori, [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "NOPE"' }]);
      assert.equal((await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey)).body.versione, 2, 'a refused change leaves the version');

      const otherRef = await curl('PUT', `/api/v1/ordini/${id}`, changed('L-OTHER', 10), c1.apiKey);
      assert.equal(otherRef.status, 400);
      assert.equal((otherRef.body.errori as { campo: string }[])[0]!.campo, 'riferimento_ordine');
      assert.equal((await curl('PUT', `/api/v1/ordini/${id}`, changed('L-1', 10), c2.apiKey)).status, 404, 'another customer\'s order is not found');

      const types = (await events(id)).map((e) => e.type);
      assert.deepEqual(types, ['ordine.registrato', 'ordine.modificato'], 'refused changes write no event');
      const modified = (await events(id))[1]!.data;
      assert.equal(modified.versione, 2);
      assert.deepEqual(modified.righe_precedenti, order('C001', 'L-1').righe);
    });

    void it('takes azione on POST, refuses a change of a reference never registered, and keeps nuovo a conflict', async () => {
      const id = await register('L-2');
      const viaPost = await curl('POST', '/api/v1/ordini', changed('L-2', 42, { azione: 'modifica', motivo: 'errore di battitura' }), c1.apiKey);
      assert.equal(viaPost.status, 200, JSON.stringify(viaPost.body));
      assert.equal(viaPost.body.versione, 2);
      const unknown = await curl('POST', '/api/v1/ordini', changed('L-NEVER', 42, { azione: 'modifica' }), c1.apiKey);
      assert.equal(unknown.status, 400);
      assert.equal((unknown.body.errori as { campo: string; messaggio: string }[])[0]!.campo, 'riferimento_ordine');
      assert.match((unknown.body.errori as { messaggio: string }[])[0]!.messaggio, /non è mai stato registrato/);
      assert.equal((await curl('GET', '/api/v1/ordini?riferimento_ordine=L-NEVER', undefined, c1.apiKey)).body.stato, 'rifiutato');
      const wrongAction = await curl('POST', '/api/v1/ordini', changed('L-2', 42, { azione: 'sostituisci' }), c1.apiKey);
      assert.equal(wrongAction.status, 400);
      assert.deepEqual(wrongAction.body.message, ['azione must be one of the following values: nuovo, modifica, annulla']);
      const conflict = await curl('POST', '/api/v1/ordini', changed('L-2', 43), c1.apiKey);
      assert.equal(conflict.status, 409);
      assert.equal((await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey)).body.versione, 2);
    });

    void it('cancels at once before production starts, once, and then refuses changes', async () => {
      const id = await register('L-3');
      const cancel = await curl('POST', `/api/v1/ordini/${id}/annulla`, { motivo: 'ordinato per errore' }, c1.apiKey);
      assert.equal(cancel.status, 200, JSON.stringify(cancel.body));
      assert.equal(cancel.body.stato, 'annullato');
      assert.match(String(cancel.body.messaggio), /^Ordine \d{4}-\d{6} annullato$/);
      const view = await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey);
      assert.equal(view.body.stato, 'annullato');
      const twice = await curl('POST', `/api/v1/ordini/${id}/annulla`, undefined, c1.apiKey);
      assert.equal(twice.status, 200);
      const put = await curl('PUT', `/api/v1/ordini/${id}`, changed('L-3', 1), c1.apiKey);
      assert.equal(put.status, 409);
      assert.equal(put.body.code, 'ORDER_LOCKED');
      assert.match((put.body.errori as { messaggio: string }[])[0]!.messaggio, /è annullato: non può più essere modificato/);
      const types = (await events(id)).map((e) => e.type);
      assert.deepEqual(types, ['ordine.registrato', 'ordine.annullato'], 'a second cancellation emits nothing');
      assert.equal((await events(id))[1]!.data.motivo, 'ordinato per errore');
    });

    void it('turns changes into requests once production started, and production decides them', async () => {
      const id = await register('L-4');
      assert.equal((await integration(`/api/v1/ordini/${id}/stato`, { stato: 'in_lavorazione' })).status, 200);
      const put = await curl('PUT', `/api/v1/ordini/${id}`, changed('L-4', 300), c1.apiKey);
      assert.equal(put.status, 202, JSON.stringify(put.body));
      assert.equal(put.body.stato_richiesta, 'in_attesa');
      const rid = put.body.id_richiesta as string;
      assert.match(String(put.body.messaggio), /richiesta di modifica inoltrata alla produzione/);
      const waiting = await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey);
      assert.equal(waiting.body.versione, 1, 'nothing changes until production decides');
      assert.deepEqual((waiting.body.richieste as { id_richiesta: string; tipo: string; stato_richiesta: string }[]).map((r) => [r.id_richiesta, r.tipo, r.stato_richiesta]),
        [[rid, 'modifica', 'in_attesa']]);
      const second = await curl('POST', `/api/v1/ordini/${id}/annulla`, undefined, c1.apiKey);
      assert.equal(second.status, 409);
      assert.equal(second.body.code, 'REQUEST_PENDING');
      assert.equal((await curl('PUT', `/api/v1/ordini/${id}`, changed('L-4', 300), c1.apiKey)).body.id_richiesta, undefined,
        'a customer key cannot decide, and a resend while waiting is refused, not a second request');

      assert.equal((await curl('POST', `/api/v1/ordini/${id}/richieste/${rid}`, { esito: 'accettata' }, c1.apiKey)).status, 403);
      const accepted = await integration(`/api/v1/ordini/${id}/richieste/${rid}`, { esito: 'accettata', nota: 'ok, ristampiamo' });
      assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
      assert.equal(accepted.body.aggiornato, true);
      assert.equal((accepted.body.ordine as { versione: number }).versione, 2);
      const retry = await integration(`/api/v1/ordini/${id}/richieste/${rid}`, { esito: 'accettata', nota: 'ok, ristampiamo' });
      assert.equal(retry.status, 200);
      assert.equal(retry.body.aggiornato, false);
      const flip = await integration(`/api/v1/ordini/${id}/richieste/${rid}`, { esito: 'rifiutata' });
      assert.equal(flip.status, 409);
      const after = await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey);
      assert.equal(after.body.versione, 2);
      assert.deepEqual((after.body.richieste as { stato_richiesta: string; nota?: string }[]).map((r) => [r.stato_richiesta, r.nota]), [['accettata', 'ok, ristampiamo']]);

      const cancel = await curl('POST', `/api/v1/ordini/${id}/annulla`, { motivo: 'non serve più' }, c1.apiKey);
      assert.equal(cancel.status, 202);
      const refused = await integration(`/api/v1/ordini/${id}/richieste/${cancel.body.id_richiesta as string}`, { esito: 'rifiutata', nota: 'già stampato' });
      assert.equal(refused.status, 200);
      assert.equal((await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey)).body.stato, 'registrato');
      const again = await curl('POST', `/api/v1/ordini/${id}/annulla`, undefined, c1.apiKey);
      assert.equal(again.status, 202);
      assert.equal((await integration(`/api/v1/ordini/${id}/richieste/${again.body.id_richiesta as string}`, { esito: 'accettata' })).status, 200);
      assert.equal((await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey)).body.stato, 'annullato');

      const types = await waitFor(async () => {
        const list = (await events(id)).map((e) => e.type);
        return list.length >= 10 ? list : undefined;
      }, 15_000, 'the lifecycle events');
      assert.deepEqual(types, [
        'ordine.registrato', 'ordine.stato_aggiornato', 'ordine.richiesta', 'ordine.modificato', 'ordine.richiesta_esito',
        'ordine.richiesta', 'ordine.richiesta_esito', 'ordine.richiesta', 'ordine.annullato', 'ordine.richiesta_esito',
      ]);
    });

    void it('refuses changes once shipped', async () => {
      const id = await register('L-5');
      assert.equal((await integration(`/api/v1/ordini/${id}/stato`, { stato: 'spedito' })).status, 200);
      const put = await curl('PUT', `/api/v1/ordini/${id}`, changed('L-5', 1), c1.apiKey);
      assert.equal(put.status, 409);
      assert.match((put.body.errori as { messaggio: string }[])[0]!.messaggio, /è già stato spedito/);
      assert.equal((await curl('POST', `/api/v1/ordini/${id}/annulla`, undefined, c1.apiKey)).status, 409);
    });

    void it('never makes two of one version when changes race, and gives If-Match losers 412', async () => {
      const id = await register('L-6');
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => curl('PUT', `/api/v1/ordini/${id}`, changed('L-6', 100 + i), c1.apiKey)));
      assert.deepEqual(results.map((r) => r.status), Array(8).fill(200));
      assert.deepEqual(results.map((r) => r.body.versione as number).sort((a, b) => a - b), [2, 3, 4, 5, 6, 7, 8, 9]);
      const view = await curl('GET', `/api/v1/ordini/${id}`, undefined, c1.apiKey);
      assert.deepEqual((view.body.versioni as { versione: number }[]).map((v) => v.versione), [1, 2, 3, 4, 5, 6, 7, 8, 9]);

      const raced = await Promise.all(Array.from({ length: 6 }, (_, i) => curl('PUT', `/api/v1/ordini/${id}`, changed('L-6', 500 + i), c1.apiKey, { 'if-match': '"9"' })));
      assert.deepEqual(raced.map((r) => r.status).sort(), [200, 412, 412, 412, 412, 412]);
    });
  });
}
