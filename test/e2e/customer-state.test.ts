// The customer page in the console and deactivation in a real browser (Debian's chromium): an operator opens a
// customer, sees its mailbox and activity with links to the filtered lists, deactivates it; the customer's portal
// session ends and its login is refused with the Italian reason; reactivated, it logs in again. A viewer cannot act,
// a CSRF-less POST is refused; both leave the customer as it was. Screenshots at desktop and phone width.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { INACTIVE_MESSAGE } from '../../src/customers/active.ts';
import { addOperator } from '../../src/operators/accounts.ts';
import { order, type TestCustomer, type TestService } from '../helpers/service.ts';
import { Client, launch, login, newPage, PHONE, shot, startWithOperator, assertNoSideScroll } from './browser.ts';

void describe('customer page and deactivation in the browser', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let c1: TestCustomer;

  const state = async () => (await t.service.store.getCustomerByCode('C001'))!.deactivatedAt;

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    c1 = await t.customer('C001');
    await t.customer('C002');
    const res = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', headers: { 'x-api-key': c1.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(order('C001', 'PO-1')),
    });
    assert.equal(res.status, 201);
    const refused = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', headers: { 'x-api-key': c1.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(order('C001', 'PO-2', { righe: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] })),
    });
    assert.equal(refused.status, 400);
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('shows the customer, deactivates it (portal refused in Italian), reactivates it', async () => {
    const customer = await newPage(browser);
    const operator = await newPage(browser);
    try {
      // The customer is logged in to the portal before the deactivation.
      await login(customer.page, t.url, 'portale', c1.ftpUser, c1.ftpPassword);

      await login(operator.page, t.url, 'console', email, password);
      const page = operator.page;
      await page.goto(`${t.url}/console/clienti`);
      await page.getByRole('link', { name: 'C001', exact: true }).click();
      await page.getByRole('heading', { name: 'Cliente C001 — Cliente C001' }).waitFor();
      assert.match(await page.locator('dl.fields').innerText(), new RegExp(c1.mailbox.replace(/[.]/g, '\\.')));
      const cards = await page.locator('.card').allInnerTexts();
      assert.deepEqual(cards.map((c) => c.split('\n')[0]), ['2', '1', '1'], 'two submissions, one refused, one order this week');
      assert.match(await page.locator('table', { hasText: 'Per canale' }).innerText(), /REST/);
      assert.match(await page.locator('table', { hasText: 'Numero' }).innerText(), /PO-1/);
      await shot(page, 'console-customer');

      // Deactivate with the keyboard: the button is reachable and labelled.
      await page.getByRole('button', { name: 'Disattiva il cliente' }).focus();
      await Promise.all([page.waitForURL(/fatto=disattiva/), page.keyboard.press('Enter')]);
      await page.getByText('Cliente disattivato: ogni canale ora lo rifiuta.').waitFor();
      assert.match(await page.locator('dl.fields').innerText(), /Disattivato dal/);
      assert.ok(await state(), 'deactivated in the store');
      await shot(page, 'console-customer-deactivated');

      // The customer's open portal session has ended; a new login, with the right password, is refused with why.
      await customer.page.goto(`${t.url}/portale/ordini`);
      await customer.page.waitForURL(/\/portale\/login/);
      await customer.page.getByLabel('Utente').fill(c1.ftpUser);
      await customer.page.getByLabel('Password').fill(c1.ftpPassword);
      await customer.page.getByRole('button', { name: 'Accedi' }).click();
      await customer.page.getByRole('alert').filter({ hasText: INACTIVE_MESSAGE }).waitFor();
      await shot(customer.page, 'portal-login-deactivated');

      // The lists keep the customer's submissions and orders; the audit log shows who did it.
      await page.getByRole('link', { name: 'Ordini registrati' }).click();
      await page.waitForURL(/\/console\/ordini\?cliente=C001/);
      assert.match(await page.locator('table').innerText(), /PO-1/);
      await page.goto(`${t.url}/console/registro`);
      assert.match(await page.locator('table').innerText(), /ops@example\.com[\s\S]*Cliente disattivato/);

      await page.goto(`${t.url}/console/clienti/C001`);
      await Promise.all([page.waitForURL(/fatto=riattiva/), page.getByRole('button', { name: 'Riattiva il cliente' }).click()]);
      await page.getByText('Cliente riattivato').waitFor();
      assert.equal(await state(), undefined);
      await login(customer.page, t.url, 'portale', c1.ftpUser, c1.ftpPassword);
      assert.deepEqual([...operator.incidents, ...customer.incidents], [], 'no script error, no dialog');
    } finally {
      await customer.context.close();
      await operator.context.close();
    }
  });

  void it('fits a phone: the customer page at 390 px', async () => {
    const { context, page } = await newPage(browser, PHONE);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/clienti/C001`);
      await page.getByRole('heading', { name: /Cliente C001/ }).waitFor();
      await assertNoSideScroll(page);
      await shot(page, 'console-customer-phone');
    } finally {
      await context.close();
    }
  });

  void it('refuses a viewer and a CSRF-less POST; the customer stays as it was', async () => {
    const { password: pw } = await addOperator(t.service.store, { email: 'viewer@example.com', role: 'viewer' });
    const viewer = new Client(t.url);
    await viewer.login('console', 'viewer@example.com', pw);
    const page = await viewer.send('GET', '/console/clienti/C001');
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /Disattiva il cliente/, 'a viewer is not offered the action');
    const _csrf = await viewer.token('/console/clienti/C001');
    assert.equal((await viewer.send('POST', '/console/clienti/C001/disattiva', { _csrf })).status, 403);

    const ops = new Client(t.url);
    await ops.login('console', email, password);
    assert.equal((await ops.send('POST', '/console/clienti/C001/disattiva', {})).status, 403, 'no CSRF token');
    assert.equal((await ops.send('POST', '/console/clienti/C001/disattiva', { _csrf: 'forged' })).status, 403, 'a forged token');
    assert.equal(await state(), undefined, 'still active');
    assert.equal((await ops.send('GET', '/console/clienti/NOPE')).status, 404);
  });
});
