// Forged input in the console and the portal, over real HTTP on both stores (SQLite, and PostgreSQL on a fresh
// schema): values no form would send must get the page's Italian error or be ignored like any unreadable filter,
// never a 500. PostgreSQL is the stricter reader (no NUL in text, four-digit years only), so each case runs there too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { addOperator } from '../../../src/operators/accounts.ts';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { createSchema, PG_SKIP, testDatabaseUrl, type TestSchema } from '../../store/pg-schema.ts';
import { Client } from '../../e2e/browser.ts';

const ANY_ID = '01900000-0000-7000-8000-000000000000';

for (const engine of ['sqlite', 'postgres'] as const) {
  void describe(`web: forged input (${engine})`, { skip: engine === 'postgres' ? PG_SKIP : false }, () => {
    let t: TestService;
    let schema: TestSchema | undefined;
    let a: TestCustomer;
    let ops: Client;
    let portal: Client;

    before(async () => {
      if (engine === 'postgres') schema = await createSchema(testDatabaseUrl!, 'web');
      t = await startTestService(schema ? { INTAKE_DATABASE_URL: schema.url } : {});
      const { password } = await addOperator(t.service.store, { email: 'ops@example.com', role: 'operator' });
      a = await t.customer('C001');
      const res = await fetch(`${t.url}/api/v1/ordini`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': a.apiKey }, body: JSON.stringify(order('C001', 'R1')),
      });
      assert.equal(res.status, 201);
      ops = new Client(t.url);
      assert.equal((await ops.login('console', 'ops@example.com', password)).status, 303);
      portal = new Client(t.url);
      assert.equal((await portal.login('portale', a.ftpUser, a.ftpPassword)).status, 303);
    });

    after(async () => {
      await t?.close();
      await schema?.drop();
    });

    // JavaScript writes years outside 0000–9999 as ±YYYYYY, which PostgreSQL's timestamptz does not read, and year 0
    // does not exist there: such a bound means "before everything" or "after everything", and is read so.
    void it('date filters and page cursors beyond the years 1–9999 mean before or after everything, never a 500', async () => {
      const shows = async (c: Client, url: string, ref: RegExp | undefined) => {
        const r = await c.send('GET', url);
        assert.equal(r.status, 200, `${url}: ${r.body.slice(0, 200)}`);
        if (ref) assert.match(r.body, ref, url);
        else assert.match(r.body, /Nessun ordine con questi filtri|Nessun invio con questi filtri/, url);
      };
      await shows(ops, '/console/ordini?dal=0000-01-01', />R1</);
      await shows(ops, '/console/ordini?al=0000-01-01', undefined);
      await shows(ops, `/console/ordini?dopo=%2B010000-01-01T00:00:00.000Z_${ANY_ID}`, />R1</);
      await shows(ops, `/console/invii?dopo=-000001-01-01T00:00:00.000Z_${ANY_ID}`, undefined);
      await shows(portal, `/portale/ordini?dopo=%2B275760-09-13T00:00:00.000Z_${ANY_ID}`, />R1</);
      const csv = await ops.send('GET', '/console/ordini.csv?dal=0000-01-01');
      assert.equal(csv.status, 200, csv.body.slice(0, 200));
      assert.match(csv.body, /"R1"/);
    });

    // NUL is in no code, reference, name or address (intake refuses control characters), and PostgreSQL cannot even
    // look one up in a text column: a forged value carrying one is refused as invalid before any lookup.
    void it('a NUL in a login name, a filter or a form gets 400 in Italian, in a URL\'s code 404, never a 500', async () => {
      const refused = (what: string, r: { status: number; body: string }) => {
        const inPath = !what.includes('?') && what.includes('%00');
        assert.equal(r.status, inPath ? 404 : 400, `${what}: ${r.body.slice(0, 200)}`);
        assert.match(r.body, inPath ? /La pagina richiesta non esiste/ : /La richiesta non è valida/, what);
      };
      for (const area of ['console', 'portale'] as const) {
        const anonymous = new Client(t.url);
        refused(`${area} login`, await anonymous.login(area, 'c001\0', 'x'));
      }
      for (const url of [
        '/console/ordini?rif=x%00y', '/console/invii?cliente=%00', '/console/registro?prima=%00', '/console/articoli?q=%00',
        '/console/clienti/%00', `/console/clienti/%00/ordini/${ANY_ID}`,
      ]) refused(url, await ops.send('GET', url));
      for (const url of ['/portale/ordini?rif=%00', '/portale/articoli?q=%00']) refused(url, await portal.send('GET', url));
      for (const [url, form] of [
        ['/console/clienti', { codice: 'N1', nome: 'Rossi\0' }], ['/console/clienti/%00/chiave', {}],
        ['/console/clienti/%00/disattiva', {}], ['/console/connettori/%00/chiave', {}],
      ] as const) {
        const _csrf = await ops.token('/console/clienti');
        refused(`POST ${url}`, await ops.send('POST', url, { ...form, _csrf }));
      }
      assert.equal(await t.service.store.getCustomerByCode('N1'), undefined, 'no customer was added');
      assert.equal((await ops.send('GET', '/console/ordini?rif=R1')).status, 200, 'the operator is still logged in');
      assert.match((await portal.send('GET', '/portale/ordini?rif=R1')).body, />R1</, 'so is the customer');
    });

    // The lifecycle's forms on this store: a change and a cancellation from the portal, a request decided and a
    // cancellation on the customer's behalf in the console; what no form would send gets the page's Italian answer.
    void it('changes, cancels and decides requests through the web pages; forged values never get a 500', async () => {
      const register = async (ref: string) => {
        const res = await fetch(`${t.url}/api/v1/ordini`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': a.apiKey }, body: JSON.stringify(order('C001', ref)),
        });
        assert.equal(res.status, 201);
        return ((await res.json()) as { id_ordine: string }).id_ordine;
      };
      const customerId = (await t.service.store.getCustomerByCode('C001'))!.id;
      const stored = async (id: string) => (await t.service.store.getOrder(customerId, id))!;
      const change = { data_ordine: '20/11/2026', data_consegna: '', note: '', codice_articolo: 'BV-STD', quantita: '1.500', unita_misura: 'pz' };

      const id = await register('LC-1');
      let _csrf = await portal.token(`/portale/ordini/${id}/modifica`);
      const unreadable = await portal.send('POST', `/portale/ordini/${id}/modifica`, { _csrf, ...change, quantita: 'tanti' });
      assert.equal(unreadable.status, 422);
      assert.match(unreadable.body, /Riga 1, quantità/);
      const changed = await portal.send('POST', `/portale/ordini/${id}/modifica`, { _csrf, ...change, riferimento_ordine: 'ALTRO' });
      assert.equal(changed.status, 200, changed.body.slice(0, 300));
      assert.match(changed.body, /modificato: versione 2/);
      assert.deepEqual((await stored(id)).righe, [{ codice_articolo: 'BV-STD', quantita: 1500, unita_misura: 'PZ' }]);
      assert.equal((await stored(id)).riferimento_ordine, 'LC-1', 'a posted reference cannot move the change');
      const control = await portal.send('POST', `/portale/ordini/${id}/annulla`, { _csrf, motivo: 'a\u0007b' });
      assert.equal(control.status, 422);
      assert.match(control.body, /L&#39;annullamento non è stato accettato/);
      assert.match(control.body, /Il motivo contiene caratteri di controllo/);
      assert.equal((await stored(id)).productionState, undefined);
      assert.equal((await portal.send('POST', `/portale/ordini/${ANY_ID}/annulla`, { _csrf })).status, 404);

      // Production starts: the customer's change becomes a request, which the operator accepts.
      const mis = (await addIntegration(t.service.store, `MIS-${engine}`)).api_key;
      const started = await fetch(`${t.url}/api/v1/ordini/${id}/stato`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': mis }, body: JSON.stringify({ stato: 'in_lavorazione' }),
      });
      assert.equal(started.status, 200);
      const asked = await portal.send('POST', `/portale/ordini/${id}/modifica`, { _csrf, ...change, quantita: '2.000' });
      assert.equal(asked.status, 200);
      assert.match(asked.body, /in lavorazione: richiesta di modifica inoltrata alla produzione/);
      const [request] = await t.service.store.orderRequests(id);
      const page = `/console/clienti/C001/ordini/${id}`;
      _csrf = await ops.token(page);
      assert.equal((await ops.send('POST', `${page}/richieste/${request!.id_richiesta}`, { _csrf })).status, 400, 'no esito');
      assert.equal((await ops.send('POST', `${page}/richieste/%00`, { _csrf, esito: 'accettata' })).status, 404);
      const long = await ops.send('POST', `${page}/richieste/${request!.id_richiesta}`, { _csrf, esito: 'accettata', nota: 'x'.repeat(501) });
      assert.equal(long.status, 422);
      assert.match(long.body, /al massimo 500 caratteri/);
      const accepted = await ops.send('POST', `${page}/richieste/${request!.id_richiesta}`, { _csrf, esito: 'accettata', nota: 'ok' });
      assert.equal(accepted.status, 200, accepted.body.slice(0, 300));
      assert.equal((await stored(id)).versione, 3);
      assert.equal((await stored(id)).righe[0]!.quantita, 2000);

      const other = await register('LC-2');
      const cancelled = await ops.send('POST', `/console/clienti/C001/ordini/${other}/annulla`, { _csrf, motivo: 'Doppio' });
      assert.equal(cancelled.status, 200, cancelled.body.slice(0, 300));
      assert.match(cancelled.body, /annullato/);
      assert.equal((await stored(other)).productionState, 'annullato');
      const twice = await ops.send('POST', `/console/clienti/C001/ordini/${other}/annulla`, { _csrf, motivo: 'Doppio' });
      assert.equal(twice.status, 200);
      assert.match(twice.body, /già annullato: nessuna modifica/);
      assert.equal((await ops.send('POST', `/console/clienti/C002/ordini/${other}/annulla`, { _csrf, motivo: 'x' })).status, 404);
    });
  });
}
