// The order lifecycle in chromium. A customer changes an order in the portal (the form prefilled with the current
// version; 1.500 typed the Italian way is fifteen hundred) and sees version 2, cancels another with a reason, and
// sees a change waiting for production. An operator sees the versions of an order side by side with what changed
// marked, accepts a request that a REST PUT made once production had reported in_lavorazione through the
// integration API, and cancels an order on the customer's behalf: a console submission, with the operator in the
// production history, and every action in the audit log. Viewers and forms without a CSRF token are refused.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { Browser } from 'playwright-core';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { addOperator } from '../../src/operators/accounts.ts';
import { order, type TestCustomer, type TestService } from '../helpers/service.ts';
import { assertNoSideScroll, Client, launch, login, newPage, PHONE, shot, startWithOperator } from './browser.ts';

void describe('order lifecycle in the browser (SQLite)', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let c1: TestCustomer;
  let mis: string;
  const ids: Record<string, string> = {};

  const api = async (method: string, url: string, key: string, body?: unknown) => {
    const res = await fetch(`${t.url}${url}`, {
      method, headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const customerId = async () => (await t.service.store.getCustomerByCode('C001'))!.id;
  const stored = async (id: string) => (await t.service.store.getOrder(await customerId(), id))!;

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    c1 = await t.customer('C001');
    mis = (await addIntegration(t.service.store, 'MIS')).api_key;
    for (const ref of ['MOD-1', 'ANN-1', 'REQ-1', 'CONS-1', 'WAIT-1', 'FILE-1', 'FILE-2']) {
      const r = await api('POST', '/api/v1/ordini', c1.apiKey, order('C001', ref));
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids[ref] = r.body.id_ordine as string;
    }
    // Production has started REQ-1 and WAIT-1: a change of them becomes a request production (or the desk) decides.
    for (const ref of ['REQ-1', 'WAIT-1']) {
      assert.equal((await api('POST', `/api/v1/ordini/${ids[ref]}/stato`, mis, { stato: 'in_lavorazione' })).status, 200);
      const put = await api('PUT', `/api/v1/ordini/${ids[ref]}`, c1.apiKey, order('C001', ref, {
        data_consegna: '2026-12-10', note: 'Consegna al magazzino B',
        righe: [{ codice_articolo: 'BV-STD', quantita: 750, unita_misura: 'PZ' }, { codice_articolo: 'CAR-A4-80', quantita: 3, unita_misura: 'RS' }],
      }));
      assert.equal(put.status, 202, JSON.stringify(put.body));
      assert.equal(put.body.stato_richiesta, 'in_attesa');
    }
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('customer changes and cancels orders with an uploaded CSV, and the page says what each line did', async () => {
    const { context, page } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', c1.ftpUser, c1.ftpPassword);
      const csv = [
        'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura;azione;motivo',
        'C001;FILE-1;20/11/2026;BV-STD;1.500;PZ;modifica;più copie',
        'C001;FILE-2;20/11/2026;BV-STD;1;PZ;annulla;non serve più',
      ].join('\n');
      await page.getByLabel('File degli ordini').setInputFiles([{ name: 'cambi.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) }]);
      await page.getByRole('button', { name: 'Invia' }).click();
      await page.getByRole('heading', { name: 'cambi.csv' }).waitFor();
      const changed = await page.locator('tr', { hasText: 'FILE-1' }).first().innerText();
      assert.match(changed, /Modificato/);
      assert.match(changed, /Ordine \d{4}-\d{6} modificato: versione 2/);
      const cancelled = await page.locator('tr', { hasText: 'FILE-2' }).first().innerText();
      assert.match(cancelled, /Annullato/);
      assert.match(cancelled, /Ordine \d{4}-\d{6} annullato/);
      assert.deepEqual((await stored(ids['FILE-1']!)).righe, [{ codice_articolo: 'BV-STD', quantita: 1500, unita_misura: 'PZ' }]);
      assert.equal((await stored(ids['FILE-2']!)).productionState, 'annullato');
      await shot(page, 'portal-upload-changes');
    } finally {
      await context.close();
    }
  });

  void it('customer changes an order from the prefilled form (1.500 stays 1500) and sees version 2', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', c1.ftpUser, c1.ftpPassword);
      await page.goto(`${t.url}/portale/ordini`);
      await page.locator('tr', { hasText: 'MOD-1' }).getByRole('link').first().click();
      await page.getByRole('heading', { name: /^Ordine \d{4}-\d{6}$/ }).waitFor();
      const numero = (await stored(ids['MOD-1']!)).numero_ordine;
      await page.getByRole('link', { name: 'Modifica' }).click();
      await page.getByRole('heading', { name: `Modifica ordine ${numero}` }).waitFor();
      assert.equal(await page.getByLabel('Riferimento ordine').inputValue(), 'MOD-1');
      assert.equal(await page.getByLabel('Riferimento ordine').getAttribute('readonly'), '', 'the reference of an order never changes');
      assert.deepEqual([await page.locator('#a0').inputValue(), await page.locator('#q0').inputValue(), await page.locator('#u0').inputValue()], ['BV-STD', '500', 'PZ']);
      assert.deepEqual([await page.locator('#a1').inputValue(), await page.locator('#q1').inputValue()], ['VOL-A4', '1000']);
      await page.locator('#q0').fill('1.500');
      await page.getByLabel('Data di consegna').fill('2026-12-05');
      await shot(page, 'portal-order-change-form');
      await page.getByRole('button', { name: 'Invia la modifica' }).click();
      await page.getByRole('heading', { name: 'Modifica inviata' }).waitFor();
      assert.equal((await page.locator('.notice.ok').innerText()).trim(), `Ordine ${numero} modificato: versione 2`);
      await shot(page, 'portal-order-changed');

      const now = await stored(ids['MOD-1']!);
      assert.equal(now.versione, 2);
      assert.equal(now.versionChannel, 'portal');
      assert.deepEqual(now.righe.map((l) => l.quantita), [1500, 1000]);
      assert.equal(now.data_consegna, '2026-12-05');

      await page.getByRole('link', { name: `Vedi l'ordine ${numero}` }).click();
      assert.equal(await page.locator('.versione').first().innerText(), '2');
      const v2 = page.getByRole('region', { name: 'Versioni' }).locator('section', { hasText: 'Versione 2' });
      assert.match(await v2.locator('tr.changed').innerText(), /BV-STD\s+1500 era 500\s+PZ/);
      assert.match(await v2.locator('mark.changed').first().innerText(), /05\/12\/2026/);
      assert.equal(await page.getByRole('link', { name: 'Modifica' }).count(), 1, 'still changeable');
      await shot(page, 'portal-order-versions');
      await page.setViewportSize(PHONE);
      await assertNoSideScroll(page);
      await shot(page, 'portal-order-versions-phone');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('customer cancels an order with a reason, and sees a waiting request with no change offered', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', c1.ftpUser, c1.ftpPassword);
      const numero = (await stored(ids['ANN-1']!)).numero_ordine;
      await page.goto(`${t.url}/portale/ordini/${ids['ANN-1']}`);
      await page.getByLabel('Motivo (facoltativo)').fill('Ordinato due volte');
      await page.getByRole('button', { name: "Annulla l'ordine" }).click();
      await page.getByRole('heading', { name: 'Annullamento inviato' }).waitFor();
      assert.equal((await page.locator('.notice.ok').innerText()).trim(), `Ordine ${numero} annullato`);
      const now = await stored(ids['ANN-1']!);
      assert.equal(now.productionState, 'annullato');
      assert.equal(now.productionHistory?.at(-1)?.nota, 'Ordinato due volte');

      await page.getByRole('link', { name: `Vedi l'ordine ${numero}` }).click();
      assert.match(await page.locator('main').innerText(), /L'ordine è annullato\./);
      assert.equal(await page.getByRole('link', { name: 'Modifica' }).count(), 0, 'a cancelled order is not offered a change');
      assert.equal(await page.getByRole('button', { name: "Annulla l'ordine" }).count(), 0);
      await shot(page, 'portal-order-cancelled');

      await page.goto(`${t.url}/portale/ordini/${ids['WAIT-1']}`);
      const request = page.locator('tr.request');
      assert.match(await request.innerText(), /Modifica\s+In attesa della produzione/);
      assert.match(await page.locator('main').innerText(), /È in attesa una richiesta di modifica/);
      assert.match(await page.getByRole('region', { name: 'Modifica richiesta' }).locator('tr.changed').innerText(), /BV-STD\s+750 era 500/);
      assert.equal(await page.getByRole('link', { name: 'Modifica' }).count(), 0, 'no change while a request waits');
      await page.goto(`${t.url}/portale/ordini/${ids['WAIT-1']}/modifica`);
      assert.equal(page.url(), `${t.url}/portale/ordini/${ids['WAIT-1']}`, 'the change form leads back to the order while a request waits');
      await shot(page, 'portal-order-request');

      // A change sent anyway (an old page, a second tab) is refused by the core, and the page says why.
      const client = new Client(t.url);
      await client.login('portale', c1.ftpUser, c1.ftpPassword);
      const _csrf = await client.token(`/portale/ordini/${ids['MOD-1']}/modifica`);
      const late = await client.send('POST', `/portale/ordini/${ids['WAIT-1']}/annulla`, { _csrf, motivo: '' });
      assert.equal(late.status, 422);
      assert.match(late.body, /è già in attesa una richiesta di modifica/);
      assert.equal((await client.send('POST', `/portale/ordini/${ids['MOD-1']}/annulla`, {})).status, 403, 'no CSRF token');
      assert.equal((await stored(ids['MOD-1']!)).productionState, undefined);
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('operator sees the versions side by side, accepts the request, cancels on the customer\'s behalf; the audit log shows it', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      const req = await stored(ids['REQ-1']!);
      await page.goto(`${t.url}/console/clienti/C001/ordini/${ids['REQ-1']}`);
      const waiting = page.locator('tr.request');
      assert.match(await waiting.innerText(), /Modifica\s+In attesa della produzione/);
      // What the request would change, before deciding.
      const proposal = page.getByRole('region', { name: 'Modifica richiesta' });
      assert.match(await proposal.locator('tr.changed').innerText(), /BV-STD\s+750 era 500\s+PZ/);
      assert.match(await proposal.locator('tr.added').innerText(), /CAR-A4-80 aggiunta\s+3\s+RS/);
      assert.match(await proposal.locator('tr.removed').innerText(), /VOL-A4 rimossa\s+1000\s+PZ/);
      await shot(page, 'console-order-request');
      await page.locator('tr.decide').getByLabel('Nota per il cliente (facoltativa)').fill('Accettata: lastre non ancora incise');
      await page.getByRole('button', { name: 'Accetta' }).click();
      await page.locator('.notice.ok').waitFor();
      assert.equal((await page.locator('.notice.ok').innerText()).trim(), "Richiesta di modifica accettata: l'ordine è ora alla versione 2.");
      assert.match(await page.locator('tr.request').innerText(), /Accettata[\s\S]*Accettata: lastre non ancora incise/);
      assert.equal(await page.getByRole('button', { name: 'Accetta' }).count(), 0, 'a decided request has no buttons');

      const versions = page.getByRole('region', { name: 'Versioni' });
      assert.equal(await versions.locator('section.version').count(), 2);
      const v2 = versions.locator('section', { hasText: 'Versione 2' });
      assert.match(await v2.locator('tr.changed').innerText(), /BV-STD\s+750 era 500\s+PZ/);
      assert.match(await v2.locator('tr.added').innerText(), /CAR-A4-80 aggiunta\s+3\s+RS/);
      assert.match(await v2.locator('tr.removed').innerText(), /VOL-A4 rimossa\s+1000\s+PZ/);
      assert.deepEqual(await v2.locator('mark.changed').allInnerTexts(), ['✎ 10/12/2026', '✎ Consegna al magazzino B', '750']);
      assert.equal(await versions.locator('section', { hasText: 'Versione 1' }).locator('tr.same').count(), 2);
      await shot(page, 'console-order-versions');

      const rest = await api('GET', `/api/v1/ordini/${ids['REQ-1']}`, c1.apiKey);
      assert.equal(rest.body.versione, 2);
      assert.deepEqual((rest.body.richieste as { stato_richiesta: string; nota: string }[]).map((r) => [r.stato_richiesta, r.nota]),
        [['accettata', 'Accettata: lastre non ancora incise']]);
      assert.equal(rest.body.numero_ordine, req.numero_ordine);

      // Cancelling on the customer's behalf: the reason is required (the browser says so before sending).
      const cons = await stored(ids['CONS-1']!);
      await page.goto(`${t.url}/console/clienti/C001/ordini/${ids['CONS-1']}`);
      assert.equal(await page.getByLabel("Motivo dell'annullamento").getAttribute('required'), '');
      await page.getByLabel("Motivo dell'annullamento").fill('Il cliente ha telefonato: ordine doppio');
      await page.getByRole('button', { name: 'Annulla ordine' }).click();
      await page.locator('.notice.ok').waitFor();
      assert.equal((await page.locator('.notice.ok').innerText()).trim(), `Ordine ${cons.numero_ordine} annullato`);
      assert.match(await page.locator('#produzione + p').innerText(), /Annullato/);
      assert.match(await page.locator('main').innerText(), /Il cliente ha telefonato: ordine doppio/);
      assert.equal(await page.getByRole('button', { name: 'Annulla ordine' }).count(), 0);
      await shot(page, 'console-order-cancelled');

      const now = await stored(ids['CONS-1']!);
      assert.equal(now.productionState, 'annullato');
      const subs = await t.service.store.searchSubmissions({ customerId: await customerId(), limit: 50 });
      const sub = subs.find((s) => s.channel === 'console');
      assert.ok(sub, 'the cancellation is a console submission');
      const full = (await t.service.store.getSubmission(sub.id))!;
      assert.deepEqual(JSON.parse(full.raw.toString('utf8')), {
        codice_cliente: 'C001', riferimento_ordine: 'CONS-1', azione: 'annulla', motivo: 'Il cliente ha telefonato: ordine doppio',
      });
      assert.equal(full.meta.operatore, email);
      const db = new Database(path.join(t.dataDir, 'intake.sqlite'), { readonly: true });
      try {
        const step = db.prepare("SELECT integration FROM order_production_history WHERE order_id = ? AND stato = 'annullato'").get(ids['CONS-1']) as { integration: string };
        assert.equal(step.integration, `operatore:${email}`, 'the history says which operator cancelled');
      } finally {
        db.close();
      }

      await page.goto(`${t.url}/console/registro`);
      const log = await page.locator('tbody').innerText();
      assert.match(log, /Ordine annullato per conto del cliente[\s\S]*Motivo:\s*Il cliente ha telefonato: ordine doppio/);
      assert.match(log, /Richiesta accettata[\s\S]*Nota:\s*Accettata: lastre non ancora incise/);
      assert.match(log, new RegExp(`Numero ordine:\\s*${cons.numero_ordine}`));
      await page.getByRole('link', { name: `ordine ${cons.numero_ordine}` }).click();
      await page.getByRole('heading', { name: `Ordine ${cons.numero_ordine}` }).waitFor();
      await page.goto(`${t.url}/console/registro`);
      await shot(page, 'console-audit-lifecycle');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('refuses a viewer, a missing reason and a form without CSRF token; nothing changes', async () => {
    const { password: pw } = await addOperator(t.service.store, { email: 'viewer@example.com', role: 'viewer' });
    const viewer = new Client(t.url);
    await viewer.login('console', 'viewer@example.com', pw);
    const url = `/console/clienti/C001/ordini/${ids['WAIT-1']}`;
    const seen = await viewer.send('GET', url);
    assert.equal(seen.status, 200);
    assert.match(seen.body, /In attesa della produzione/, 'a viewer sees the request');
    assert.doesNotMatch(seen.body, /Accetta|Annulla ordine/, 'a viewer is not offered the actions');
    const waiting = (await t.service.store.orderRequests(ids['WAIT-1']!))[0]!;
    const _csrf = await viewer.token(url);
    assert.equal((await viewer.send('POST', `${url}/richieste/${waiting.id_richiesta}`, { _csrf, esito: 'accettata' })).status, 403);
    assert.equal((await viewer.send('POST', `${url}/annulla`, { _csrf, motivo: 'prova' })).status, 403);

    const ops = new Client(t.url);
    await ops.login('console', email, password);
    assert.equal((await ops.send('POST', `${url}/richieste/${waiting.id_richiesta}`, { esito: 'rifiutata' })).status, 403, 'no CSRF token');
    const token = await ops.token(url);
    const noReason = await ops.send('POST', `${url}/annulla`, { _csrf: token, motivo: '  ' });
    assert.equal(noReason.status, 422);
    assert.match(noReason.body, /Indicare il motivo dell&#39;annullamento/);
    const bad = await ops.send('POST', `${url}/richieste/${waiting.id_richiesta}`, { _csrf: token, esito: 'forse' });
    assert.equal(bad.status, 400);
    assert.equal((await ops.send('POST', `${url}/richieste/00000000-0000-4000-8000-000000000000`, { _csrf: token, esito: 'rifiutata' })).status, 404);
    assert.equal((await t.service.store.orderRequests(ids['WAIT-1']!))[0]!.stato_richiesta, 'in_attesa', 'still waiting');

    // Refused by an operator, then the same decision again: answered as done; the opposite one is refused in words.
    const no = await ops.send('POST', `${url}/richieste/${waiting.id_richiesta}`, { _csrf: token, esito: 'rifiutata', nota: 'Già stampato' });
    assert.equal(no.status, 200);
    assert.match(no.body, /Richiesta di modifica rifiutata: l&#39;ordine resta alla versione 1\./);
    const again = await ops.send('POST', `${url}/richieste/${waiting.id_richiesta}`, { _csrf: token, esito: 'accettata' });
    assert.equal(again.status, 409);
    assert.match(again.body, /è già stata rifiutata/);
    assert.equal((await stored(ids['WAIT-1']!)).versione, 1);
  });
});
