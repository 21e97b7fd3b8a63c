// What people read of an order's progress and of a file's outcome, in chromium: production reports an order shipped
// with a tracking number through the real REST route (an integration key), and the customer sees the state and the
// note in "I miei ordini" and on the order page, the operator in the console's list and order page; an order
// nothing was reported for reads "In attesa di lavorazione". Another customer's report never shows. A file with one
// good and one bad order reads "Parzialmente accettato" (console list and page, portal, a dashboard count of its
// own). Dates read 28/11/2026 and times 28/11/2026 14:05 in the service's time zone, never ISO.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { order, type TestCustomer, type TestService } from '../helpers/service.ts';
import { launch, login, newPage, PHONE, shot, startWithOperator, assertNoSideScroll } from './browser.ts';

/** Not the default zone, and far from UTC: a time shown in UTC or in Rome would not match. */
const ZONE = 'America/Los_Angeles';
const TRACKING = 'BRT 0123456789 <consegna> al piano terra';

const PARTIAL_CSV = [
  'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura',
  'C001;MISTO-OK;2026-11-20;2026-12-01;BV-STD;500;PZ',
  'C001;MISTO-KO;2026-11-20;2026-12-01;NON-ESISTE;10;PZ',
].join('\r\n');

/** `28/11/2026 14:05` as a person in ZONE reads the instant. */
const local = (iso: string) => new Intl.DateTimeFormat('it-IT', {
  timeZone: ZONE, day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit',
}).format(new Date(iso)).replace(',', '');

/** Text of the page's main part that looks like a machine date (2026-11-20, 2026-11-28T13:05:00.000Z). */
async function isoOnPage(page: Page): Promise<string[]> {
  return (await page.locator('main').innerText()).match(/\d{4}-\d{2}-\d{2}/g) ?? [];
}

void describe('production status and partial outcomes in the browser', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let c1: TestCustomer;
  let shippedId: string;
  let waitingId: string;
  let otherId: string;
  let partialId: string;
  let mis: string;

  const send = async (c: TestCustomer, body: unknown) => {
    const res = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.apiKey }, body: JSON.stringify(body),
    });
    assert.equal(res.status, 201);
    return ((await res.json()) as { id_ordine: string }).id_ordine;
  };
  const report = async (id: string, body: Record<string, string>) => {
    const res = await fetch(`${t.url}/api/v1/ordini/${id}/stato`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': mis }, body: JSON.stringify(body),
    });
    assert.equal(res.status, 200, await res.text());
  };

  before(async () => {
    ({ t, email, password } = await startWithOperator({ INTAKE_TIMEZONE: ZONE }));
    c1 = await t.customer('C001');
    const c2 = await t.customer('C002');
    mis = (await addIntegration(t.service.store, 'MIS')).api_key;
    shippedId = await send(c1, order('C001', 'SPEDITO-1', { data_ordine: '2026-11-28', data_consegna: '2026-12-03' }));
    waitingId = await send(c1, order('C001', 'ATTESA-1'));
    otherId = await send(c2, order('C002', 'ALTRUI-1'));
    await report(shippedId, { stato: 'in_lavorazione', nota: 'In macchina sulla linea 2' });
    await report(shippedId, { stato: 'spedito', nota: TRACKING });
    await report(otherId, { stato: 'spedito', nota: 'NOTA-ALTRUI' });

    const customer = (await t.service.store.getCustomerByCode('C001'))!;
    const { submission, outcome } = await t.service.intake.submit({
      principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'sftp', fileName: 'misto.csv',
      mediaType: 'text/csv', raw: Buffer.from(PARTIAL_CSV, 'utf8'),
    });
    assert.deepEqual(outcome.orders.map((o) => o.esito), ['ok', 'errore'], 'the fixture file is half accepted');
    partialId = submission.id;
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('the customer sees the state and the note in "I miei ordini" and the history on the order page, scoped to him', async () => {
    const history = (await t.service.store.getOrderAnyCustomer(shippedId))!.productionHistory!;
    assert.equal(history.length, 2);
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', c1.ftpUser, c1.ftpPassword);
      await page.getByRole('link', { name: 'I miei ordini' }).click();
      const shipped = page.locator('tr', { hasText: 'SPEDITO-1' });
      const row = await shipped.innerText();
      assert.match(row, /Spedito/);
      assert.ok(row.includes(TRACKING), 'the note, as written (escaped, not markup)');
      assert.ok(row.includes(`dal ${local(history[1]!.aggiornato_il)}`), row);
      assert.match(row, /28\/11\/2026\s+03\/12\/2026/, 'order and delivery dates as people write them');
      assert.match(await page.locator('tr', { hasText: 'ATTESA-1' }).innerText(), /In attesa di lavorazione/);
      const list = await page.locator('main').innerText();
      assert.doesNotMatch(list, /ALTRUI-1|NOTA-ALTRUI/, 'only the customer\'s own orders');
      assert.deepEqual(await isoOnPage(page), []);
      await shot(page, 'portal-orders-production');

      await shipped.getByRole('link').click();
      await page.getByRole('heading', { name: 'Stato di produzione' }).waitFor();
      const steps = await page.locator('table', { has: page.getByRole('columnheader', { name: 'Nota' }) }).locator('tbody tr').allInnerTexts();
      assert.equal(steps.length, 2);
      assert.match(steps[0]!, new RegExp(`^${local(history[0]!.aggiornato_il)}\\s+In lavorazione\\s+In macchina sulla linea 2$`));
      assert.ok(steps[1]!.startsWith(`${local(history[1]!.aggiornato_il)}`) && steps[1]!.includes('Spedito') && steps[1]!.includes(TRACKING), steps[1]);
      assert.match(await page.locator('dl.fields').innerText(), /Data ordine\s+28\/11\/2026\s+Data di consegna\s+03\/12\/2026/);
      assert.deepEqual(await isoOnPage(page), []);
      await shot(page, 'portal-order-production');

      await page.goto(`${t.url}/portale/ordini/${waitingId}`);
      assert.match(await page.locator('main').innerText(), /In attesa di lavorazione\s+La produzione non ha ancora comunicato aggiornamenti/);
      const res = await page.goto(`${t.url}/portale/ordini/${otherId}`);
      assert.equal(res?.status(), 404, 'another customer\'s order is not found');
      assert.doesNotMatch(await page.content(), /NOTA-ALTRUI/);

      // The file with one order accepted and one refused, among the customer's latest submissions.
      await page.goto(`${t.url}/portale/`);
      assert.match(await page.locator('tr', { hasText: 'misto.csv' }).innerText(), /Parzialmente accettato/);
      await shot(page, 'portal-home-partial');
      await page.goto(`${t.url}/portale/invii/${partialId}`);
      assert.match(await page.locator('h1').innerText(), /Parzialmente accettato/);
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('the operator sees the state and the note in the orders list and the history on the order page', async () => {
    const history = (await t.service.store.getOrderAnyCustomer(shippedId))!.productionHistory!;
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      assert.equal(await page.locator('header .who').innerText(), `${email} (operatore)`);
      await page.getByRole('link', { name: 'Ordini', exact: true }).click();
      const shipped = page.locator('tr', { hasText: 'SPEDITO-1' });
      const row = await shipped.innerText();
      assert.ok(row.includes('Spedito') && row.includes(TRACKING) && row.includes(`dal ${local(history[1]!.aggiornato_il)}`), row);
      assert.match(row, /28\/11\/2026/);
      assert.match(await page.locator('tr', { hasText: 'ALTRUI-1' }).innerText(), /Spedito[\s\S]*NOTA-ALTRUI/, 'the console sees every customer');
      assert.match(await page.locator('tr', { hasText: 'ATTESA-1' }).innerText(), /In attesa di lavorazione/);
      assert.deepEqual(await isoOnPage(page), []);
      await shot(page, 'console-orders-production');

      await shipped.getByRole('link').first().click();
      await page.getByRole('heading', { name: 'Stato di produzione' }).waitFor();
      const main = await page.locator('main').innerText();
      assert.ok(main.includes(local(history[0]!.aggiornato_il)) && main.includes('In macchina sulla linea 2'), main);
      assert.ok(main.includes(TRACKING));
      assert.deepEqual(await isoOnPage(page), []);
      await shot(page, 'console-order-production');

      // The customer's page lists his recent orders with their state too.
      await page.goto(`${t.url}/console/clienti/C001`);
      assert.match(await page.locator('tr', { hasText: 'SPEDITO-1' }).innerText(), /Spedito/);
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('a file with one good and one bad order reads "Parzialmente accettato", counted apart on the dashboard', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      const card = (title: string) => page.locator('.card', { hasText: title }).locator('.big').innerText();
      assert.equal(await card('Invii parzialmente accettati questa settimana'), '1');
      assert.equal(await card('Invii rifiutati questa settimana'), '0', 'a partly accepted file is not counted as refused');
      await shot(page, 'console-dashboard-partial');

      await page.getByRole('link', { name: 'Vedi gli invii con ordini rifiutati' }).first().click();
      const row = page.locator('tr', { hasText: 'misto.csv' });
      assert.equal((await row.locator('.badge').innerText()).trim(), 'Parzialmente accettato');
      const received = (await t.service.store.getSubmission(partialId))!.receivedAt;
      assert.match(await row.innerText(), new RegExp(`^${local(received)}`), 'received at, in the service\'s time zone');
      await shot(page, 'console-submissions-partial');

      await row.getByRole('link').click();
      assert.match(await page.locator('h1').innerText(), /misto\.csv\s+Parzialmente accettato/);
      assert.match(await page.locator('tr', { hasText: 'MISTO-OK' }).innerText(), /Accettato\s+\d{4}-\d{6}/);
      assert.match(await page.locator('tr', { hasText: 'MISTO-KO' }).innerText(), /Rifiutato/);
      await shot(page, 'console-submission-partial');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('the portal\'s orders with their state fit a phone', async () => {
    const { context, page } = await newPage(browser, PHONE);
    try {
      await login(page, t.url, 'portale', c1.ftpUser, c1.ftpPassword);
      await page.goto(`${t.url}/portale/ordini/${shippedId}`);
      await page.getByRole('heading', { name: 'Stato di produzione' }).waitFor();
      await assertNoSideScroll(page);
      await shot(page, 'portal-order-production-phone');
    } finally {
      await context.close();
    }
  });
});
