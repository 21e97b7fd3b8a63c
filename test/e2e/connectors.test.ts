// Connectors and production sites in the console, in a real browser: an operator adds a site and a connector (the
// key shown once works on the connector path at once), rotates the key (the old one stops working), and the audit
// log shows all three; a viewer is not offered the forms and is refused by the server; a CSRF-less POST is refused.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addOperator } from '../../src/operators/accounts.ts';
import { order, type TestService } from '../helpers/service.ts';
import { Client, launch, login, newPage, PHONE, shot, startWithOperator, assertNoSideScroll } from './browser.ts';

void describe('connectors and sites in the console', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;

  const send = async (key: string, ref: string) => (await fetch(`${t.url}/api/v1/connettori/VR/ordini`, {
    method: 'POST', headers: { 'service-x-key': key, 'content-type': 'application/json' }, body: JSON.stringify(order('C001', ref)),
  })).status;

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    await t.customer('C001');
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('adds a site and a connector, rotates its key; every key shown once works, the old one stops', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.getByRole('link', { name: 'Connettori' }).click();
      await page.getByRole('heading', { name: 'Connettori e siti' }).waitFor();

      await page.getByLabel('Codice sito').fill('VR');
      await page.getByLabel('Nome', { exact: true }).first().fill('Stabilimento di Verona');
      await page.getByRole('button', { name: 'Aggiungi il sito' }).click();
      await page.getByText('Sito VR aggiunto.').waitFor();

      // A wrong customer code: the form comes back with the reason and what was typed.
      const form = page.getByRole('form', { name: 'Attiva un connettore' });
      await form.getByLabel('Nome').fill('Prepress Verona');
      await form.getByLabel('Cliente (codice)').fill('C999');
      await form.getByLabel('Siti (codici)').fill('VR');
      await form.getByLabel('Formato').selectOption('json');
      await form.getByRole('button', { name: 'Attiva il connettore' }).click();
      await page.getByRole('alert').filter({ hasText: 'Non trovato' }).waitFor();
      assert.equal(await page.getByRole('form', { name: 'Attiva un connettore' }).getByLabel('Nome').inputValue(), 'Prepress Verona');

      await page.getByRole('form', { name: 'Attiva un connettore' }).getByLabel('Cliente (codice)').fill('C001');
      await page.getByRole('form', { name: 'Attiva un connettore' }).getByRole('button', { name: 'Attiva il connettore' }).click();
      await page.getByRole('heading', { name: 'Connettore «Prepress Verona» attivato' }).waitFor();
      const first = (await page.locator('.secret').first().innerText()).trim();
      assert.match(first, /^oic_/);
      await shot(page, 'console-connector-key');
      assert.equal(await send(first, 'CN-1'), 201, 'the key works at once');

      await page.getByRole('link', { name: 'Torna ai connettori' }).click();
      assert.match(await page.locator('table').nth(1).innerText(), /Prepress Verona\s+C001\s+C001\s+json\s+VR/);
      await shot(page, 'console-connectors-actions');
      await page.getByRole('button', { name: 'Nuova chiave per Prepress Verona' }).click();
      await page.getByText('La chiave precedente non è più valida.').waitFor();
      const second = (await page.locator('.secret').first().innerText()).trim();
      assert.notEqual(second, first);
      assert.equal(await send(first, 'CN-2'), 401, 'the old key stops working');
      assert.equal(await send(second, 'CN-2'), 201);

      await page.goto(`${t.url}/console/registro`);
      const log = await page.locator('table').innerText();
      for (const what of ['Sito di produzione aggiunto', 'Connettore attivato', 'Nuova chiave del connettore']) assert.match(log, new RegExp(what));
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('fits a phone', async () => {
    const { context, page } = await newPage(browser, PHONE);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/connettori`);
      await assertNoSideScroll(page);
      await shot(page, 'console-connectors-phone');
    } finally {
      await context.close();
    }
  });

  void it('refuses a viewer and a CSRF-less POST', async () => {
    const before = (await t.service.store.listConnectors({})).length;
    const { password: pw } = await addOperator(t.service.store, { email: 'viewer@example.com', role: 'viewer' });
    const viewer = new Client(t.url);
    await viewer.login('console', 'viewer@example.com', pw);
    const list = await viewer.send('GET', '/console/connettori');
    assert.doesNotMatch(list.body, /Attiva il connettore|Nuova chiave/, 'a viewer is not offered the actions');
    // The viewer's own valid token (from the logout form): the refusal is the role's, not the token's.
    const _csrf = await viewer.token('/console/connettori');
    const form = { _csrf, nome: 'X', cliente: 'C001', siti: 'VR', formato: 'json' };
    assert.equal((await viewer.send('POST', '/console/connettori', form)).status, 403);
    assert.equal((await viewer.send('POST', '/console/connettori/siti', { _csrf, codice: 'MI', nome: 'Milano' })).status, 403);

    const ops = new Client(t.url);
    await ops.login('console', email, password);
    assert.equal((await ops.send('POST', '/console/connettori', { nome: 'X', cliente: 'C001', siti: 'VR', formato: 'json' })).status, 403);
    const id = (await t.service.store.listConnectors({}))[0]!.id;
    assert.equal((await ops.send('POST', `/console/connettori/${id}/chiave`, {})).status, 403);
    assert.equal((await t.service.store.listConnectors({})).length, before, 'nothing added');
    assert.equal((await t.service.store.listSites()).length, 1);
  });
});
