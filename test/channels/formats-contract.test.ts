// The format registry's contract: every registered order format (src/intake/formats/registry.ts) is taken by every
// file channel, under every name it declares: REST under each of its media types and its structured suffix, e-mail as
// an attachment under each extension and, unnamed, under each media type, SFTP and FTP uploads and the portal upload
// under each extension. A channel that kept its own list of formats, or forgot one, fails here for that format.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { FORMATS, type ExampleOrder, type OrderFormat } from '../../src/intake/formats/index.ts';
import { startTestService, waitFor, type TestCustomer, type TestService } from '../helpers/service.ts';
import { Client } from '../e2e/browser.ts';
import { ftpClient, p, ssh2Sftp } from './files/helpers.ts';

const exampleOrder = (ref: string): ExampleOrder => ({
  codice_cliente: 'C001', riferimento_ordine: ref, data_ordine: '2026-11-20',
  righe: [{ codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 2.5, unita_misura: 'PZ' }],
});

/** A reference safe in a file name and unique per format, channel and label. */
const refFor = (f: OrderFormat, channel: string, label: string) => `K-${f.name}-${channel}-${label.replace(/[^a-z0-9]+/gi, '-')}`.slice(0, 60);

void describe('every registered format through every file channel', () => {
  let t: TestService;
  let c: TestCustomer;
  let customerId: string;

  before(async () => {
    t = await startTestService({ INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_FTP_PASV_RANGE: '31000-31999', INTAKE_SMTP_PORT: '0' });
    c = await t.customer('C001');
    customerId = (await t.service.store.getCustomerByCode('C001'))!.id;
  });

  after(async () => {
    await t?.close();
  });

  /** The order of that reference, registered with the example's lines, within the wait. */
  async function registered(ref: string): Promise<void> {
    const o = await waitFor(() => t.service.store.getOrderByRef(customerId, ref), 15_000, `order ${ref} registered`);
    assert.deepEqual(o.righe.map((r) => [r.codice_articolo, r.quantita]), [['BV-STD', 500], ['VOL-A4', 2.5]], ref);
  }

  void it('REST takes each format under each of its media types and its structured suffix', async () => {
    for (const f of FORMATS) {
      const types = [...f.mediaTypes, ...(f.suffix ? [`application/vnd.esempio${f.suffix}`] : [])];
      for (const type of types) {
        const ref = refFor(f, 'rest', type);
        const res = await fetch(`${t.url}/api/v1/ordini`, {
          method: 'POST', headers: { 'content-type': `${type}; charset=utf-8`, 'x-api-key': c.apiKey }, body: f.example(exampleOrder(ref)),
        });
        assert.equal(res.status, 201, `${f.name} as ${type}: ${await res.text()}`);
        await registered(ref);
      }
    }
  });

  void it('e-mail takes each format as a named attachment of each extension, and unnamed under each media type', async () => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: t.service.ports.smtp, secure: false, ignoreTLS: true });
    try {
      const refs: string[] = [];
      const attachments = FORMATS.flatMap((f) => [
        ...f.extensions.map((ext) => {
          const ref = refFor(f, 'mail', ext);
          refs.push(ref);
          // A label that names no format (Outlook's for .csv files): the extension must decide.
          return { filename: `${ref}.${ext}`, content: f.example(exampleOrder(ref)), contentType: 'application/vnd.ms-excel' };
        }),
        ...f.mediaTypes.map((type) => {
          const ref = refFor(f, 'mailtype', type);
          refs.push(ref);
          return { content: f.example(exampleOrder(ref)), contentType: type, contentDisposition: 'attachment' as const };
        }),
      ]);
      await transport.sendMail({ from: 'ordini@cliente.it', to: c.mailbox, subject: 'Ordini in tutti i formati', text: 'In allegato.', attachments });
      for (const ref of refs) await registered(ref);
    } finally {
      transport.close();
    }
  });

  void it('SFTP and FTP take each format as an upload of each extension', async () => {
    const { sftp, conn } = await ssh2Sftp(t.service.ports.sftp!, c.ftpUser, c.ftpPassword);
    const ftp = await ftpClient(t.service.ports.ftp!, c.ftpUser, c.ftpPassword);
    try {
      for (const f of FORMATS) {
        for (const ext of f.extensions) {
          const viaSftp = refFor(f, 'sftp', ext);
          await p((cb) => sftp.writeFile(`/ordini/${viaSftp}.${ext}`, f.example(exampleOrder(viaSftp)), cb));
          await registered(viaSftp);
          const viaFtp = refFor(f, 'ftp', ext);
          await ftp.uploadFrom(Readable.from([Buffer.from(f.example(exampleOrder(viaFtp)))]), `/ordini/${viaFtp}.${ext}`);
          await registered(viaFtp);
        }
      }
    } finally {
      ftp.close();
      conn.end();
    }
  });

  void it('the portal takes each format as an uploaded file of each extension, and its page names every format', async () => {
    const client = new Client(t.url);
    await client.login('portale', c.ftpUser, c.ftpPassword);
    const home = await client.send('GET', '/portale/');
    for (const f of FORMATS) {
      assert.match(home.body, new RegExp(`\\b${f.label}\\b`), `the upload page names ${f.label}`);
      for (const ext of f.extensions) assert.match(home.body, new RegExp(`accept="[^"]*\\.${ext}\\b`), `the file picker offers .${ext}`);
    }
    const _csrf = await client.token('/portale/');
    for (const f of FORMATS) {
      for (const ext of f.extensions) {
        const ref = refFor(f, 'portal', ext);
        const form = new FormData();
        form.append('_csrf', _csrf);
        // Browsers label files by the desktop's settings; the name is what is sure.
        form.append('files', new Blob([f.example(exampleOrder(ref))], { type: 'application/octet-stream' }), `${ref}.${ext}`);
        const res = await fetch(`${t.url}/portale/invia`, { method: 'POST', headers: { cookie: client.header(), 'x-csrf-token': _csrf }, body: form });
        assert.equal(res.status, 200, `${f.name} .${ext}: ${res.status}`);
        await registered(ref);
      }
    }
  });
});
