// The customers' portal in chromium: a customer logs in with its FTP/SFTP credentials, drops a file and sees the
// numbers (and the errors of the refused order with their line), sends an order with the form, and can never
// reach another customer's orders or submissions, not even by editing URLs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { order, startTestService, type TestCustomer, type TestService } from '../helpers/service.ts';
import { Client, launch, login, newPage, PHONE, shot } from './browser.ts';

const CSV = [
  'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura',
  'C001;WEB-1;2026-11-20;2026-12-01;BV-STD;500;PZ',
  'C001;WEB-1;2026-11-20;2026-12-01;VOL-A4;1000;PZ',
  'C001;WEB-2;2026-11-20;2026-12-01;VOL-A4;10;PZ',
  'C001;WEB-2;2026-11-20;2026-12-01;NON-ESISTE;10;PZ',
].join('\r\n');

/** Drops a file on the drop zone the way a desktop does: a drop event carrying a DataTransfer. */
async function dropFile(page: Page, name: string, content: string): Promise<void> {
  await page.evaluate(`(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([${JSON.stringify(content)}], ${JSON.stringify(name)}, { type: 'text/csv' }));
    document.getElementById('drop').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  })()`);
}

void describe('portal in the browser', () => {
  let t: TestService;
  let browser: Browser;
  let a: TestCustomer;
  let b: TestCustomer;
  let bOrderId: string;
  let bSubmissionId: string;

  before(async () => {
    t = await startTestService({ INTAKE_MAX_FILE_BYTES: String(64 * 1024) });
    a = await t.customer('C001');
    b = await t.customer('C002');
    const res = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': b.apiKey }, body: JSON.stringify(order('C002', 'SEGRETO-B')),
    });
    assert.equal(res.status, 201);
    bOrderId = ((await res.json()) as { id_ordine: string }).id_ordine;
    const customerB = (await t.service.store.getCustomerByCode('C002'))!;
    bSubmissionId = (await t.service.store.getOrder(customerB.id, bOrderId))!.submissionId;
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('customer logs in, drops a file, sees the number of each accepted order and the errors of the refused one', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', a.ftpUser, a.ftpPassword);
      await page.getByRole('heading', { name: 'Invia ordini' }).waitFor();
      await shot(page, 'portal-home');
      await Promise.all([page.waitForURL(`${t.url}/portale/invia?**`), dropFile(page, 'ordini.csv', CSV)]);
      const ok = page.locator('tr', { hasText: 'WEB-1' });
      const numero = (await ok.locator('.numero').innerText()).trim();
      assert.match(numero, /^\d{4}-\d{6}$/);
      assert.match(await page.locator('tr', { hasText: 'WEB-2' }).innerText(), /Riga 5 del file:\s*Articolo sconosciuto: "NON-ESISTE"/);
      // The recap of the registered lines under the accepted order (issue 43).
      const recap = page.locator('table.recap-lines', { hasText: numero });
      assert.deepEqual(await recap.locator('tbody tr').allInnerTexts(), ['BV-STD\tBiglietti da visita\t500\tPZ', 'VOL-A4\tVolantini A4\t1000\tPZ']);
      assert.equal(await page.locator('table.recap-lines').count(), 1, 'no recap for the refused order');
      await shot(page, 'portal-upload-result');
      const customer = (await t.service.store.getCustomerByCode('C001'))!;
      const stored = await t.service.store.getOrderByRef(customer.id, 'WEB-1');
      assert.equal(stored?.numero_ordine, numero);
      assert.equal(stored?.channel, 'portal');

      const download = await page.request.get(await page.getByRole('link', { name: "Scarica l'esito" }).getAttribute('href').then((h) => `${t.url}${h}`));
      assert.equal(download.status(), 200);
      assert.match(download.headers()['content-disposition'] ?? '', /^attachment; filename="esito-ordini\.json"$/);
      const esito = await download.json() as { ordini: { riferimento_ordine: string; numero_ordine: string | null }[] };
      assert.equal(esito.ordini.find((o) => o.riferimento_ordine === 'WEB-1')?.numero_ordine, numero);

      await page.goto(`${t.url}/portale/ordini`);
      const list = await page.locator('table').innerText();
      assert.match(list, new RegExp(numero));
      assert.doesNotMatch(list, /SEGRETO-B/, 'only the customer\'s own orders');
      await shot(page, 'portal-orders');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('several files picked at once each get their outcome; an oversized file is refused with a clear message', async () => {
    const { context, page } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', a.ftpUser, a.ftpPassword);
      const json = JSON.stringify(order('C001', 'WEB-JSON'));
      await page.getByLabel('File degli ordini').setInputFiles([
        { name: 'uno.json', mimeType: 'application/json', buffer: Buffer.from(json) },
        { name: 'enorme.csv', mimeType: 'text/csv', buffer: Buffer.alloc(100 * 1024, 'x') },
      ]);
      await page.getByRole('button', { name: 'Invia' }).click();
      await page.getByRole('heading', { name: 'uno.json' }).waitFor();
      assert.match(await page.locator('section', { hasText: 'uno.json' }).locator('.numero').innerText(), /^\d{4}-\d{6}$/);
      assert.match(await page.locator("section", { hasText: "enorme.csv" }).innerText(), /supera la dimensione massima di 64 KiB/);
    } finally {
      await context.close();
    }
  });

  void it('the order form registers an order, with article suggestions from the catalog', async () => {
    const { context, page } = await newPage(browser, PHONE);
    try {
      await login(page, t.url, 'portale', a.ftpUser, a.ftpPassword);
      await page.getByRole('link', { name: 'Nuovo ordine' }).click();
      assert.equal(await page.getByLabel('Codice cliente').inputValue(), 'C001');
      assert.equal(await page.locator('datalist#catalogo option[value="BV-STD"]').count(), 1);
      await page.getByLabel('Riferimento ordine').fill('MODULO-1');
      await page.getByLabel('Riga 1: codice articolo').fill('CAR-A4-80');
      await page.getByLabel('Quantità').first().fill('12,5');
      await page.getByLabel('Unità').first().fill('rs');
      await shot(page, 'portal-form-phone');
      await page.getByRole('button', { name: "Invia l'ordine" }).click();
      const numero = (await page.locator('.numero').innerText()).trim();
      assert.match(numero, /^\d{4}-\d{6}$/);
      assert.deepEqual(await page.locator('table.recap-lines tbody tr').allInnerTexts(), ['CAR-A4-80\tCarta A4 80g\t12,5\tRS'],
        'the line as registered: a decimal comma, the catalog description, the unit in capitals');
      await shot(page, 'portal-form-result-phone');
      const customer = (await t.service.store.getCustomerByCode('C001'))!;
      const o = await t.service.store.getOrderByRef(customer.id, 'MODULO-1');
      assert.deepEqual(o?.righe, [{ codice_articolo: 'CAR-A4-80', quantita: 12.5, unita_misura: 'RS' }]);
    } finally {
      await context.close();
    }
  });

  void it('a refused upload registered since by the order desk shows its number and lines', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', a.ftpUser, a.ftpPassword);
      await page.getByLabel('File degli ordini').setInputFiles([{ name: 'sbagliato.json', mimeType: 'application/json',
        buffer: Buffer.from(JSON.stringify(order('C001', 'WEB-CORR', { righe: [{ codice_articolo: 'NON-ESISTE', quantita: 1500, unita_misura: 'PZ' }] }))) }]);
      await page.getByRole('button', { name: 'Invia' }).click();
      await page.getByRole('heading', { name: 'sbagliato.json' }).waitFor();
      const href = (await page.getByRole('link', { name: "Dettaglio dell'invio" }).getAttribute('href'))!;
      const refusedId = href.split('/').pop()!;
      // The order desk's "Correggi e registra", as the console submits it.
      const customer = (await t.service.store.getCustomerByCode('C001'))!;
      const { outcome } = await t.service.intake.submit({
        principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'console', fileName: `correzione-${refusedId}.json`,
        mediaType: 'application/json', singleOrder: true, meta: { corregge: refusedId, ordine: '0', operatore: 'ops@example.com' },
        raw: Buffer.from(JSON.stringify(order('C001', 'WEB-CORR', { righe: [{ codice_articolo: 'BV-STD', quantita: 1500, unita_misura: 'PZ' }] }))),
      });
      const numero = outcome.orders[0]!.numero_ordine!;
      await page.goto(`${t.url}${href}`);
      const row = page.locator('tr', { hasText: 'WEB-CORR' });
      assert.match(await row.locator('.registered-since').innerText(), new RegExp(`Registrato in seguito dall'ufficio ordini come ${numero}`));
      assert.deepEqual(await page.locator('table.recap-lines tbody tr').allInnerTexts(), ['BV-STD\tBiglietti da visita\t1500\tPZ']);
      await shot(page, 'portal-submission-corrected');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('the order form tells what is wrong in Italian, by the form\'s own line numbers', async () => {
    const { context, page } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', a.ftpUser, a.ftpPassword);
      await page.getByRole('link', { name: 'Nuovo ordine' }).click();
      await page.getByLabel('Riferimento ordine').fill('MODULO-ERR');
      await page.getByLabel('Riga 1: codice articolo').fill('BV-STD');
      // A number, but not a quantity: the core refuses it (a text that is no number is refused by the form itself).
      await page.getByLabel('Quantità').first().fill('0');
      await page.getByLabel('Unità').first().fill('PZ');
      await page.getByRole('button', { name: "Invia l'ordine" }).click();
      const alert = await page.getByRole('alert').innerText();
      assert.match(alert, /Riga 1:\s*La quantità deve essere maggiore di zero/);
      assert.doesNotMatch(alert, /must be|righe\.0|conforming/);
      await shot(page, 'portal-form-error');
    } finally {
      await context.close();
    }
  });

  void it('customer A can never see customer B\'s orders or submissions, also by editing URLs', async () => {
    const { context, page } = await newPage(browser);
    try {
      await login(page, t.url, 'portale', a.ftpUser, a.ftpPassword);
      for (const url of [`/portale/ordini/${bOrderId}`, `/portale/invii/${bSubmissionId}`, `/portale/invii/${bSubmissionId}/esito`]) {
        const res = await page.goto(`${t.url}${url}`);
        assert.equal(res?.status(), 404, url);
        assert.doesNotMatch(await page.content(), /SEGRETO-B/, url);
      }
      await shot(page, 'portal-not-found');
      await page.goto(`${t.url}/portale/ordini?rif=SEGRETO-B`);
      assert.match(await page.locator('main').innerText(), /Nessun ordine/);
      // The operator console is another area: a customer session opens nothing there.
      const res = await page.goto(`${t.url}/console/`);
      assert.equal(new URL(res!.url()).pathname, '/console/login');
    } finally {
      await context.close();
    }
  });

  void it('portal logins are protected like the console: CSRF, logout revokes the cookie', async () => {
    const client = new Client(t.url);
    assert.equal((await client.login('portale', b.ftpUser, 'wrong')).status, 401);
    assert.equal((await client.login('portale', b.ftpUser, b.ftpPassword)).status, 303);
    const noToken = await client.send('POST', '/portale/ordine', { riferimento_ordine: 'X', data_ordine: '2026-11-20', codice_articolo: 'BV-STD', quantita: '1', unita_misura: 'PZ' });
    assert.equal(noToken.status, 403);
    const _csrf = await client.token('/portale/ordine');
    const old = new Map(client.cookies);
    await client.send('POST', '/portale/logout', { _csrf });
    const thief = new Client(t.url);
    thief.cookies = old;
    assert.equal((await thief.send('GET', '/portale/ordini')).status, 302);
    const act = await thief.send('POST', '/portale/ordine', { _csrf, riferimento_ordine: 'X', data_ordine: '2026-11-20', codice_articolo: 'BV-STD', quantita: '1', unita_misura: 'PZ' });
    assert.ok(act.status === 401 || act.status === 403, `status ${act.status}`);
    const customerB = (await t.service.store.getCustomerByCode('C002'))!;
    assert.equal(await t.service.store.getOrderByRef(customerB.id, 'X'), undefined);
  });
});
