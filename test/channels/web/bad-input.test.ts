// Forged input in the console and the portal, over real HTTP on both stores (SQLite, and PostgreSQL on a fresh
// schema): values no form would send must get the page's Italian error or be ignored like any unreadable filter,
// never a 500. PostgreSQL is the stricter reader (no NUL in text, four-digit years only), so each case runs there too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { addOperator } from '../../../src/operators/accounts.ts';
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
  });
}
