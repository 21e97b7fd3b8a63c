// GET /api/v1/ordini without riferimento_ordine: a customer's ERP pages through its own orders (and an integration
// through every customer's, to resync after its feed cursor expired). Real service on port 0, fetch (undici), on
// SQLite and, with INTAKE_TEST_DATABASE_URL, on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { order, startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { createSchema, testDatabaseUrl, type TestSchema } from '../../store/pg-schema.ts';

interface View { id_ordine: string; riferimento_ordine: string; codice_cliente: string; registrato_il: string; stato_produzione?: string; righe: unknown[] }
interface Page { ordini: View[]; cursore_successivo: string | null }

/** Today, yesterday and tomorrow as days of Europe/Rome (the service's default zone). */
function romeDay(offsetDays: number): string {
  return new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Rome' }).format(new Date(Date.now() + offsetDays * 86_400_000));
}

function suite(name: string, env: () => Promise<{ env: Record<string, string>; drop?: () => Promise<void> }>) {
  void describe(`GET /api/v1/ordini, the list (${name})`, () => {
    let t: TestService;
    let c1: TestCustomer;
    let c2: TestCustomer;
    let mis: string;
    let drop: (() => Promise<void>) | undefined;

    const get = async (query: string, key: string) => {
      const res = await fetch(`${t.url}/api/v1/ordini${query}`, { headers: { 'x-api-key': key } });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const list = async (query: string, key = c1.apiKey) => {
      const r = await get(query, key);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body as unknown as Page;
    };
    const submit = async (c: TestCustomer, ref: string) => {
      const res = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', body: JSON.stringify(order(c.code, ref)), headers: { 'content-type': 'application/json', 'x-api-key': c.apiKey } });
      const text = await res.text();
      assert.equal(res.status, 201, text);
      return JSON.parse(text) as { id_ordine: string };
    };
    /** Every page of `query`, `limite` at a time; `between` runs after each page but the last. */
    const walk = async (query: string, key = c1.apiKey, between?: () => Promise<void>) => {
      const all: View[] = [];
      let cursor: string | null = null;
      for (;;) {
        const page: Page = await list(`${query}${cursor ? `&cursore=${encodeURIComponent(cursor)}` : ''}`, key);
        all.push(...page.ordini);
        cursor = page.cursore_successivo;
        if (cursor === null) return all;
        await between?.();
      }
    };

    before(async () => {
      const e = await env();
      drop = e.drop;
      t = await startTestService(e.env);
      c1 = await t.customer('C001');
      c2 = await t.customer('C002');
      mis = (await addIntegration(t.service.store, 'MIS')).api_key;
      for (let i = 0; i < 5; i++) {
        await submit(c1, `L-${i}`);
        await submit(c2, `M-${i}`);
      }
    });
    after(async () => {
      await t.close();
      await drop?.();
    });

    void it('pages a customer\'s own orders oldest first, and orders registered while paging come later, once', async () => {
      let n = 0;
      const seen = await walk('?limite=2', c1.apiKey, async () => {
        // Concurrent inserts: one for each customer between two pages.
        await Promise.all([submit(c1, `L-new-${n}`), submit(c2, `M-new-${n}`)]);
        n++;
      });
      const refs = seen.map((o) => o.riferimento_ordine);
      assert.deepEqual(refs.slice(0, 5), ['L-0', 'L-1', 'L-2', 'L-3', 'L-4']);
      assert.deepEqual(refs.slice(5), Array.from({ length: n }, (_, i) => `L-new-${i}`), 'each order registered meanwhile, once, in order');
      assert.ok(n >= 2, 'pages were read while orders arrived');
      assert.ok(seen.every((o) => o.codice_cliente === 'C001'), 'never another customer\'s order');
      const keys = seen.map((o) => `${o.registrato_il} ${o.id_ordine}`);
      assert.deepEqual([...keys].sort(), keys, 'ordered by registration time, then id');
      assert.equal(seen[0]!.righe.length, 2, 'whole orders, lines included');
      const whole = await list('');
      assert.equal(whole.ordini.length, refs.length, 'one page of 100 by default');
      assert.equal(whole.cursore_successivo, null, 'null on the last page');
      const byRef = await get('?riferimento_ordine=L-1', c1.apiKey);
      assert.equal(byRef.body.riferimento_ordine, 'L-1', 'the lookup by reference is unchanged');
    });

    void it('filters by local day and production state', async () => {
      const today = (await list(`?dal=${romeDay(0)}&al=${romeDay(0)}`)).ordini;
      assert.ok(today.length >= 5 && today.every((o) => o.codice_cliente === 'C001'));
      assert.deepEqual((await list(`?dal=${romeDay(1)}`)).ordini, [], 'dal tomorrow: none yet');
      assert.deepEqual((await list(`?al=${romeDay(-1)}`)).ordini, [], 'al yesterday: none');
      const target = (await list('?limite=1')).ordini[0]!;
      const res = await fetch(`${t.url}/api/v1/ordini/${target.id_ordine}/stato`, {
        method: 'POST', body: JSON.stringify({ stato: 'in_lavorazione' }), headers: { 'content-type': 'application/json', 'x-api-key': mis },
      });
      assert.equal(res.status, 200, await res.text());
      const working = (await list('?stato=in_lavorazione')).ordini;
      assert.deepEqual(working.map((o) => o.id_ordine), [target.id_ordine]);
      assert.equal(working[0]!.stato_produzione, 'in_lavorazione');
      const waiting = (await list('?stato=registrato')).ordini;
      assert.ok(waiting.length >= 4 && !waiting.some((o) => o.id_ordine === target.id_ordine), 'registrato: nothing reported yet');
      assert.deepEqual((await list('?stato=consegnato')).ordini, []);
    });

    void it('refuses bad parameters with 400 and an Italian message', async () => {
      const bad: [string, RegExp][] = [
        ['?dal=2026-02-30', /dal deve essere una data nella forma AAAA-MM-GG/],
        ['?al=28/11/2026', /al deve essere una data/],
        ['?dal=2026-11-28&al=2026-11-27', /al \(2026-11-27\) precede dal \(2026-11-28\)/],
        ['?stato=pronto', /stato deve essere uno di: registrato, in_lavorazione, spedito, consegnato, annullato/],
        ['?limite=0', /limite deve essere un numero intero da 1 a 500/],
        ['?limite=501', /limite deve essere un numero intero da 1 a 500/],
        ['?limite=abc', /limite deve essere/],
        ['?cursore=nonvalido', /Il cursore non è valido/],
        [`?cursore=${Buffer.from('{"t":"x","i":"y"}').toString('base64url')}`, /Il cursore non è valido/],
        ['?dal=2026-11-01&dal=2026-11-02', /va indicato una sola volta/],
        ['?da=2026-11-01', /Parametro sconosciuto: "da"/],
        ['?cliente=C002', /Parametro sconosciuto: "cliente"/],
      ];
      for (const [query, message] of bad) {
        const r = await get(query, c1.apiKey);
        assert.equal(r.status, 400, query);
        assert.deepEqual(Object.keys(r.body).sort(), ['code', 'error', 'message', 'statusCode'], query);
        assert.equal(r.body.code, 'INVALID_PARAMETERS', query);
        assert.equal(r.body.error, 'Bad Request');
        assert.match((r.body.message as string[]).join('\n'), message, query);
      }
      const empty = await get('?riferimento_ordine=', c1.apiKey);
      assert.deepEqual(empty.body.message, ['riferimento_ordine should not be empty', 'riferimento_ordine must be a string'], 'unchanged');
      assert.equal((await get('', 'nokey')).status, 401);
    });

    void it('lets an integration list every customer\'s orders, or one customer\'s, and nothing else of the customer endpoints', async () => {
      const everyone = await walk('?limite=3', mis);
      const codes = new Set(everyone.map((o) => o.codice_cliente));
      assert.deepEqual([...codes].sort(), ['C001', 'C002']);
      const only = await walk('?limite=50&cliente=C002', mis);
      assert.ok(only.length >= 5 && only.every((o) => o.codice_cliente === 'C002'));
      assert.equal((await get('?cliente=C999', mis)).status, 400);
      assert.equal((await get('?riferimento_ordine=L-1', mis)).status, 403, 'the lookup by reference stays the customers\'');
    });
  });
}

suite('sqlite', async () => ({ env: {} }));
if (testDatabaseUrl) {
  const url = testDatabaseUrl;
  suite('postgres', async () => {
    const schema: TestSchema = await createSchema(url, 'olist');
    return { env: { INTAKE_DATABASE_URL: schema.url }, drop: () => schema.drop() };
  });
}
