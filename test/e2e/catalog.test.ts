// The console's catalog page in a real browser (Debian's chromium): an operator deactivates an article (an order that
// names it is then refused as no longer available), activates it again and removes another; each button posts its
// CSRF token and each change is in the audit log under the operator's name. A post without the token changes
// nothing; a viewer is offered no button and cannot post one. Screenshots go to test-results/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addOperator } from '../../src/operators/accounts.ts';
import { order, type TestCustomer, type TestService } from '../helpers/service.ts';
import { Client, launch, login, newPage, shot, startWithOperator } from './browser.ts';

void describe('console: taking articles out of the catalog', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let c001: TestCustomer;

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    c001 = await t.customer('C001');
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const submit = async (ref: string, codice_articolo: string) => {
    const res = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c001.apiKey },
      body: JSON.stringify(order('C001', ref, { righe: [{ codice_articolo, quantita: 1, unita_misura: 'PZ' }] })),
    });
    return { status: res.status, body: (await res.json()) as { errori?: { messaggio: string }[] } };
  };

  void it('deactivates, activates again and removes with the buttons; each change is audit-logged', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/articoli`);
      await page.getByRole('button', { name: 'Disattiva BV-STD' }).waitFor();
      await shot(page, 'console-articles-actions');

      await Promise.all([page.waitForURL(/fatto=disattiva/), page.getByRole('button', { name: 'Disattiva BV-STD' }).click()]);
      await page.getByRole('status').filter({ hasText: 'Articolo «BV-STD» disattivato' }).waitFor();
      const inactive = page.locator('table', { has: page.getByRole('columnheader', { name: 'Disattivato il' }) });
      assert.match(await inactive.innerText(), /BV-STD\s+Biglietti da visita\s+PZ/);
      assert.equal(await page.getByRole('button', { name: 'Disattiva BV-STD' }).count(), 0, 'no longer among the articles in service');
      await shot(page, 'console-articles-deactivated');
      // The service remembers an article found for a few seconds; BV-STD was never ordered here, so none is remembered.
      const refused = await submit('CAT-1', 'BV-STD');
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.errori?.map((e) => e.messaggio), ['Articolo non più disponibile: "BV-STD"']);

      await Promise.all([page.waitForURL(/fatto=riattiva/), page.getByRole('button', { name: 'Riattiva BV-STD' }).click()]);
      await page.getByRole('status').filter({ hasText: 'di nuovo ordinabile' }).waitFor();
      assert.equal((await submit('CAT-2', 'BV-STD')).status, 201);

      await Promise.all([page.waitForURL(/fatto=rimuovi/), page.getByRole('button', { name: 'Rimuovi CAR-A4-80' }).click()]);
      await page.getByRole('status').filter({ hasText: 'Articolo «CAR-A4-80» rimosso dal catalogo' }).waitFor();
      assert.deepEqual(await t.service.store.knownArticles(['CAR-A4-80', 'BV-STD']), new Set(['BV-STD']));
      await shot(page, 'console-articles-removed');

      await page.goto(`${t.url}/console/registro`);
      const log = await page.locator('table').innerText();
      for (const label of ['Articolo disattivato', 'Articolo riattivato', 'Articolo rimosso']) assert.match(log, new RegExp(`${label}[\\s\\S]*${email}|${email}[\\s\\S]*${label}`));
      const audit = (await t.service.store.listAudit({ limit: 10 })).filter((a) => a.objectType === 'articolo');
      assert.deepEqual(audit.map((a) => [a.actor, a.action, a.objectId]), [
        [email, 'articolo.rimuovi', 'CAR-A4-80'], [email, 'articolo.riattiva', 'BV-STD'], [email, 'articolo.disattiva', 'BV-STD'],
      ]);
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('changes nothing without the CSRF token, nor for a viewer', async () => {
    const ops = new Client(t.url);
    await ops.login('console', email, password);
    const forged = await ops.send('POST', '/console/articoli/VOL-A4/disattiva', { _csrf: 'abc-def' });
    assert.equal(forged.status, 403);
    assert.deepEqual(await t.service.store.knownArticles(['VOL-A4']), new Set(['VOL-A4']));
    const missing = await ops.send('POST', '/console/articoli/NOPE/disattiva', { _csrf: await ops.token('/console/articoli') });
    assert.equal(missing.status, 404);
    assert.match(missing.body, /L&#39;articolo «NOPE» non è nel catalogo\.|L'articolo «NOPE» non è nel catalogo\./);

    const { password: pw } = await addOperator(t.service.store, { email: 'viewer-cat@example.com', role: 'viewer' });
    const viewer = new Client(t.url);
    await viewer.login('console', 'viewer-cat@example.com', pw);
    const page = await viewer.send('GET', '/console/articoli');
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /Disattiva|Rimuovi/);
    // A valid token of the viewer's own session (the logout form's): the refusal is for the role, not the token.
    const tried = await viewer.send('POST', '/console/articoli/VOL-A4/rimuovi', { _csrf: await viewer.token('/console/articoli') });
    assert.equal(tried.status, 403);
    assert.match(tried.body, /Operazione non consentita/);
    assert.deepEqual(await t.service.store.knownArticles(['VOL-A4']), new Set(['VOL-A4']));
  });
});
