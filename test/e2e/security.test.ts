// Attacks on the console, with a plain HTTP client (requests no browser would send) and with chromium (scripts
// that must not run): CSRF-less posts, a cookie replayed after logout, a viewer trying to act, brute-force logins,
// and XSS payloads in a customer name, an order reference and a raw file.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addOperator } from '../../src/operators/accounts.ts';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { CSP } from '../../src/channels/web/security.ts';
import type { TestService } from '../helpers/service.ts';
import { Client, launch, login, newPage, shot, startWithOperator } from './browser.ts';

void describe('console security', () => {
  let t: TestService;
  let email: string;
  let password: string;
  let submissionId: string;

  before(async () => {
    ({ t, email, password } = await startWithOperator());
    const c = await t.customer('C001');
    const customer = (await t.service.store.getCustomerByCode(c.code))!;
    ({ submission: { id: submissionId } } = await t.service.intake.submit({
      principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'ftp', fileName: 'x.csv', mediaType: 'text/csv',
      raw: Buffer.from('codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura\nC001;R1;2026-11-20;NOPE;1;PZ\n'),
    }));
  });

  after(async () => {
    await t?.close();
  });

  async function attempts(): Promise<number> {
    return (await t.service.store.getSubmission(submissionId))!.attempts;
  }

  void it('refuses a state-changing request without a CSRF token, and accepts it with one', async () => {
    const client = new Client(t.url);
    assert.equal((await client.login('console', email, password)).status, 303);
    const before = await attempts();
    const bare = await client.send('POST', `/console/invii/${submissionId}/rielabora`, {});
    assert.equal(bare.status, 403);
    assert.match(bare.body, /La richiesta non è valida/);
    const forged = await client.send('POST', `/console/invii/${submissionId}/rielabora`, { _csrf: 'abc-def' });
    assert.equal(forged.status, 403);
    assert.equal(await attempts(), before, 'nothing was reprocessed');
    const _csrf = await client.token(`/console/invii/${submissionId}`);
    const ok = await client.send('POST', `/console/invii/${submissionId}/rielabora`, { _csrf });
    assert.equal(ok.status, 303);
    assert.equal(await attempts(), before + 1, 'with the token, it was');
  });

  void it('a session ended by logout cannot act or read, even with its old cookie and token', async () => {
    const client = new Client(t.url);
    await client.login('console', email, password);
    const _csrf = await client.token(`/console/invii/${submissionId}`);
    const stolen = new Map(client.cookies);
    assert.equal((await client.send('POST', '/console/logout', { _csrf })).status, 303);

    const thief = new Client(t.url);
    thief.cookies = stolen;
    const page = await thief.send('GET', '/console/invii');
    assert.equal(page.status, 302);
    assert.equal(page.headers.location, '/console/login');
    const before = await attempts();
    const act = await thief.send('POST', `/console/invii/${submissionId}/rielabora`, { _csrf });
    assert.ok(act.status === 401 || act.status === 403, `status ${act.status}`);
    assert.equal(await attempts(), before);
  });

  void it('a viewer looks but cannot act', async () => {
    const { password: pw } = await addOperator(t.service.store, { email: 'viewer@example.com', role: 'viewer' });
    const client = new Client(t.url);
    await client.login('console', 'viewer@example.com', pw);
    const detail = await client.send('GET', `/console/invii/${submissionId}`);
    assert.equal(detail.status, 200);
    assert.doesNotMatch(detail.body, /Rielabora/, 'no action is offered');
    const _csrf = /name="_csrf" value="([^"]+)"/.exec(detail.body)![1]!;
    const before = await attempts();
    const act = await client.send('POST', `/console/invii/${submissionId}/rielabora`, { _csrf });
    assert.equal(act.status, 403);
    assert.equal(await attempts(), before);
  });

  // docs/operators/console.md: exporting is one of the actions; a viewer "only looks".
  void it('a viewer is neither offered nor given the CSV export of the orders', async () => {
    const { password: pw } = await addOperator(t.service.store, { email: 'viewer-csv@example.com', role: 'viewer' });
    const client = new Client(t.url);
    await client.login('console', 'viewer-csv@example.com', pw);
    const exported = await client.send('GET', '/console/ordini.csv');
    assert.equal(exported.status, 403);
    assert.match(exported.body, /Operazione non consentita/);
    const list = await client.send('GET', '/console/ordini');
    assert.equal(list.status, 200);
    assert.doesNotMatch(list.body, /Esporta l'elenco filtrato in CSV/);
    const audit = await t.service.store.listAudit({ limit: 50 });
    assert.equal(audit.filter((a) => a.action === 'ordini.esporta' && a.actor === 'viewer-csv@example.com').length, 0);
  });

  void it('shows XSS payloads in a customer name, an order reference and a raw file as text; no script runs', async () => {
    const name = '<script>window.__xss = 1</script>Rossi & "Figli"';
    const ref = '<img src=x onerror="window.__xss = 2">';
    const p = await provisionCustomer(t.service.store, { code: 'X9', name }, t.config.mailDomain);
    const raw = JSON.stringify({ codice_cliente: 'X9', riferimento_ordine: ref, data_ordine: '2026-11-20', righe: [{ codice_articolo: '<script>window.__xss=3</script>', quantita: 1, unita_misura: 'PZ' }] });
    const { submission } = await t.service.intake.submit({
      principal: { customerId: p.customer.id, customerCode: 'X9' }, channel: 'rest', mediaType: 'application/json', raw: Buffer.from(raw),
    });
    await t.service.intake.submit({
      principal: { customerId: p.customer.id, customerCode: 'X9' }, channel: 'rest', mediaType: 'application/json',
      raw: Buffer.from(JSON.stringify({ codice_cliente: 'X9', riferimento_ordine: ref, data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }] })),
    });
    const browser = await launch();
    try {
      const { page, incidents } = await newPage(browser);
      await login(page, t.url, 'console', email, password);
      const res = await page.goto(`${t.url}/console/clienti`);
      assert.equal(res?.headers()['content-security-policy'], CSP);
      await page.getByText(name).waitFor();
      await page.goto(`${t.url}/console/invii/${submission.id}`);
      assert.match(await page.locator('pre.raw').innerText(), /<script>window.__xss=3<\/script>/);
      assert.match(await page.locator('.errors').innerText(), /<script>window.__xss=3<\/script>/);
      await shot(page, 'console-xss-inert');
      await page.goto(`${t.url}/console/ordini?cliente=X9`);
      await page.getByText(ref).waitFor();
      await page.goto(`${t.url}/console/invii?cliente=X9`);
      assert.equal(await page.evaluate('window.__xss'), undefined, 'no payload ran');
      assert.deepEqual(incidents, []);
      assert.equal(await page.locator('img[src="x"]').count(), 0, 'no element was injected');
    } finally {
      await browser.close();
    }
  });

  void it('serves the raw file only as an attachment with a safe name, and refuses path tricks', async () => {
    const p = await provisionCustomer(t.service.store, { code: 'P1', name: 'P1' }, t.config.mailDomain);
    const { submission } = await t.service.intake.submit({
      principal: { customerId: p.customer.id, customerCode: 'P1' }, channel: 'ftp', fileName: '../../etc/"pass wd".html', raw: Buffer.from('<script>alert(1)</script>'),
    });
    const client = new Client(t.url);
    await client.login('console', email, password);
    const file = await client.send('GET', `/console/invii/${submission.id}/file`);
    assert.equal(file.status, 200);
    assert.equal(file.headers['content-disposition'], 'attachment; filename="pass_wd_.html"');
    assert.equal(file.headers['content-type'], 'application/octet-stream');
    assert.equal(file.body, '<script>alert(1)</script>');
    for (const url of ['/console/invii/..%2F..%2Fetc%2Fpasswd/file', '/console/invii/../../etc/passwd', `/console/invii/${submission.id}%00/file`]) {
      const r = await client.send('GET', url);
      assert.equal(r.status, 404, url);
    }
  });
  // Last: it leaves this test's address slowed down for the rest of the run.
  void it('slows brute-force logins: after a few failures each attempt waits, then is refused without a check', async () => {
    const client = new Client(t.url);
    const wrong = (n: number) => client.login('console', 'target@example.com', `wrong-${n}`);
    for (let i = 0; i < 3; i++) assert.equal((await wrong(i)).status, 401);
    const started = Date.now();
    assert.equal((await wrong(3)).status, 401);
    // A lower bound only: the server holds the answer for at least the throttle's first delay (1 s).
    assert.ok(Date.now() - started >= 900, `the 4th attempt was answered after ${Date.now() - started} ms`);
    // Many at once from the same address: they queue one behind the other, and those that would wait too long are
    // refused at once, password unchecked.
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => wrong(10 + i)));
    const refused = burst.filter((r) => r.status === 429);
    assert.ok(refused.length >= 1, `statuses ${burst.map((r) => r.status).join(',')}`);
    assert.match(refused[0]!.body, /Troppi tentativi non riusciti/);
  });
});
