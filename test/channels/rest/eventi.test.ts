// The event feed and production status over real HTTP (server on port 0, fetch), on SQLite and, with
// INTAKE_TEST_DATABASE_URL, on PostgreSQL: integration keys and their limits, the feed's order and cursors, long
// polling woken by a commit, and production status reported by an integration and seen by the customer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addIntegration, revokeIntegration, rotateIntegration } from '../../../src/handoff/integrations.ts';
import { order, startTestService, waitFor, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { createSchema, testDatabaseUrl, type TestSchema } from '../../store/pg-schema.ts';

interface Feed { eventi: { id: string; type: string; time: string; cursor: string; data: Record<string, unknown> }[]; cursore: string | null }

function suite(name: string, env: () => Promise<{ env: Record<string, string>; drop?: () => Promise<void> }>) {
  void describe(`event feed and production status (${name})`, () => {
    let t: TestService;
    let c1: TestCustomer;
    let c2: TestCustomer;
    let mis: string;
    let drop: (() => Promise<void>) | undefined;

    /** GET's view of an order as an event carries it: without the lists of versions and requests, which only GET reads. */
    const asEvent = ({ versioni: _v, richieste: _r, ...rest }: Record<string, unknown>) => rest;
    const get = async (path: string, key: string | null = mis) => {
      const res = await fetch(`${t.url}${path}`, { headers: key === null ? {} : { 'x-api-key': key } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const feed = async (query = '', key: string = mis) => {
      const r = await get(`/api/v1/eventi${query}`, key);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as unknown as Feed;
    };
    const post = async (path: string, body: unknown, key: string, type = 'application/json') => {
      const res = await fetch(`${t.url}${path}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': type, 'x-api-key': key } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    /** Every event readable now, paged `limit` at a time; each page starts from the previous page's cursor. */
    const everything = async (limit = 2) => {
      const all: Feed['eventi'] = [];
      let cursor: string | null = null;
      for (;;) {
        const page: Feed = await feed(`?limite=${limit}${cursor ? `&dopo=${encodeURIComponent(cursor)}` : ''}`);
        if (page.eventi.length === 0) return all;
        all.push(...page.eventi);
        cursor = page.cursore;
      }
    };
    /** The stream once it holds `n` events (on PostgreSQL events become readable a moment after commit). */
    const stream = (n: number) => waitFor(async () => {
      const all = await everything(1000);
      return all.length >= n ? all : undefined;
    }, 15_000, `${n} events in the feed`);

    before(async () => {
      const e = await env();
      drop = e.drop;
      t = await startTestService(e.env);
      c1 = await t.customer('C001');
      c2 = await t.customer('C002');
      mis = (await addIntegration(t.service.store, 'MIS')).api_key;
    });
    after(async () => {
      await t.close();
      await drop?.();
    });

    void it('keeps integration keys and customer keys to their own endpoints', async () => {
      assert.equal((await get('/api/v1/eventi', null)).status, 401);
      assert.deepEqual(await get('/api/v1/eventi', `${mis.slice(0, -1)}${mis.endsWith('a') ? 'b' : 'a'}`),
        { status: 401, body: { statusCode: 401, message: 'Invalid API key', error: 'Unauthorized', code: 'API_KEY_INVALID' } });
      const customerOnFeed = await get('/api/v1/eventi', c1.apiKey);
      assert.equal(customerOnFeed.status, 403);
      assert.match(String(customerOnFeed.body.message), /riservato alle integrazioni/);
      const created = await post('/api/v1/ordini', order('C001', 'K-1'), c1.apiKey);
      assert.equal(created.status, 201);
      assert.equal((await post('/api/v1/ordini', order('C001', 'K-2'), mis)).status, 403, 'an integration cannot submit');
      const asCustomer = await get(`/api/v1/ordini/${created.body.id_ordine}`, mis);
      assert.equal(asCustomer.status, 403, 'nor read as a customer');
      assert.match(String(asCustomer.body.message), /chiavi di integrazione/);
      assert.equal((await get('/api/v1/ordini?riferimento_ordine=K-1', mis)).status, 403);
      assert.equal((await post(`/api/v1/ordini/${created.body.id_ordine}/stato`, { stato: 'in_lavorazione' }, c1.apiKey)).status, 403,
        'a customer cannot report production status');
    });

    void it('returns every customer\'s events in one order, with the order as its customer sees it, paged without skips or repeats', async () => {
      const a = await post('/api/v1/ordini', order('C001', 'F-1'), c1.apiKey);
      const b = await post('/api/v1/ordini', order('C002', 'F-2'), c2.apiKey);
      const refused = await post('/api/v1/ordini', order('C002', 'F-3', { righe: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] }), c2.apiKey);
      assert.deepEqual([a.status, b.status, refused.status], [201, 201, 400]);
      // This test's own events only: the order of the test before may still be on its way into the PostgreSQL
      // feed (readable a moment after commit), and counting the feed before posting would then count it twice.
      const ours = (events: Feed['eventi']) => events.filter((e) => /^F-/.test(String(e.data.riferimento_ordine)));
      const all = await waitFor(async () => {
        const now = await everything(1000);
        return ours(now).length >= 3 ? now : undefined;
      }, 15_000, 'the three events in the feed');
      const mine = ours(all);
      assert.deepEqual(mine.map((e) => [e.type, e.data.riferimento_ordine]),
        [['ordine.registrato', 'F-1'], ['ordine.registrato', 'F-2'], ['ordine.rifiutato', 'F-3']]);
      assert.deepEqual(mine[0]!.data, asEvent((await get(`/api/v1/ordini/${a.body.id_ordine}`, c1.apiKey)).body));
      assert.deepEqual(mine[1]!.data, asEvent((await get(`/api/v1/ordini/${b.body.id_ordine}`, c2.apiKey)).body));
      assert.deepEqual(mine[2]!.data.errori, refused.body.errori);
      for (const limit of [1, 3]) assert.deepEqual(await everything(limit), all, `pages of ${limit}`);
      const last = all.at(-1)!.cursor;
      assert.deepEqual(await feed(`?dopo=${encodeURIComponent(last)}`), { eventi: [], cursore: last }, 'nothing after the last: the cursor stays');
    });

    void it('refuses bad parameters and unknown cursors with 400', async () => {
      for (const q of ['?dopo=nonesiste', '?dopo=999999999', '?dopo=1_999999999', '?limite=0', '?limite=1001', '?limite=abc', '?attesa=31', '?attesa=-1', '?dopo=a&dopo=b']) {
        const r = await get(`/api/v1/eventi${q}`);
        assert.equal(r.status, 400, q);
        assert.equal(r.body.error, 'Bad Request');
      }
      assert.match(String((await get('/api/v1/eventi?dopo=nonesiste')).body.message), /cursore "nonesiste" non è valido/);
    });

    void it('holds a long poll until a commit brings an event, then answers with it', async () => {
      const all = await stream(1);
      const last = all.at(-1)!.cursor;
      // The store's event reads, watched so that the order below is sent only once the poll has read, found nothing
      // and gone to wait: sent earlier, it would be found by the first read and prove nothing about waking.
      const store = t.service.store;
      const readEvents = store.readEvents;
      let emptyReadsAfterLast = 0;
      store.readEvents = async (cursor, limit) => {
        const events = await readEvents.call(store, cursor, limit);
        if (cursor === last && events.length === 0) emptyReadsAfterLast++;
        return events;
      };
      try {
        const waiting = feed(`?dopo=${encodeURIComponent(last)}&attesa=20`);
        await waitFor(() => (emptyReadsAfterLast > 0 ? true : undefined), 15_000, 'the long poll to find nothing and wait');
        const sent = await post('/api/v1/ordini', order('C001', 'LP-1'), c1.apiKey);
        const got = await waiting;
        assert.equal(got.eventi.length, 1, 'the poll answered with the new event, not at its deadline empty');
        assert.equal(got.eventi[0]!.data.id_ordine, sent.body.id_ordine);
        assert.equal(got.cursore, got.eventi[0]!.cursor);
      } finally {
        store.readEvents = readEvents;
      }
    });

    void it('takes production status from an integration, checks the moves, and shows it to the customer', async () => {
      const sent = await post('/api/v1/ordini', order('C001', 'P-1'), c1.apiKey);
      const id = String(sent.body.id_ordine);
      const path = `/api/v1/ordini/${id}/stato`;
      const start = (await stream(1)).at(-1)!.cursor;

      const working = await post(path, { stato: 'in_lavorazione', nota: 'In stampa sulla macchina 2' }, mis);
      assert.equal(working.status, 200, JSON.stringify(working.body));
      assert.equal(working.body.aggiornato, true);
      const again = await post(path, { stato: 'in_lavorazione' }, mis);
      assert.deepEqual([again.status, again.body.aggiornato], [200, false], 'the same state again changes nothing');
      assert.equal((await post(path, { stato: 'spedito', nota: 'BRT 123' }, mis)).status, 200);

      const back = await post(path, { stato: 'in_lavorazione' }, mis);
      assert.equal(back.status, 409);
      assert.match(String(back.body.message), /è "spedito" e non può passare a "in lavorazione": da "spedito" l'ordine può passare solo a "consegnato"/);
      assert.equal((await post(path, { stato: 'annullato' }, mis)).status, 409, 'nothing is cancelled once shipped');
      assert.equal((await post(path, { stato: 'consegnato' }, mis)).status, 200);
      const final = await post(path, { stato: 'annullato' }, mis);
      assert.equal(final.status, 409);
      assert.match(String(final.body.message), /definitivo/);

      const seen = (await get(`/api/v1/ordini/${id}`, c1.apiKey)).body;
      assert.equal(seen.stato, 'registrato');
      assert.equal(seen.stato_produzione, 'consegnato');
      const history = seen.storico_produzione as { stato: string; nota?: string; aggiornato_il: string }[];
      assert.deepEqual(history.map((h) => [h.stato, h.nota]), [['in_lavorazione', 'In stampa sulla macchina 2'], ['spedito', 'BRT 123'], ['consegnato', undefined]]);
      assert.equal((await get('/api/v1/ordini?riferimento_ordine=P-1', c1.apiKey)).body.stato_produzione, 'consegnato');

      const events = await waitFor(async () => {
        const got = (await feed(`?dopo=${encodeURIComponent(start)}`)).eventi.filter((e) => e.data.id_ordine === id && e.type === 'ordine.stato_aggiornato');
        return got.length >= 3 ? got : undefined;
      }, 15_000, 'three status events');
      assert.deepEqual(events.map((e) => e.data.stato_produzione), ['in_lavorazione', 'spedito', 'consegnato']);
      assert.deepEqual(events[2]!.data, asEvent(seen), 'the last event holds the order as the customer now sees it');
    });

    void it('answers bad status reports with a clear error', async () => {
      const sent = await post('/api/v1/ordini', order('C002', 'P-2'), c2.apiKey);
      const path = `/api/v1/ordini/${sent.body.id_ordine}/stato`;
      const bad = await post(path, { stato: 'stampato' }, mis);
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body.message, ['stato deve essere uno di: in_lavorazione, spedito, consegnato, annullato']);
      assert.equal((await post(path, '{"stato":', mis)).status, 400);
      assert.equal((await post(path, { stato: 'spedito', nota: 'x'.repeat(501) }, mis)).status, 400);
      assert.equal((await post(path, { stato: 'spedito' }, mis, 'text/plain')).status, 415);
      const missing = await post('/api/v1/ordini/0190a0a0-0000-7000-8000-000000000000/stato', { stato: 'spedito' }, mis);
      assert.equal(missing.status, 404);
    });

    void it('stops a rotated or revoked integration key at once', async () => {
      const erp = await addIntegration(t.service.store, 'ERP');
      assert.equal((await get('/api/v1/eventi', erp.api_key)).status, 200);
      const rotated = await rotateIntegration(t.service.store, 'ERP');
      assert.equal((await get('/api/v1/eventi', erp.api_key)).status, 401);
      assert.equal((await get('/api/v1/eventi', rotated.api_key)).status, 200);
      await revokeIntegration(t.service.store, 'ERP');
      assert.equal((await get('/api/v1/eventi', rotated.api_key)).status, 401);
    });

    // Last: it deletes the stream the tests above read.
    void it('answers 410 with a resync message to a reader whose cursor is older than what retention keeps', async () => {
      await post('/api/v1/ordini', order('C001', 'RET-1'), c1.apiKey);
      const all = await stream(1);
      const old = all[0]!.cursor;
      const deleted = await t.service.store.pruneEvents('2100-01-01T00:00:00.000Z', 1000);
      assert.ok(deleted >= 1, 'no subscriber holds them back');
      const r = await get(`/api/v1/eventi?dopo=${encodeURIComponent(old)}`);
      assert.equal(r.status, 410);
      assert.equal(r.body.error, 'Gone');
      assert.match(String(r.body.message), /più vecchio degli eventi conservati.*Risincronizza/);
      const fresh = await feed('');
      assert.ok(Array.isArray(fresh.eventi), 'reading from the start works');
    });
  });
}

suite('sqlite', async () => ({ env: {} }));
const pgUrl = testDatabaseUrl;
if (pgUrl) {
  suite('postgres', async () => {
    const schema: TestSchema = await createSchema(pgUrl, 'feed');
    return { env: { INTAKE_DATABASE_URL: schema.url }, drop: () => schema.drop() };
  });
}
