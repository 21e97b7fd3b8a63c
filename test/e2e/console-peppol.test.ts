// Peppol identifiers on the console's customer page in a real browser (Debian's chromium): none at first, set two,
// a malformed one and one another customer holds refused in Italian with the form kept; each change stored and
// audit-logged; a viewer sees them but gets no form. Screenshots at desktop and phone width.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addOperator } from '../../src/operators/accounts.ts';
import type { TestCustomer, TestService } from '../helpers/service.ts';
import { ublOrder } from '../intake/formats/ubl-fixtures.ts';
import { schemaValid, UBL_SCHEMAS } from '../helpers/ubl.ts';
import { Client, assertNoSideScroll, launch, login, newPage, PHONE, shot, startWithOperator } from './browser.ts';

void describe('console: Peppol identifiers of a customer', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let c1: TestCustomer;
  const ids = async (code: string) => t.service.store.listPeppolIds((await t.service.store.getCustomerByCode(code))!.id);

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    c1 = await t.customer('C001');
    await t.customer('C002');
    await t.service.store.setPeppolIds((await t.service.store.getCustomerByCode('C002'))!.id, [{ scheme: '9906', identifier: 'UFTAKEN' }]);
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('sets identifiers, refuses malformed and taken ones with the form kept', async () => {
    const { page, context, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/clienti/C001`);
      await page.getByRole('heading', { name: 'Ordini Peppol e NSO' }).waitFor();
      assert.match(await page.locator('p', { hasText: 'I documenti UBL di questo cliente sono rifiutati' }).innerText(), /Nessuno/);

      await page.getByLabel('Identificativi Peppol, uno per riga').fill('0211:it01234567890\n9906:UFABC1');
      await page.getByRole('form', { name: 'Identificativi Peppol' }).getByRole('button', { name: 'Salva' }).click();
      await page.getByText('Identificativi Peppol salvati.').waitFor();
      assert.deepEqual(await ids('C001'), [{ scheme: '0211', identifier: 'IT01234567890' }, { scheme: '9906', identifier: 'UFABC1' }]);
      assert.match(await page.locator('p', { hasText: 'il cui acquirente ha uno di questi identificativi' }).innerText(), /0211:IT01234567890, 9906:UFABC1/);
      await shot(page, 'console-customer-peppol');

      await page.getByLabel('Identificativi Peppol, uno per riga').fill('IT01234567890');
      await page.getByRole('form', { name: 'Identificativi Peppol' }).getByRole('button', { name: 'Salva' }).click();
      await page.getByText(/Identificativo non valido: scrivete schema:valore/).waitFor();
      assert.equal(await page.getByLabel('Identificativi Peppol, uno per riga').inputValue(), 'IT01234567890', 'the form keeps what was typed');

      await page.getByLabel('Identificativi Peppol, uno per riga').fill('9906:uftaken');
      await page.getByRole('form', { name: 'Identificativi Peppol' }).getByRole('button', { name: 'Salva' }).click();
      await page.getByText(/Identificativo già associato a un altro cliente: 9906:UFTAKEN \(C002\)/).waitFor();
      await shot(page, 'console-customer-peppol-error');
      assert.equal((await ids('C001')).length, 2, 'unchanged');
      assert.equal((await t.service.store.listAudit({ limit: 5 }))[0]?.action, 'cliente.peppol');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
    const phone = await newPage(browser, PHONE);
    try {
      await login(phone.page, t.url, 'console', email, password);
      await phone.page.goto(`${t.url}/console/clienti/C001`);
      await assertNoSideScroll(phone.page);
      await shot(phone.page, 'console-customer-peppol-phone');
    } finally {
      await phone.context.close();
    }
  });

  void it('an order that came as UBL shows the document\'s details, its original and its Order Response', async () => {
    const res = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', headers: { 'content-type': 'application/xml', 'x-api-key': c1.apiKey },
      body: ublOrder({ id: 'PO-CONSOLE', accountingCost: 'CDC-12', lines: [{ sellers: 'BV-STD', quantity: 250, name: 'Biglietti da visita 85x55' }, { sellers: 'VOL-A4', name: 'Volantini A4', price: '0.08', amount: '8.00' }] }) });
    assert.equal(res.status, 201, await res.clone().text());
    const { id_ordine } = (await res.json()) as { id_ordine: string };
    const { page, context, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/clienti/C001/ordini/${id_ordine}`);
      await page.getByRole('heading', { name: 'Documento Peppol (UBL Order PO-CONSOLE)' }).waitFor();
      const fields = await page.locator('dl.fields').last().innerText();
      assert.match(fields, /Consegna\s+Magazzino centrale, Via dei Magazzini 4, 00155 Roma, IT, luogo 8012345000019/);
      assert.match(fields, /Centro di costo\s+CDC-12/);
      assert.match(fields, /Gara o lotto \(CIG\)\s+CIG-ZA12345678/);
      assert.match(await page.locator('table', { hasText: 'Righe come le descrive il documento' }).innerText(), /Volantini A4\s+0\.08\s+8\.00/);
      await shot(page, 'console-order-ubl');
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Scarica la Order Response' }).click()]);
      assert.equal(download.suggestedFilename(), 'OrderResponse-PO-CONSOLE.xml');
      const xml = await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8');
      schemaValid(xml, UBL_SCHEMAS.orderResponse);
      assert.match(xml, /<cbc:OrderResponseCode>AP<\/cbc:OrderResponseCode>/);
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('a viewer sees the identifiers but not the form, and cannot post it', async () => {
    const { password: pw } = await addOperator(t.service.store, { email: 'viewer@example.com', role: 'viewer' });
    const viewer = new Client(t.url);
    await viewer.login('console', 'viewer@example.com', pw);
    const page = await viewer.send('GET', '/console/clienti/C001');
    assert.match(page.body, /<code>0211:IT01234567890<\/code>/);
    assert.doesNotMatch(page.body, /action="\/console\/clienti\/C001\/peppol"/);
    const _csrf = await viewer.token('/console/clienti/C001').catch(() => 'none');
    assert.equal((await viewer.send('POST', '/console/clienti/C001/peppol', { _csrf, identificativi: '0088:1' })).status, 403);
    assert.equal((await ids('C001')).length, 2);
  });
});
