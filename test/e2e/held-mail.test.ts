// Held e-mail and who may order by e-mail, in a real browser (Debian's chromium): the operator sets a customer's
// senders on its page (an invalid entry is refused in Italian), sees "Messaggi trattenuti" with sender, reason and
// authentication results, releases one and discards another; both decisions are in the audit log. Screenshots at
// desktop and phone width.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { MailAuth } from '../../src/domain/store/mail-trust.ts';
import { order, waitFor, type TestService } from '../helpers/service.ts';
import { compose } from '../helpers/dkim.ts';
import { assertNoSideScroll, launch, login, newPage, PHONE, shot, startWithOperator } from './browser.ts';

const FORGED: MailAuth = {
  header: 'Authentication-Results: intake.test;\r\n spf=fail (intake.test: domain of ceo@bank.test does not designate 127.0.0.1 as permitted sender) smtp.mailfrom=ceo@bank.test;\r\n dmarc=fail (p=REJECT) header.from=bank.test',
  from: 'ceo@bank.test', spf: { result: 'fail', domain: 'bank.test' }, dkim: [], dmarc: { result: 'fail', domain: 'bank.test', policy: 'reject' },
  at: new Date().toISOString(),
};

void describe('held e-mail in the console', () => {
  let t: TestService;
  let browser: Browser;
  let email: string;
  let password: string;
  const ids = { forged: randomUUID(), outside: randomUUID() };

  /** A held message as the pipeline leaves it (the pipeline's holding is tested in test/channels/mail/sender-policy.test.ts). */
  async function held(id: string, from: string, reason: string, detail: string, auth: MailAuth): Promise<void> {
    const store = t.service.store;
    const c = (await store.getCustomerByCode('C001'))!;
    const raw = await compose({ from, to: c.mailbox, subject: 'ordine', attachments: [{ filename: `${id}.json`, content: JSON.stringify(order('C001', `HELD-${id.slice(0, 8)}`)) }] });
    await store.saveMailMessages([{
      id, customerId: c.id, source: 'smtp', envelopeFrom: from, recipients: [c.mailbox], raw,
      sha256: 'x'.repeat(64), remote: '127.0.0.1', receivedAt: new Date().toISOString(),
    }]);
    await store.setMailAuth(id, auth);
    assert.ok(await store.holdMail({ mailId: id, customerId: c.id, reason, sender: from, detail }, { esito: 'nessun_ordine', submissions: [], held: reason }));
  }

  before(async () => {
    // No SMTP, and replies stay in the store: a released message is derived by the service's sweep without DNS of ours.
    ({ t, email, password } = await startWithOperator());
    await t.customer('C001');
    await held(ids.forged, 'ceo@bank.test', 'dmarc-fail', 'DMARC fallito per bank.test (p=reject)', FORGED);
    await held(ids.outside, 'estraneo@altro.test', 'not-allowed', "estraneo@altro.test non è nell'elenco dei mittenti",
      { ...FORGED, header: 'Authentication-Results: intake.test;\r\n spf=pass smtp.mailfrom=estraneo@altro.test;\r\n dmarc=none header.from=altro.test', from: 'estraneo@altro.test', spf: { result: 'pass' }, dmarc: { result: 'none' } });
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  void it('sets the senders of a customer on its page', async () => {
    const { page, incidents } = await newPage(browser);
    await login(page, t.url, 'console', email, password);
    await page.goto(`${t.url}/console/clienti/C001`);
    await page.getByLabel('Chi può ordinare').selectOption('elenco');
    await page.getByLabel('Elenco (un indirizzo o un @dominio per riga)').fill('Ordini@Cliente.it\nnon un indirizzo');
    await page.getByRole('button', { name: 'Salva' }).nth(1).click();
    await page.getByRole('alert').filter({ hasText: /Impostazione non salvata: "non" non è un indirizzo/ }).waitFor();
    assert.equal((await t.service.store.getMailPolicy((await t.service.store.getCustomerByCode('C001'))!.id)).mode, 'qualsiasi', 'nothing saved');
    await page.getByLabel('Elenco (un indirizzo o un @dominio per riga)').fill('Ordini@Cliente.it\n@cliente.it');
    await Promise.all([page.waitForURL(/fatto=mittenti/), page.getByRole('button', { name: 'Salva' }).nth(1).click()]);
    await page.getByText('Mittenti autorizzati salvati.').waitFor();
    const p = await t.service.store.getMailPolicy((await t.service.store.getCustomerByCode('C001'))!.id);
    assert.deepEqual([p.mode, p.allow], ['elenco', ['ordini@cliente.it', '@cliente.it']]);
    assert.equal(await page.getByLabel('Elenco (un indirizzo o un @dominio per riga)').inputValue(), 'ordini@cliente.it\n@cliente.it');
    await shot(page, 'console-customer-senders');
    assert.deepEqual(incidents, []);
  });

  void it('lists held messages with sender, reason and results; releases one and discards the other', async () => {
    const { page, incidents } = await newPage(browser);
    await login(page, t.url, 'console', email, password);
    await page.getByRole('link', { name: 'Messaggi trattenuti' }).click();
    await page.getByRole('heading', { name: 'Messaggi trattenuti' }).waitFor();
    const table = await page.locator('table').innerText();
    assert.match(table, /ceo@bank\.test/);
    assert.match(table, /mittente falsificato \(DMARC fallito/);
    assert.match(table, /dmarc=fail \(p=REJECT\) header\.from=bank\.test/);
    assert.match(table, /mittente non in elenco/);
    await shot(page, 'console-held');

    await Promise.all([page.waitForURL(/fatto=rilascia/), page.getByRole('button', { name: 'Rilascia il messaggio di ceo@bank.test' }).click()]);
    await page.getByText('Messaggio rilasciato').waitFor();
    await Promise.all([page.waitForURL(/fatto=scarta/), page.getByRole('button', { name: 'Scarta il messaggio di estraneo@altro.test' }).click()]);
    await page.getByText('Messaggio scartato.').waitFor();
    await page.getByText('Nessun messaggio trattenuto.').waitFor();
    const store = t.service.store;
    assert.equal((await store.getMailHold(ids.forged))?.state, 'released');
    assert.equal((await store.getMailHold(ids.forged))?.decidedBy, email);
    assert.equal((await store.getMailHold(ids.outside))?.state, 'discarded');
    // Released: the service's sweep registers it, and the submission's page shows the sender checks.
    const c = (await store.getCustomerByCode('C001'))!;
    const s = await waitFor(async () => (await store.listSubmissions({ customerId: c.id })).find((x) => x.meta.mail_id === ids.forged), 20_000, 'the released order');
    await page.goto(`${t.url}/console/invii/${s.id}`);
    await page.getByRole('heading', { name: "Controlli sul mittente dell'e-mail" }).waitFor();
    assert.match(await page.locator('pre', { hasText: 'Authentication-Results: intake.test;' }).innerText(), /dmarc=fail \(p=REJECT\) header\.from=bank\.test/);
    await shot(page, 'console-submission-auth');
    await page.getByRole('link', { name: 'Registro attività' }).click();
    const audit = await page.locator('table').innerText();
    assert.match(audit, /Messaggio trattenuto rilasciato/);
    assert.match(audit, /Messaggio trattenuto scartato/);
    assert.match(audit, /Mittenti autorizzati per e-mail modificati/);
    assert.deepEqual(incidents, []);
  });

  void it('reads on a phone', async () => {
    const store = t.service.store;
    const id = randomUUID();
    await held(id, 'ceo@bank.test', 'dmarc-fail', 'DMARC fallito per bank.test (p=reject)', FORGED);
    const { page } = await newPage(browser, PHONE);
    await login(page, t.url, 'console', email, password);
    await page.goto(`${t.url}/console/trattenuti`);
    await page.getByRole('button', { name: 'Rilascia il messaggio di ceo@bank.test' }).waitFor();
    await shot(page, 'console-held-phone');
    await assertNoSideScroll(page);
    assert.equal((await store.getMailHold(id))?.state, 'held');
  });
});
