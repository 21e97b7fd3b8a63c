// The portal's order form in chromium (issue 43): lines are added as needed ("Aggiungi riga": in place with the
// script, by sending the form back without it), a note goes with the order and comes back from the REST API,
// and the article suggestions find a part of the code or the description but never a demo article for a real
// customer.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestService, waitFor, type TestCustomer, type TestService } from '../helpers/service.ts';
import { launch, login, newPage, PHONE, shot } from './browser.ts';

const NOTE = 'Consegna al magazzino B, piano terra.\nChiamare prima: 045 123456.';

/** The order as the customer's ERP would read it back: GET /api/v1/ordini?riferimento_ordine=… */
async function restOrder(t: TestService, c: TestCustomer, ref: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${t.url}/api/v1/ordini?riferimento_ordine=${encodeURIComponent(ref)}`, { headers: { 'x-api-key': c.apiKey } });
  assert.equal(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

/** The codes the catalog datalist offers now (a page expression: the tests are not compiled with the DOM's types). */
const OFFERED = `[...document.querySelectorAll('datalist#catalogo option')].map((o) => o.value)`;

async function offered(page: Page): Promise<string[]> {
  return await page.evaluate(OFFERED) as string[];
}

void describe('portal order form: lines, note, suggestions', () => {
  let t: TestService;
  let browser: Browser;
  let c: TestCustomer;

  before(async () => {
    t = await startTestService();
    c = await t.customer('C001');
    // What the first start seeds for the DEMO customer: never offered to C001.
    await t.service.store.upsertArticles([{ codice_articolo: 'BV-DEMO', descrizione: 'Biglietti da visita dimostrativi', unita_misura: 'PZ', demo: true }]);
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('with the script: "Aggiungi riga" adds a line in place, suggestions match the description, the note reaches the order', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', c.ftpUser, c.ftpPassword);
      await page.getByRole('link', { name: 'Nuovo ordine' }).click();
      assert.equal(await page.locator('#righe .line').count(), 1, 'one line to start with');
      assert.ok(!(await offered(page)).includes('BV-DEMO'), 'no demo article among the suggestions rendered');
      await page.getByLabel('Riferimento ordine').fill('FORM-JS');
      await page.getByLabel('Riga 1: codice articolo').fill('CAR-A4-80');
      await page.locator('#q0').fill('12,5');
      await page.locator('#u0').fill('RS');
      // In place: the page is not loaded again (the marker survives), and the new line is numbered and focused.
      await page.evaluate('window.stillHere = true');
      await page.getByRole('button', { name: 'Aggiungi riga' }).click();
      const second = page.getByLabel('Riga 2: codice articolo');
      await second.waitFor();
      assert.equal(await page.evaluate('window.stillHere'), true, 'no round trip');
      assert.equal(await page.evaluate('document.activeElement.id'), 'a1', 'the new line\'s code has the focus');
      assert.equal(await second.inputValue(), '');
      // A part of the description, in any case: only that article, and never the demo one that also matches.
      await second.pressSequentially('VISITA');
      await waitFor(async () => ((await offered(page)).join() === 'BV-STD' ? true : undefined), 10_000, 'the suggestions for "VISITA"');
      await second.fill('BV-STD');
      await page.locator('#q1').fill('500');
      await page.locator('#u1').fill('pz');
      await page.getByRole('button', { name: 'Aggiungi riga' }).click();
      await page.getByLabel('Riga 3: codice articolo').waitFor();
      await page.getByLabel('Note').fill(NOTE);
      await shot(page, 'portal-order-form-lines');
      await page.getByRole('button', { name: "Invia l'ordine" }).click();
      const numero = (await page.locator('.numero').first().innerText()).trim();
      assert.match(numero, /^\d{4}-\d{6}$/);
      const o = await restOrder(t, c, 'FORM-JS');
      assert.equal(o.numero_ordine, numero);
      assert.equal(o.note, NOTE, 'the note, line break kept');
      assert.deepEqual(o.righe, [
        { codice_articolo: 'CAR-A4-80', quantita: 12.5, unita_misura: 'RS' }, { codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' },
      ], 'the empty third line is ignored');
      // The customer sees the note on the order's page too.
      await page.goto(`${t.url}/portale/ordini/${String(o.id_ordine)}`);
      assert.equal(await page.locator('dd.note').innerText(), NOTE);
      await shot(page, 'portal-order-note');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('without a script: "Aggiungi riga" sends the form back with one more line and everything typed kept', async () => {
    const context = await browser.newContext({ viewport: PHONE, locale: 'it-IT', javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await login(page, t.url, 'portale', c.ftpUser, c.ftpPassword);
      await page.goto(`${t.url}/portale/ordine`);
      await page.getByLabel('Riferimento ordine').fill('FORM-NOJS');
      await page.getByLabel('Riga 1: codice articolo').fill('VOL-A4');
      await page.locator('#q0').fill('1000');
      await page.locator('#u0').fill('PZ');
      await page.getByLabel('Note').fill(NOTE);
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Aggiungi riga' }).click()]);
      await page.getByLabel('Riga 2: codice articolo').waitFor();
      assert.equal(await page.locator('#righe .line').count(), 2);
      assert.equal(await page.getByLabel('Riferimento ordine').inputValue(), 'FORM-NOJS');
      assert.equal(await page.getByLabel('Riga 1: codice articolo').inputValue(), 'VOL-A4');
      assert.equal(await page.getByLabel('Note').inputValue(), NOTE);
      assert.equal(await t.service.store.getOrderByRef((await t.service.store.getCustomerByCode('C001'))!.id, 'FORM-NOJS'), undefined, 'nothing sent yet');
      await page.getByLabel('Riga 2: codice articolo').fill('BV-STD');
      await page.locator('#q1').fill('250');
      await page.locator('#u1').fill('PZ');
      await shot(page, 'portal-order-form-noscript-phone');
      await page.getByRole('button', { name: "Invia l'ordine" }).click();
      assert.match((await page.locator('.numero').first().innerText()).trim(), /^\d{4}-\d{6}$/);
      const o = await restOrder(t, c, 'FORM-NOJS');
      assert.equal(o.note, NOTE);
      assert.deepEqual((o.righe as { codice_articolo: string }[]).map((r) => r.codice_articolo), ['VOL-A4', 'BV-STD']);
    } finally {
      await context.close();
    }
  });

  void it('the suggestions endpoint: a part of the code or description, any case, no demo article for a real customer', async () => {
    const { context, page } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', c.ftpUser, c.ftpPassword);
      const codes = async (q: string) => (await page.evaluate(async (url) => (await fetch(url)).json(), `/portale/articoli?q=${encodeURIComponent(q)}`) as { codice: string }[]).map((a) => a.codice);
      assert.deepEqual(await codes('a4'), ['CAR-A4-80', 'VOL-A4']);
      assert.deepEqual(await codes('biglietti'), ['BV-STD']);
      assert.deepEqual(await codes('_'), []);
    } finally {
      await context.close();
    }
  });
});
