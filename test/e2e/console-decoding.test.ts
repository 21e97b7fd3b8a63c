// The console shows what a person would read: a Windows-1252 CSV sent by e-mail with its accents, and the reply
// e-mail decoded (not quoted-printable). The message goes through the real SMTP channel (nodemailer); the reply is
// delivered to a test relay before the page is opened in Chromium.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import iconv from 'iconv-lite';
import nodemailer from 'nodemailer';
import type { Browser } from 'playwright-core';
import type { TestService } from '../helpers/service.ts';
import { received, startSink, type Sink } from '../channels/mail/helpers.ts';
import { launch, login, newPage, shot, startWithOperator } from './browser.ts';

const CSV = [
  'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura',
  'C001;PERÒ-1;2026-11-20;BV-STD;500;PZ',
  'C001;PERÒ-1;2026-11-20;VOL-A4;tantissimi;PZ',
].join('\r\n') + '\r\n';

void describe('console: raw file and reply decoded', () => {
  let t: TestService;
  let sink: Sink;
  let browser: Browser;
  let email: string;
  let password: string;
  let mailbox: string;

  before(async () => {
    sink = await startSink();
    ({ t, email, password } = await startWithOperator({ INTAKE_SMTP_PORT: '0', INTAKE_SMTP_RELAY: sink.url }));
    mailbox = (await t.customer('C001')).mailbox;
    browser = await launch();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await sink?.close();
  });

  void it('shows the Windows-1252 attachment with its accents and the Italian reply as the customer reads it', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.service.ports.smtp, secure: false, ignoreTLS: true });
    await transport.sendMail({
      from: 'ufficio@cliente.it', to: mailbox, subject: 'Ordine di novembre',
      attachments: [{ filename: 'novembre.csv', content: iconv.encode(CSV, 'windows-1252'), contentType: 'text/csv' }],
    });
    const reply = await received(sink, (m) => m.parsed.subject?.startsWith('Re: Ordine di novembre [') ?? false);
    // Long Italian lines with accents: nodemailer writes them quoted-printable.
    assert.match(reply.raw.toString('latin1'), /quoted-printable/i);
    const customer = (await t.service.store.getCustomerByCode('C001'))!;
    const [s] = (await t.service.store.listSubmissions({ customerId: customer.id, limit: 10 })).filter((x) => x.fileName === 'novembre.csv');
    assert.ok(s);

    const { context, page, incidents } = await newPage(browser);
    try {
      await login(page, t.url, 'console', email, password);
      await page.goto(`${t.url}/console/invii/${s.id}`);
      const raw = await page.locator('pre.raw').first().innerText();
      assert.match(raw, /C001;PERÒ-1;2026-11-20;VOL-A4;tantissimi;PZ/);
      assert.doesNotMatch(raw, /\ufffd/);
      assert.match(await page.locator('.errors').innerText(), /Riga 3 del file, quantità:\s*«tantissimi» non è un numero/);
      await page.getByText('Messaggio completo').click();
      const shown = await page.locator('details pre.raw').innerText();
      assert.match(shown, /^Oggetto: Re: Ordine di novembre \[esito: ERRORE, 0 ordini accettati, 1 ordine con errori\]$/m);
      assert.match(shown, /^Data: \d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}$/m);
      assert.match(shown, /abbiamo ricevuto il Suo messaggio "Ordine di novembre"/);
      assert.match(shown, /Ordine 1 \(riferimento PERÒ-1, righe 2-3 del file\): NON registrato/);
      assert.match(shown, /Allegati: esito\.json \(application\/json/);
      assert.doesNotMatch(shown, /=C3=|=\r?\n|Content-Transfer-Encoding/);
      await shot(page, 'console-submission-mail-decoded');
      assert.deepEqual(incidents, []);
    } finally {
      await context.close();
    }
  });
});
