// The dashboard's "Webhook in errore" card and the page it links to, in a real browser: a webhook whose receiver
// answers 500 is retried and then given up (a short retry period); the card counts the failed delivery and the page
// lists it with the receiver's status. Read through the hand-off store's own methods.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import { order, waitFor, type TestService } from '../helpers/service.ts';
import { TEST_SECRET_KEY } from '../handoff/stores.ts';
import { launch, login, newPage, PHONE, shot, startWithOperator, assertNoSideScroll } from './browser.ts';

void describe('failing webhooks in the console', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  let receiver: Server;
  let url: string;

  before(async () => {
    receiver = createServer((_req, res) => res.writeHead(500).end('guasto'));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    ({ t, email, password } = await startWithOperator({
      INTAKE_SECRET_KEY: TEST_SECRET_KEY, INTAKE_HANDOFF_POLL_MS: '50', INTAKE_HANDOFF_RETRY: '100,200,300',
    }));
    const c = await t.customer('C001');
    const w = await addWebhook(t.service.store, TEST_SECRET_KEY, { url, allowPrivate: true });
    const res = await fetch(`${t.url}/api/v1/ordini`, {
      method: 'POST', headers: { 'x-api-key': c.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(order('C001', 'WH-1')),
    });
    assert.equal(res.status, 201);
    await waitFor(async () => {
      const failed = await t.service.store.listDeliveries({ subscriberId: w.webhook.id, state: 'failed' });
      return failed.length > 0 ? true : undefined;
    }, 15_000, 'the delivery given up');
    browser = await launch();
  });

  after(async () => {
    await browser?.close();
    await t?.close();
    await new Promise((r) => receiver?.close(r));
  });

  void it('counts the failed delivery on the dashboard and lists it on its page', async () => {
    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      const card = page.locator('.card', { hasText: 'Webhook in errore' });
      assert.match(await card.innerText(), /Webhook in errore\s+1\s+1 fallite, 0 in nuovo tentativo/);
      await shot(page, 'console-dashboard-webhooks');
      await card.getByRole('link', { name: 'Vedi le consegne' }).click();
      await page.getByRole('heading', { name: 'Webhook in errore' }).waitFor();
      await page.getByRole('heading', { name: url }).waitFor();
      const table = await page.locator('table').innerText();
      assert.match(table, /Ordine registrato/);
      assert.match(table, /Fallita/);
      assert.match(table, /HTTP 500/);
      await shot(page, 'console-webhooks');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });

  void it('fits a phone', async () => {
    const { context, page } = await newPage(browser, PHONE);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/webhook`);
      await assertNoSideScroll(page);
      await shot(page, 'console-webhooks-phone');
    } finally {
      await context.close();
    }
  });
});
