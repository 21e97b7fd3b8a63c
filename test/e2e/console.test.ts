// The operators' console in a real browser (Debian's chromium): an operator logs in, finds a refused CSV,
// corrects its article code, registers it on the customer's behalf, and the audit log shows it. Screenshots of
// the main pages go to test-results/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestCustomer, TestService } from '../helpers/service.ts';
import { DESKTOP, launch, login, newPage, PHONE, shot, startWithOperator } from './browser.ts';
import { addIntegration } from '../../src/handoff/integrations.ts';

const REFUSED_CSV = [
  'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura',
  'C001;PO-77;2026-11-20;2026-12-01;BV-XXX;500;PZ',
  'C001;PO-77;2026-11-20;2026-12-01;VOL-A4;1000;PZ',
].join('\r\n');

void describe('console in the browser', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let c001: TestCustomer;
  let refusedId: string;

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    c001 = await t.customer('C001');
    const customer = (await t.service.store.getCustomerByCode('C001'))!;
    // A file as the SFTP channel hands it to the core: one order, an unknown article on its first line.
    const { submission, outcome } = await t.service.intake.submit({
      principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'sftp', fileName: 'ordini-novembre.csv',
      mediaType: 'text/csv', raw: Buffer.from(REFUSED_CSV, 'utf8'),
    });
    assert.equal(outcome.esito, 'errore', 'the fixture file is refused');
    refusedId = submission.id;
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('operator logs in, corrects a refused CSV, registers it; the order gets a number and the audit log shows it', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.getByRole('heading', { name: 'Riepilogo' }).waitFor();
      assert.match(await page.locator('.card').nth(2).innerText(), /1/, 'one refused submission this week');
      await shot(page, 'console-dashboard');

      await page.getByRole('link', { name: 'Vedi gli invii con ordini rifiutati' }).first().click();
      await page.getByRole('heading', { name: 'Invii' }).waitFor();
      const row = page.locator('tr', { hasText: 'ordini-novembre.csv' });
      assert.match(await row.innerText(), /Rifiutato/);
      await shot(page, 'console-submissions');

      await row.getByRole('link').click();
      await page.getByText('Articolo sconosciuto: "BV-XXX"').waitFor();
      assert.match(await page.locator('.errors').innerText(), /Riga 2 del file:\s*Articolo sconosciuto: "BV-XXX"/);
      assert.match(await page.locator('pre.raw').innerText(), /C001;PO-77;2026-11-20;2026-12-01;BV-XXX;500;PZ/);
      await shot(page, 'console-submission-refused');

      await page.getByRole('link', { name: 'Correggi e registra' }).click();
      const code = page.getByLabel('Riga 1: codice articolo');
      assert.equal(await code.inputValue(), 'BV-XXX', 'the form holds the decoded order');
      assert.equal(await page.getByLabel('Riga 2: codice articolo').inputValue(), 'VOL-A4');
      assert.equal(await page.getByLabel('Riferimento ordine').inputValue(), 'PO-77');
      await code.fill('BV-STD');
      await shot(page, 'console-correct');
      await page.getByRole('button', { name: "Registra l'ordine" }).click();
      const numero = (await page.locator('.notice .numero').innerText()).trim();
      assert.match(numero, /^\d{4}-\d{6}$/);
      // The recap of the lines as registered (issue 43): what the customer will be told.
      assert.deepEqual(await page.locator('table.recap-lines tbody tr').allInnerTexts(),
        ['BV-STD\tBiglietti da visita\t500\tPZ', 'VOL-A4\tVolantini A4\t1000\tPZ']);
      await shot(page, 'console-corrected');

      const customer = (await t.service.store.getCustomerByCode('C001'))!;
      const order = await t.service.store.getOrderByRef(customer.id, 'PO-77');
      assert.equal(order?.numero_ordine, numero);
      assert.equal(order?.channel, 'console');
      assert.deepEqual(order?.righe.map((r) => r.codice_articolo), ['BV-STD', 'VOL-A4']);
      const correction = await t.service.store.getSubmission(order!.submissionId);
      assert.equal(correction?.meta.corregge, refusedId, 'the correction links the original submission');
      assert.equal(correction?.meta.operatore, email);

      await page.getByRole('link', { name: 'Registro attività' }).first().click();
      const entry = page.locator('tr', { hasText: 'Correzione registrata' });
      const text = await entry.innerText();
      assert.doesNotMatch(await page.locator('main').innerText(), /invio\.correggi_registra|\blogin\b/, 'actions in words, not their keys');
      assert.match(await page.locator('tr', { hasText: 'Accesso' }).first().innerText(), /Accesso/);
      assert.match(text, new RegExp(email.replace('.', '\\.')));
      assert.match(text, new RegExp(numero));
      assert.match(text, new RegExp(refusedId));
      await shot(page, 'console-audit');

      await page.goto(`${t.url}/console/invii/${refusedId}`);
      assert.match(await page.locator('main li', { hasText: 'Correzione registrata' }).innerText(), new RegExp(`${email.replace('.', '\\.')}: Correzione registrata, ordine ${numero}`));
      // The refused copy says the order is registered since, and offers no second correction.
      assert.match(await page.locator('tr', { hasText: 'PO-77' }).locator('.registered-since').innerText(),
        new RegExp(`Registrato in seguito dall'ufficio ordini come ${numero}`));
      assert.equal(await page.getByRole('link', { name: 'Correggi e registra' }).count(), 0);
      await shot(page, 'console-submission-registered-since');

      // A second correction all the same (the form's address typed by hand): answered as the order registered, no
      // refusal on the event feed.
      const mis = (await addIntegration(t.service.store, 'MIS')).api_key;
      await page.goto(`${t.url}/console/invii/${refusedId}/correggi`);
      await page.getByLabel('Riga 1: codice articolo').fill('BV-STD');
      await page.getByLabel('Quantità').first().fill('600');
      await page.getByRole('button', { name: "Registra l'ordine" }).click();
      assert.equal((await page.locator('.notice .numero').innerText()).trim(), numero);
      assert.match(await page.locator('.notice').first().innerText(), /era già registrato/);
      await shot(page, 'console-corrected-again');
      const feed = await fetch(`${t.url}/api/v1/eventi?limite=1000`, { headers: { 'x-api-key': mis } });
      assert.equal(feed.status, 200);
      const events = ((await feed.json()) as { eventi: { type: string; data: { riferimento_ordine?: string } }[] }).eventi
        .filter((e) => e.data.riferimento_ordine === 'PO-77');
      assert.deepEqual(events.map((e) => e.type), ['ordine.rifiutato', 'ordine.registrato'],
        'the file\'s refusal and the first correction\'s registration; nothing for the second correction');

      await page.goto(`${t.url}/console/ordini`);
      await page.locator('tr', { hasText: 'PO-77' }).getByRole('link', { name: numero }).click();
      await page.getByRole('heading', { name: `Ordine ${numero}` }).waitFor();
      await shot(page, 'console-order');
      await page.goto(`${t.url}/console/clienti`);
      await shot(page, 'console-customers');
      await page.goto(`${t.url}/console/articoli?q=BV`);
      assert.match(await page.locator('table').first().innerText(), /BV-STD/);
      await shot(page, 'console-articles');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
    void c001;
  });

  void it('exports the filtered orders as CSV, downloaded as an attachment', async () => {
    const { context, page } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      const res = await page.request.get(`${t.url}/console/ordini.csv?cliente=C001`);
      assert.equal(res.status(), 200);
      assert.match(res.headers()['content-disposition'] ?? '', /^attachment; filename="ordini\.csv"$/);
      const body = await res.text();
      assert.match(body, /^\ufeffnumero_ordine;codice_cliente;cliente;riferimento_ordine/);
      assert.match(body, /"C001";"Cliente C001";"PO-77"/);
    } finally {
      await context.close();
    }
  });

  void it('imports an article catalog CSV and lists connectors and sites', async () => {
    await t.service.store.createSite({ code: 'VR', name: 'Verona <b>centro</b>' });
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/articoli`);
      await page.getByLabel(/Importa un catalogo CSV/).setInputFiles({
        name: 'catalogo.csv', mimeType: 'text/csv', buffer: Buffer.from('codice_articolo;descrizione;unita_misura\r\nNUOVO-1;Nuovo articolo;PZ\r\nNUOVO-2;Altro;RS\r\n'),
      });
      await shot(page, 'console-articles-import');
      await page.getByRole('button', { name: 'Importa', exact: true }).click();
      // The import runs in the background; its page follows it until the outcome.
      await page.getByRole('status').filter({ hasText: /2 articoli importati da catalogo\.csv/ }).waitFor();
      assert.equal(await page.getByLabel('Avanzamento di catalogo.csv').getAttribute('value'), '100');
      assert.deepEqual([...await t.service.store.knownArticles(['NUOVO-1', 'NUOVO-2', 'NUOVO-3'])].sort(), ['NUOVO-1', 'NUOVO-2']);
      const audit = await t.service.store.listAudit({ limit: 5 });
      assert.equal(audit[0]?.action, 'articoli.importa');
      await page.getByRole('link', { name: 'Connettori' }).click();
      await page.getByText('Verona <b>centro</b>').waitFor();
      await shot(page, 'console-connectors');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('works at phone width', async () => {
    const { context, page } = await newPage(browser, PHONE);
    try {
      await login(page, t.url, 'console', email, password);
      await shot(page, 'console-dashboard-phone');
      await page.goto(`${t.url}/console/invii`);
      await shot(page, 'console-submissions-phone');
      await page.goto(`${t.url}/console/invii/${refusedId}`);
      await shot(page, 'console-submission-phone');
      // Nothing wider than the screen except inside the scrolling table and raw-file boxes.
      const overflow = await page.evaluate('document.documentElement.scrollWidth') as number;
      assert.ok(overflow <= PHONE.width, `page is ${overflow} px wide`);
    } finally {
      await context.close();
    }
    void DESKTOP;
  });
});
