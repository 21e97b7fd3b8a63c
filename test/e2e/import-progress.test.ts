// A catalog import from the console with its progress bar, in a real browser: a CSV of 200,000 articles is imported
// in the background through the same code as `order-intake articles import`; the page's bar (moved by importa.js,
// polling the job) only ever goes forward and ends at 100 % with the count; a bad file ends with the line at fault.
// A viewer cannot start an import, nor can a POST without the CSRF token.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addOperator } from '../../src/operators/accounts.ts';
import { tempDir, type TestService } from '../helpers/service.ts';
import { Client, launch, login, newPage, shot, startWithOperator } from './browser.ts';

const ROWS = 200_000;

function catalog(rows: number): Buffer {
  const lines = ['codice_articolo;descrizione;unita_misura'];
  for (let i = 0; i < rows; i++) lines.push(`ART-${i};Articolo numero ${i} per la prova di importazione;PZ`);
  return Buffer.from(lines.join('\r\n') + '\r\n');
}

void describe('catalog import with progress', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('follows a large import to 100 % and a bad one to its error', async () => {
    const { context, page, incidents } = await newPage(browser);
    const dir = tempDir('intake-import-');
    try {
      const before = await t.service.store.countArticles();
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/articoli`);
      // Given as a file on disk, as a user picks one: the browser reads it itself. A 12 MB buffer would instead
      // travel base64-encoded through Playwright's pipe, which took over the 30 s timeout on a loaded CI machine.
      const file = path.join(dir, 'grande.csv');
      writeFileSync(file, catalog(ROWS));
      await page.getByLabel(/Importa un catalogo CSV/).setInputFiles(file);
      await Promise.all([page.waitForURL(/\/console\/articoli\/importazioni\//), page.getByRole('button', { name: 'Importa', exact: true }).click()]);
      const bar = page.getByLabel('Avanzamento di grande.csv');
      // Every value the bar shows until the end, read as the page updates it.
      const seen: number[] = [];
      const status = page.getByRole('status');
      for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
        seen.push(Number(await bar.getAttribute('value')));
        if (/articoli importati/.test(await status.innerText())) break;
        if (seen.length === 2) await shot(page, 'console-import-progress');
        await page.waitForTimeout(100);
      }
      // Written as Italian writes numbers, with the thousands separated by a dot.
      assert.match(await status.innerText(), /Catalogo aggiornato: 200\.000 articoli importati da grande\.csv/);
      assert.equal(await bar.getAttribute('value'), '100');
      assert.deepEqual(seen, [...seen].sort((a, b) => a - b), `the bar only goes forward: ${seen.join(',')}`);
      await shot(page, 'console-import-done');
      assert.equal(await t.service.store.countArticles(), before + ROWS);
      assert.equal((await t.service.store.listAudit({ limit: 1 }))[0]?.detail.righe, ROWS);

      await page.goto(`${t.url}/console/articoli`);
      await page.getByLabel(/Importa un catalogo CSV/).setInputFiles({
        name: 'rotto.csv', mimeType: 'text/csv', buffer: Buffer.from('codice_articolo;descrizione;unita_misura\r\nX-1;Buono;PZ\r\nX-2;"aperto;PZ\r\n'),
      });
      await Promise.all([page.waitForURL(/\/console\/articoli\/importazioni\//), page.getByRole('button', { name: 'Importa', exact: true }).click()]);
      await page.getByRole('status').filter({ hasText: 'Importazione non riuscita: rotto.csv: Quote Not Closed' }).waitFor();
      assert.doesNotMatch(await page.getByRole('status').innerText(), /intake-articoli|\/tmp\//, 'no server path shown');
      await shot(page, 'console-import-failed');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('refuses a viewer, a CSRF-less POST, and an unknown job', async () => {
    const { password: pw } = await addOperator(t.service.store, { email: 'viewer@example.com', role: 'viewer' });
    const viewer = new Client(t.url);
    await viewer.login('console', 'viewer@example.com', pw);
    const _csrf = await viewer.token('/console/articoli');
    const form = new FormData();
    form.append('file', new Blob(['codice_articolo;descrizione;unita_misura\r\nV-1;Da visitatore;PZ\r\n']), 'v.csv');
    const asViewer = await fetch(`${t.url}/console/articoli/importa?_csrf=${encodeURIComponent(_csrf)}`, { method: 'POST', body: form, headers: { cookie: viewer.header() }, redirect: 'manual' });
    assert.equal(asViewer.status, 403);
    const ops = new Client(t.url);
    await ops.login('console', email, password);
    const bare = await fetch(`${t.url}/console/articoli/importa`, { method: 'POST', body: form, headers: { cookie: ops.header() }, redirect: 'manual' });
    assert.equal(bare.status, 403);
    assert.equal((await t.service.store.knownArticles(['V-1'])).size, 0);
    assert.equal((await ops.send('GET', '/console/articoli/importazioni/01890000-0000-7000-8000-000000000000/stato')).status, 404);
    assert.equal((await ops.send('GET', '/console/articoli/importazioni/nope%2F..%2Fregistro')).status, 404);
  });
});
