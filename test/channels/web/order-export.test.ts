// The console's CSV export of orders, read as Italian Excel reads it: one row per order line with the article's
// description, the customer's name and the production state, local times Excel takes for dates, a decimal comma, `;`
// between cells, a BOM, and no cell a spreadsheet would run as a formula. Real service on port 0, real HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { provisionCustomer } from '../../../src/customers/provision.ts';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { spreadsheetTime } from '../../../src/channels/web/console/order-export.ts';
import type { TestService } from '../../helpers/service.ts';
import { Client, startWithOperator } from '../../e2e/browser.ts';

/** The cells of one CSV row as written by csvCell (every cell quoted, quotes doubled). */
function cells(row: string): string[] {
  return [...row.matchAll(/"((?:[^"]|"")*)"(?:;|$)/g)].map((m) => m[1]!.replace(/""/g, '"'));
}

void describe('console: orders exported as CSV', () => {
  let t: TestService;
  let ops: Client;
  let apiKey: string;
  let mis: string;

  const submit = async (ref: string, righe: unknown[], key = apiKey, code = 'C001') => {
    const res = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ codice_cliente: code, riferimento_ordine: ref, data_ordine: '2026-11-20', data_consegna: '2026-12-01', righe }),
    });
    const body = JSON.parse(await res.text()) as { id_ordine: string };
    assert.equal(res.status, 201, JSON.stringify(body));
    return (await (await fetch(`${t.url}/api/v1/ordini/${body.id_ordine}`, { headers: { 'x-api-key': key } })).json()) as { id_ordine: string; numero_ordine: string; registrato_il: string };
  };

  before(async () => {
    const started = await startWithOperator();
    t = started.t;
    apiKey = (await provisionCustomer(t.service.store, { code: 'C001', name: 'Tipografia "Rossi"; & figli' }, t.config.mailDomain)).apiKey;
    mis = (await addIntegration(t.service.store, 'MIS')).api_key;
    ops = new Client(t.url);
    await ops.login('console', started.email, started.password);
  });
  after(async () => t?.close());

  void it('writes one row per line with description, customer name, production state and local times', async () => {
    const first = await submit('PO-1', [
      { codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' },
      { codice_articolo: 'VOL-A4', quantita: 2.5, unita_misura: 'PZ' },
    ]);
    const second = await submit('=SOMMA(1;2)', [{ codice_articolo: 'CAR-A4-80', quantita: 3, unita_misura: 'RS' }]);
    const other = await provisionCustomer(t.service.store, { code: 'C002', name: 'Altro' }, t.config.mailDomain);
    await submit('PO-ALTRO', [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }], other.apiKey, 'C002');
    const reported = await fetch(`${t.url}/api/v1/ordini/${first.id_ordine}/stato`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': mis }, body: JSON.stringify({ stato: 'spedito' }),
    });
    assert.equal(reported.status, 200);
    // A deactivated article keeps its description in exports; a removed one has none left, and the line stays.
    await t.service.store.deactivateArticles(['VOL-A4']);
    await t.service.store.removeArticles(['CAR-A4-80']);

    // The bytes, not text: a decoder would drop the BOM this checks.
    const res = await request(`${t.url}/console/ordini.csv?cliente=C001`, { headers: { cookie: ops.header() } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/csv; charset=utf-8/);
    const bytes = Buffer.from(await res.body.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'a BOM, for Excel');
    const rows = bytes.subarray(3).toString('utf8').split('\r\n');
    assert.equal(rows.pop(), '', 'CRLF after every row');
    assert.equal(rows[0], 'numero_ordine;codice_cliente;cliente;riferimento_ordine;data_ordine;data_consegna;riga;codice_articolo;'
      + 'descrizione_articolo;quantita;unita_misura;stato_produzione;canale;registrato_il;id_ordine;note');
    const data = rows.slice(1).map(cells);
    assert.equal(data.length, 3, 'one row per line, C001 only');
    assert.ok(data.every((r) => r.length === 16));
    const local = (iso: string) => spreadsheetTime(iso, 'Europe/Rome');
    // Newest first, as the list: the second order, then the first one's two lines.
    assert.deepEqual(data[0], [second.numero_ordine, 'C001', 'Tipografia "Rossi"; & figli', "'=SOMMA(1;2)", '2026-11-20', '2026-12-01', '1',
      'CAR-A4-80', '', '3', 'RS', '', 'rest', local(second.registrato_il), second.id_ordine, '']);
    assert.deepEqual(data[1], [first.numero_ordine, 'C001', 'Tipografia "Rossi"; & figli', 'PO-1', '2026-11-20', '2026-12-01', '1',
      'BV-STD', 'Biglietti da visita', '500', 'PZ', 'spedito', 'rest', local(first.registrato_il), first.id_ordine, '']);
    assert.deepEqual(data[2]!.slice(6, 12), ['2', 'VOL-A4', 'Volantini A4', '2,5', 'PZ', 'spedito']);
    assert.match(data[1]![13]!, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'a time Excel reads as a date: no T, no Z');
    const utc = new Date(first.registrato_il);
    const wall = new Date(`${data[1]![13]!.replace(' ', 'T')}Z`);
    const offsetHours = (wall.getTime() - Math.floor(utc.getTime() / 1000) * 1000) / 3_600_000;
    assert.ok(offsetHours === 1 || offsetHours === 2, `Europe/Rome is UTC+1 or +2, not ${offsetHours}`);
    const audit = await t.service.store.listAudit({ limit: 10 });
    assert.deepEqual(audit.find((a) => a.action === 'ordini.esporta')?.detail, { ordini: 2, righe: 3 });
  });
});
