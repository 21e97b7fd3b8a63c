// Searching by a part of a value, in any case (issue 43), in chromium: the portal's "I miei ordini" by reference
// (`121` finds PO-1213, and never another customer's order), the console's order and submission lists by a part of
// the customer's name (`ferri` finds "Tipografia Ferri") and of the reference, and the console's correction form,
// whose suggestions are the customer's (no demo article for a real customer), whose "Aggiungi riga" works, and
// whose note reaches the order shown on the console's order page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { provisionCustomer, type ProvisionedCustomer } from '../../src/customers/provision.ts';
import { order, waitFor, type TestService } from '../helpers/service.ts';
import { launch, login, newPage, shot, startWithOperator } from './browser.ts';

const REFUSED_CSV = [
  'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura;note',
  'C101;PO-5555;2026-11-20;BV-XXX;500;PZ;Imballo singolo',
].join('\r\n');

/** The references listed in the page's table, top to bottom. */
async function listed(page: Page, column: number): Promise<string[]> {
  // A page expression: the tests are not compiled with the DOM's types.
  return await page.evaluate(`[...document.querySelectorAll('main table tbody tr')].map((r) => r.cells[${column}].textContent.trim())`) as string[];
}

void describe('search by a part of a value, in any case', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let ferri: ProvisionedCustomer;
  let refusedId: string;

  async function send(apiKey: string, code: string, ref: string): Promise<void> {
    const note = ref === 'po-77' ? { note: 'Piano terra;\n"retro"' } : {};
    const res = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(order(code, ref, note)),
    });
    assert.equal(res.status, 201, ref);
  }

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    const store = t.service.store;
    ferri = await provisionCustomer(store, { code: 'C101', name: 'Tipografia Ferri' }, 'ordini.test');
    const rossi = await provisionCustomer(store, { code: 'C202', name: 'Studio Rossi' }, 'ordini.test');
    for (const ref of ['PO-1213', 'po-77', 'X_1']) await send(ferri.apiKey, 'C101', ref);
    for (const ref of ['PO-1219', 'ZZ-1']) await send(rossi.apiKey, 'C202', ref);
    await store.upsertArticles([{ codice_articolo: 'BV-DEMO', descrizione: 'Biglietti da visita dimostrativi', unita_misura: 'PZ', demo: true }]);
    const { submission, outcome } = await t.service.intake.submit({
      principal: { customerId: ferri.customer.id, customerCode: 'C101' }, channel: 'sftp', fileName: 'ferri.csv',
      mediaType: 'text/csv', raw: Buffer.from(REFUSED_CSV, 'utf8'),
    });
    assert.equal(outcome.esito, 'errore');
    refusedId = submission.id;
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('portal: "I miei ordini" finds a part of the reference, in any case, only among the customer\'s own', async () => {
    const { context, page } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', ferri.ftpUser, ferri.ftpPassword);
      await page.getByRole('link', { name: 'I miei ordini' }).click();
      const search = async (text: string) => {
        await page.getByLabel(/Riferimento ordine/).fill(text);
        await Promise.all([page.waitForURL(/\/portale\/ordini\?/), page.getByRole('button', { name: 'Cerca' }).click()]);
        return listed(page, 1);
      };
      assert.deepEqual(await search('121'), ['PO-1213'], 'PO-1219 is another customer\'s');
      await shot(page, 'portal-orders-search');
      assert.deepEqual(await search('PO'), ['po-77', 'PO-1213'], 'any case');
      assert.deepEqual(await search('_'), ['X_1'], '_ is a character');
      assert.deepEqual(await search('%'), []);
      assert.match(await page.locator('main').innerText(), /Nessun ordine/);
    } finally {
      await context.close();
    }
  });

  void it('console: orders and submissions by a part of the customer\'s name or code and of the reference', async () => {
    const { context, page } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/ordini`);
      const filter = async (cliente: string, rif: string) => {
        await page.getByLabel('Cliente').fill(cliente);
        await page.getByLabel('Riferimento ordine').fill(rif);
        await Promise.all([page.waitForURL(/\?/), page.getByRole('button', { name: 'Filtra' }).click()]);
      };
      await filter('ferri', '');
      assert.deepEqual((await listed(page, 2)).sort(), ['PO-1213', 'X_1', 'po-77']);
      await shot(page, 'console-orders-search');
      await filter('', '121');
      assert.deepEqual(await listed(page, 2), ['PO-1219', 'PO-1213'], 'every customer\'s');
      await filter('c2', '121');
      assert.deepEqual(await listed(page, 2), ['PO-1219']);
      await filter('tipografia', 'zz');
      assert.deepEqual(await listed(page, 2), []);
      // The CSV export takes the same filters, and ends each row with the order's note.
      const csv = await page.evaluate(async () => (await fetch('/console/ordini.csv?cliente=FERRI&rif=po-')).text());
      const rows = csv.trim().split('\r\n');
      assert.match(rows[0]!, /;id_ordine;note$/);
      // One row per order line, the order's fields (the note among them) repeated: the first row of each order.
      const first = new Map<string, string>();
      for (const l of rows.slice(1)) if (!first.has(l.split(';')[3]!)) first.set(l.split(';')[3]!, l);
      assert.deepEqual([...first.keys()], ['"po-77"', '"PO-1213"']);
      assert.ok(first.get('"po-77"')!.endsWith(';"Piano terra;\n""retro"""'), first.get('"po-77"'));
      assert.ok(first.get('"PO-1213"')!.endsWith(';""'), first.get('"PO-1213"'));

      // The catalog page: a part of the description, the demo article listed too, marked as such.
      await page.goto(`${t.url}/console/articoli`);
      await page.getByLabel('Codice o descrizione contiene').fill('VISITA');
      await Promise.all([page.waitForURL(/\?q=/), page.getByRole('button', { name: 'Cerca' }).click()]);
      // BV-PLAST is of the demo catalog the service seeded on its empty database; BV-STD was imported over its code.
      assert.deepEqual(await page.locator('main table').first().locator('tbody tr td:first-child').allInnerTexts(), ['BV-DEMO', 'BV-PLAST', 'BV-STD']);
      assert.match(await page.locator('tr', { hasText: 'BV-DEMO' }).innerText(), /dimostrativo/);
      assert.match(await page.locator('tr', { hasText: 'BV-PLAST' }).innerText(), /dimostrativo/);
      assert.doesNotMatch(await page.locator('tr', { hasText: 'BV-STD' }).innerText(), /dimostrativo/);
      await shot(page, 'console-articles-search');

      await page.goto(`${t.url}/console/invii`);
      await filter('Ferri', '55');
      assert.equal(await page.locator('main table tbody tr').count(), 1, 'the refused file that held PO-5555');
      assert.match(await page.locator('main table tbody').innerText(), /ferri\.csv/);
    } finally {
      await context.close();
    }
  });

  void it('console: the correction form suggests the customer\'s articles, adds lines, and keeps the note', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/invii/${refusedId}/correggi`);
      assert.equal(await page.getByLabel('Note').inputValue(), 'Imballo singolo', 'the note of the file');
      const options = `[...document.querySelectorAll('datalist#catalogo option')].map((o) => o.value)`;
      const offered = async () => await page.evaluate(options) as string[];
      assert.ok(!(await offered()).includes('BV-DEMO'), 'no demo article for a real customer');
      const code = page.getByLabel('Riga 1: codice articolo');
      await code.fill('');
      await code.pressSequentially('visita');
      await waitFor(async () => ((await offered()).join() === 'BV-STD' ? true : undefined), 10_000, 'the suggestions for "visita"');
      await code.fill('BV-STD');
      const lines = await page.locator('#righe .line').count();
      await page.getByRole('button', { name: 'Aggiungi riga' }).click();
      await page.getByLabel(`Riga ${lines + 1}: codice articolo`).fill('VOL-A4');
      await page.locator(`#q${lines}`).fill('10');
      await page.locator(`#u${lines}`).fill('PZ');
      await page.getByLabel('Note').fill('Imballo singolo.\nConsegna entro le 12.');
      await shot(page, 'console-correct-lines-note');
      await page.getByRole('button', { name: "Registra l'ordine" }).click();
      await page.locator('.numero').first().waitFor();
      const o = await t.service.store.getOrderByRef(ferri.customer.id, 'PO-5555');
      assert.equal(o?.note, 'Imballo singolo.\nConsegna entro le 12.');
      assert.deepEqual(o?.righe.map((r) => r.codice_articolo), ['BV-STD', 'VOL-A4']);
      await page.goto(`${t.url}/console/clienti/C101/ordini/${o!.id_ordine}`);
      assert.equal(await page.locator('dd.note').first().innerText(), 'Imballo singolo.\nConsegna entro le 12.');
      await shot(page, 'console-order-note');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });
});
