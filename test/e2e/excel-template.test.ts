// The Excel template in chromium: a customer downloads "Scarica il modello Excel" from the portal (its code written
// in, the units of measure as a drop-down, formatted columns, Italian instructions), sends back a filled-in copy that
// LibreOffice saved, and reads each error by its cell; an operator downloads the same template from the console.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import type { Browser, Download } from 'playwright-core';
import type { TestCustomer, TestService } from '../helpers/service.ts';
import { readXlsx } from '../../src/intake/formats/xlsx/index.ts';
import { IntakeError } from '../../src/domain/errors.ts';
import { launch, login, newPage, shot, startWithOperator } from './browser.ts';

/** The parts of a (small, deflated or stored) ZIP by name: enough to look inside a workbook we wrote. */
function zipParts(zip: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (let at = 0; zip.readUInt32LE(at) === 0x04034b50;) {
    const method = zip.readUInt16LE(at + 8);
    const size = zip.readUInt32LE(at + 18);
    const nameLen = zip.readUInt16LE(at + 26);
    const extra = zip.readUInt16LE(at + 28);
    const name = zip.subarray(at + 30, at + 30 + nameLen).toString('utf8');
    const data = zip.subarray(at + 30 + nameLen + extra, at + 30 + nameLen + extra + size);
    out.set(name, (method === 8 ? inflateRawSync(data) : data).toString('utf8'));
    at += 30 + nameLen + extra + size;
  }
  return out;
}

async function saved(download: Download): Promise<Buffer> {
  const path = await download.path();
  return readFileSync(path);
}

/** What a template must hold for the customer `code`. */
async function assertTemplate(xlsx: Buffer, code: string): Promise<void> {
  const parts = zipParts(xlsx);
  const wb = parts.get('xl/workbook.xml')!;
  assert.match(wb, /<sheet name="ordini"[^>]*\/><sheet name="istruzioni"[^>]*\/><sheet name="unita"/);
  const sheet = parts.get('xl/worksheets/sheet1.xml')!;
  for (const h of ['Codice cliente', 'Riferimento ordine', 'Data ordine', 'Data consegna', 'Codice articolo', 'Quantità', 'Unità di misura']) assert.ok(sheet.includes(`>${h}<`), h);
  assert.match(sheet, new RegExp(`<c r="A2" s="2" t="inlineStr"><is><t xml:space="preserve">${code}</t>`));
  // The unit drop-down, from the unit list on the sheet `unita`.
  assert.match(sheet, /<dataValidation type="list"[^>]*sqref="G2:G501"><formula1>unita!\$A\$2:\$A\$\d+<\/formula1>/);
  assert.match(parts.get('xl/worksheets/sheet3.xml')!, />PZ</);
  // Date columns formatted as dates, code columns as text (numFmt 49 is "@").
  assert.match(sheet, /<col min="3" max="3"[^>]*style="1"/);
  assert.match(sheet, /<col min="5" max="5"[^>]*style="2"/);
  assert.match(parts.get('xl/styles.xml')!, /formatCode="dd\/mm\/yyyy"/);
  assert.match(parts.get('xl/worksheets/sheet2.xml')!, /Come compilare il foglio «ordini»/);
  // Empty, it holds no order: the customer's code alone on a row is not one.
  await assert.rejects(readXlsx(xlsx), (e) => e instanceof IntakeError && e.code === 'NO_ORDERS');
}

void describe('the Excel template in the browser', () => {
  let t: TestService;
  let browser: Browser;
  let c1: TestCustomer;
  let email: string;
  let password: string;

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    c1 = await t.customer('C001');
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('a customer downloads the template, sends back a copy LibreOffice filled in, and reads the errors by cell', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', c1.ftpUser, c1.ftpPassword);
      const link = page.getByRole('link', { name: 'Scarica il modello Excel' });
      await shot(page, 'portal-home-excel-template');
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.equal(download.suggestedFilename(), 'modello-ordini-C001.xlsx');
      await assertTemplate(await saved(download), 'C001');

      // Our template, filled in and saved again by LibreOffice (test/fixtures/xlsx/make.sh): article 00123 is not in
      // this service's catalog, and the order is refused with that cell named.
      const filled = readFileSync(new URL('../fixtures/xlsx/modello-compilato-libreoffice.xlsx', import.meta.url));
      await page.locator('#files').setInputFiles({ name: 'ordini-novembre.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: filled });
      await Promise.all([page.waitForURL(`${t.url}/portale/invia?**`), page.getByRole('button', { name: 'Invia' }).click()]);
      const row = page.locator('tr', { hasText: 'PO-300' });
      const text = await row.innerText();
      assert.match(text, /Foglio ordini, riga 2, colonna Codice articolo:\s*Articolo sconosciuto: "00123"/);
      await shot(page, 'portal-excel-errors-by-cell');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('an operator downloads the same template for a customer from the console', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/clienti/C001`);
      const link = page.getByRole('link', { name: 'Scarica il modello Excel di C001' });
      await shot(page, 'console-customer-excel-template');
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.equal(download.suggestedFilename(), 'modello-ordini-C001.xlsx');
      await assertTemplate(await saved(download), 'C001');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('an operator sees a received workbook as its sheet, a table with dates and codes as Excel shows them', async () => {
    const customer = (await t.service.store.getCustomerByCode('C001'))!;
    const [sub] = (await t.service.store.searchSubmissions({ customerId: customer.id, limit: 5 })).filter((x) => x.fileName === 'ordini-novembre.xlsx');
    assert.ok(sub, 'the workbook sent from the portal');
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/invii/${sub.id}`);
      const table = page.getByRole('table', { name: 'Foglio ordini' });
      const rows = await table.locator('tbody tr').allInnerTexts();
      assert.equal(rows[0], '1\tCodice cliente\tRiferimento ordine\tData ordine\tData consegna\tCodice articolo\tQuantità\tUnità di misura');
      assert.equal(rows[1], '2\tC001\tPO-300\t20/11/2026\t01/12/2026\t00123\t250\tPZ');
      assert.equal(rows[2], '3\tC001\tPO-300\t20/11/2026\t01/12/2026\tVOL-A4\t1,5\tKG');
      await shot(page, 'console-submission-excel-sheet');
      // "Correggi e registra" starts from the workbook's order, decoded as the channels decode it.
      await Promise.all([page.waitForURL(`${t.url}/console/invii/${sub.id}/correggi**`), page.getByRole('link', { name: 'Correggi e registra' }).click()]);
      const articles = await page.locator('input[name="codice_articolo"]').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
      assert.deepEqual(articles.slice(0, 2), ['00123', 'VOL-A4']);
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });
});
