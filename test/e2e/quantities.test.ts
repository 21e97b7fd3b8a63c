// The two screens that once changed an order's size without telling anyone: the portal's order form read `1.500`
// as 1,5 and the console's correction registered a line refused as `1.000` with quantity 1. Both now read numbers
// and dates as people write them (src/intake/formats/people-values.ts), the same way a CSV file is read, and refuse
// what could be read two ways, in the form, before anything is sent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { TestCustomer, TestService } from '../helpers/service.ts';
import { Client, launch, login, newPage, shot, startWithOperator } from './browser.ts';

const HEADER = 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura';

void describe('quantities typed by people are never misread', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let c001: TestCustomer;
  let customerId: string;

  async function refusedFile(name: string, text: string): Promise<string> {
    const { submission, outcome } = await t.service.intake.submit({
      principal: { customerId, customerCode: 'C001' }, channel: 'sftp', fileName: name, mediaType: 'text/csv', raw: Buffer.from(text, 'utf8'),
    });
    assert.equal(outcome.esito, 'errore', `${name} is refused on arrival`);
    return submission.id;
  }

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    c001 = await t.customer('C001');
    customerId = (await t.service.store.getCustomerByCode('C001'))!.id;
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('portal form: 1.500 pieces are fifteen hundred, and the dates typed the Italian way are read', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', c001.ftpUser, c001.ftpPassword);
      await page.getByRole('link', { name: 'Nuovo ordine' }).click();
      await page.getByLabel('Riferimento ordine').fill('QTA-1500');
      await page.getByLabel('Riga 1: codice articolo').fill('BV-STD');
      await page.getByLabel('Quantità').first().fill('1.500');
      await page.getByLabel('Unità').first().fill('PZ');
      await shot(page, 'portal-form-1500');
      await page.getByRole('button', { name: "Invia l'ordine" }).click();
      assert.match((await page.locator('.numero').first().innerText()).trim(), /^\d{4}-\d{6}$/);
      const o = await t.service.store.getOrderByRef(customerId, 'QTA-1500');
      assert.deepEqual(o?.righe, [{ codice_articolo: 'BV-STD', quantita: 1500, unita_misura: 'PZ' }]);
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
    // The same form posted without a browser's date picker: dates as people write them, grouped thousands with decimals.
    const client = new Client(t.url);
    await client.login('portale', c001.ftpUser, c001.ftpPassword);
    const _csrf = await client.token('/portale/ordine');
    const res = await client.send('POST', '/portale/ordine', {
      _csrf, riferimento_ordine: 'QTA-DATE', data_ordine: '28/11/2026', data_consegna: '3/12/2026',
      codice_articolo: 'VOL-A4', quantita: '2.000,5', unita_misura: 'PZ',
    });
    assert.equal(res.status, 200, res.body);
    const o = await t.service.store.getOrderByRef(customerId, 'QTA-DATE');
    assert.equal(o?.data_ordine, '2026-11-28');
    assert.equal(o?.data_consegna, '2026-12-03');
    assert.equal(o?.righe[0]?.quantita, 2000.5);
  });

  void it('portal form: a value that could be read two ways is refused in the form, saying why, and nothing is sent', async () => {
    const client = new Client(t.url);
    await client.login('portale', c001.ftpUser, c001.ftpPassword);
    const _csrf = await client.token('/portale/ordine');
    const before = (await t.service.store.listSubmissions({ customerId, limit: 500 })).length;
    const body = new URLSearchParams({ _csrf, riferimento_ordine: 'QTA-AMBIGUA', data_ordine: '2026-11-28', data_consegna: '' });
    for (const [code, qty] of [['BV-STD', '1.5'], ['VOL-A4', '2,5']]) {
      body.append('codice_articolo', code!);
      body.append('quantita', qty!);
      body.append('unita_misura', 'PZ');
    }
    const res = await fetch(`${t.url}/portale/ordine`, { method: 'POST', headers: { cookie: client.header(), 'content-type': 'application/x-www-form-urlencoded' }, body: body.toString() });
    const html = await res.text();
    assert.equal(res.status, 422);
    assert.match(html, /Riga 1, quantità:<\/strong> «1\.5» è ambiguo/);
    assert.match(html, /value="1\.5"/, 'the form keeps what was typed');
    assert.equal(await t.service.store.getOrderByRef(customerId, 'QTA-AMBIGUA'), undefined);
    assert.equal((await t.service.store.listSubmissions({ customerId, limit: 500 })).length, before, 'nothing was sent to the core');
  });

  void it('console correction: a file read 1.000 as a thousand; the corrected order keeps a thousand and the file\'s dates', async () => {
    const id = await refusedFile('migliaia.csv', [HEADER, 'C001;QTA-1000;28/11/2026;5/12/2026;BV-XXX;1.000;PZ', 'C001;QTA-1000;28/11/2026;5/12/2026;VOL-A4;2,5;PZ'].join('\r\n'));
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/invii/${id}/correggi`);
      assert.equal(await page.locator('#q0').inputValue(), '1000');
      assert.equal(await page.locator('#q1').inputValue(), '2,5');
      assert.equal(await page.getByLabel('Data ordine').inputValue(), '2026-11-28', 'the date picker holds the file\'s date');
      assert.equal(await page.getByLabel('Data di consegna').inputValue(), '2026-12-05');
      await page.getByLabel('Riga 1: codice articolo').fill('BV-STD');
      await shot(page, 'console-correct-quantities');
      await page.getByRole('button', { name: "Registra l'ordine" }).click();
      await page.locator('.numero').first().waitFor();
      const o = await t.service.store.getOrderByRef(customerId, 'QTA-1000');
      assert.deepEqual(o?.righe.map((r) => r.quantita), [1000, 2.5]);
      assert.equal(o?.data_ordine, '2026-11-28');
      assert.equal(o?.data_consegna, '2026-12-05');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('console correction: a line refused as an ambiguous 1.000 is not registered as 1 when left unchanged', async () => {
    // A file delimited by `,` is a machine's: its 1.000 may be 1.0, so it was refused on arrival, with the reason.
    const machineCsv = [HEADER.replaceAll(';', ','), 'C001,QTA-AMB,2026-11-28,,BV-STD,1.000,PZ', 'C001,QTA-AMB,2026-11-28,,VOL-A4,2.5,PZ'].join('\r\n');
    const id = await refusedFile('macchina.csv', machineCsv);
    const refused = await t.service.store.getSubmission(id);
    assert.match(JSON.stringify(refused?.outcome?.orders[0]?.errori), /«1\.000» è ambiguo/);
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/invii/${id}/correggi`);
      await page.getByText(/«1\.000» è ambiguo/).first().waitFor();
      assert.equal(await page.locator('#q0').inputValue(), '1.000');
      await page.getByRole('button', { name: "Registra l'ordine" }).click();
      await page.getByRole('alert').filter({ hasText: 'non è stato inviato' }).waitFor();
      assert.match(await page.getByRole('alert').filter({ hasText: 'non è stato inviato' }).innerText(), /Riga 1, quantità: «1\.000» è ambiguo/);
      assert.equal(await t.service.store.getOrderByRef(customerId, 'QTA-AMB'), undefined, 'nothing registered with a guessed quantity');
      await shot(page, 'console-correct-ambiguous');
      await page.locator('#q0').fill('1000');
      await page.getByRole('button', { name: "Registra l'ordine" }).click();
      await page.locator('.numero').first().waitFor();
      const o = await t.service.store.getOrderByRef(customerId, 'QTA-AMB');
      assert.deepEqual(o?.righe.map((r) => r.quantita), [1000, 2.5]);
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });
});
