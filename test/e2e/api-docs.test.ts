// /api/docs in a real browser: "Try it out" on POST /api/v1/ordini leaves the Prefer header empty, so a first try
// (with the body Swagger UI fills in) gets the documented 201, not a 202 from a respond-async nobody asked for.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { rotateApiKey } from '../../src/customers/provision.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { launch, newPage, shot } from './browser.ts';

void describe('/api/docs Try it out', () => {
  let t: TestService;
  let browser: Browser;
  let demoKey: string;

  before(async () => {
    // The document names the server by its configured port, which Try it out calls: a real port, not 0.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    t = await startTestService({ INTAKE_HTTP_PORT: String(port), INTAKE_PUBLIC_URL: `http://127.0.0.1:${port}` });
    // The demo customer `serve` seeds has the code of the document's example order, so the body Swagger UI fills in
    // is accepted as it is; its key is printed once at start, so the test takes a new one.
    demoKey = await rotateApiKey(t.service.store, 'DEMO');
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('is served with a Content-Security-Policy and X-Frame-Options, and still renders with no violation', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text());
      });
      // The console message is what a person sees; the event is what the browser counts (inline styles included).
      await page.addInitScript(`document.addEventListener('securitypolicyviolation',
        (e) => console.error('Refused to load: ' + e.violatedDirective + ' ' + e.blockedURI));`);
      const res = await page.goto(`${t.url}/api/docs`);
      const headers = res!.headers();
      assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
      assert.doesNotMatch(headers['content-security-policy'] ?? '', /script-src[^;]*'unsafe-inline'/, 'no inline script');
      assert.equal(headers['x-frame-options'], 'DENY');
      assert.equal(headers['x-content-type-options'], 'nosniff');
      await page.locator('#operations-default-post_api_v1_ordini').waitFor();
      assert.ok(await page.locator('.opblock').count() > 3, 'the operations are listed');
      const op = page.locator('#operations-default-post_api_v1_ordini');
      await op.locator('.opblock-summary').click();
      await op.getByRole('button', { name: 'Try it out' }).waitFor();
      await shot(page, 'api-docs-csp');
      assert.deepEqual(violations, []);
      assert.deepEqual(incidents, []);
      const asset = await page.request.get(`${t.url}/api/docs/static/swagger-ui-bundle.js`);
      assert.equal(asset.headers()['x-frame-options'], 'DENY', 'the assets too');
    } finally {
      await context.close();
    }
  });

  void it('sends no Prefer header on a first try, and gets 201', async () => {
    const { context, page } = await newPage(browser);
    try {
      const violations: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      });
      await page.goto(`${t.url}/api/docs`);
      await page.getByRole('button', { name: 'Authorize' }).click();
      const scheme = page.locator('.auth-container', { hasText: 'apiKey' }).first();
      await scheme.locator('input').fill(demoKey);
      await scheme.locator('button.authorize').click();
      await page.locator('button.close-modal').click();
      const op = page.locator('#operations-default-post_api_v1_ordini');
      await op.locator('.opblock-summary').click();
      await op.getByRole('button', { name: 'Try it out' }).click();
      const prefer = op.locator('tr[data-param-name="Prefer"] select, tr[data-param-name="Prefer"] input');
      assert.equal(await prefer.inputValue(), '', 'Prefer is not filled in');
      await shot(page, 'api-docs-try-it-out');
      const sent = page.waitForRequest((r) => r.method() === 'POST' && r.url().endsWith('/api/v1/ordini'));
      await op.getByRole('button', { name: 'Execute' }).click();
      const req = await sent;
      assert.equal((await req.allHeaders()).prefer, undefined, 'no Prefer header sent');
      assert.equal((await req.response())?.status(), 201);
      await op.locator('.live-responses-table .response-col_status', { hasText: '201' }).waitFor();
      await shot(page, 'api-docs-executed');
      assert.deepEqual(violations, [], 'the answer is shown with no CSP violation');
    } finally {
      await context.close();
    }
  });
});
