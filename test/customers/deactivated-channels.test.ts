// A deactivated customer is refused on every channel, with the real clients (curl for REST and SOAP, OpenSSH sftp
// through sshpass, basic-ftp, nodemailer for SMTP, a connector key over HTTP), each answer in its channel's form
// with the Italian reason; nothing already stored is lost; reactivating restores every credential as it was.
// The browser part (portal login, console buttons) is in test/e2e/customer-state.test.ts.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { addSite } from '../../src/connectors/sites.ts';
import { addConnector } from '../../src/connectors/provision.ts';
import { INACTIVE_MESSAGE } from '../../src/customers/active.ts';
import { setCustomerActive } from '../../src/customers/deactivate.ts';
import { ftpClient, run, sftpBatch } from '../channels/files/helpers.ts';
import { faultOf, inviaOrdine, post } from '../channels/soap/helpers.ts';
import { order, startTestService, tempDir, waitFor, type TestCustomer, type TestService } from '../helpers/service.ts';

void describe('a deactivated customer on every channel', () => {
  let t: TestService;
  let c1: TestCustomer;
  let c2: TestCustomer;
  let own: string;
  let shared: string;
  const dir = tempDir('intake-deact-');
  let n = 0;

  const curlRest = async (key: string, ref: string) => {
    const r = await run('curl', ['-s', '-w', '\n%{http_code}', '-H', `X-API-Key: ${key}`, '-H', 'Content-Type: application/json',
      '--data-binary', JSON.stringify(order('C001', ref)), `${t.url}/api/v1/ordini`]);
    const i = r.stdout.lastIndexOf('\n');
    return { status: Number(r.stdout.slice(i + 1)), body: JSON.parse(r.stdout.slice(0, i)) as Record<string, unknown> };
  };
  const connector = async (key: string, code: string, ref: string) => {
    const res = await fetch(`${t.url}/api/v1/connettori/ordini`, {
      method: 'POST', headers: { 'service-x-key': key, 'content-type': 'application/json' }, body: JSON.stringify(order(code, ref)),
    });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  const mail = (to: string, subject: string) => nodemailer.createTransport({ host: '127.0.0.1', port: t.service.ports.smtp!, secure: false, ignoreTLS: true })
    .sendMail({ from: 'mario@cliente.it', to, subject, text: 'ordine allegato', attachments: [{ filename: 'o.json', content: JSON.stringify(order('C001', subject)) }] });
  const file = (ref: string) => {
    const f = path.join(dir, `${ref}.json`);
    writeFileSync(f, JSON.stringify(order('C001', ref)));
    return f;
  };
  const stored = async () => {
    const c = (await t.service.store.getCustomerByCode('C001'))!;
    return (await t.service.store.listSubmissions({ customerId: c.id, limit: 1000 })).length;
  };

  before(async () => {
    t = await startTestService({ INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_FTP_PASV_RANGE: '31000-31999', INTAKE_SMTP_PORT: '0' });
    c1 = await t.customer('C001');
    c2 = await t.customer('C002');
    await addSite(t.service.store, { code: 'VR', name: 'Verona' });
    own = (await addConnector(t.service.store, { customer: 'C001', name: 'C001 json', sites: 'VR', format: 'json' })).key;
    shared = (await addConnector(t.service.store, { customer: 'C002', customers: 'C001,C002', name: 'MIS', sites: 'VR', format: 'json' })).key;
    // Before: the customer works, so what follows is the deactivation's doing.
    assert.equal((await curlRest(c1.apiKey, 'PRIMA-1')).status, 201);
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('refuses it everywhere, each channel in its own form, and loses nothing', async () => {
    const before = await stored();
    const change = await setCustomerActive(t.service.store, 'c001', false);
    assert.equal(change.changed, true);

    // REST (curl): the key was used a moment ago and is remembered for a few seconds, as a revoked key is.
    const rest = await waitFor(async () => {
      const r = await curlRest(c1.apiKey, `R-${++n}`);
      return r.status === 403 ? r : undefined;
    }, 10_000, 'REST refusal');
    assert.deepEqual(rest.body, { statusCode: 403, message: INACTIVE_MESSAGE, error: 'Forbidden', code: 'CUSTOMER_INACTIVE' });
    const status = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `X-API-Key: ${c1.apiKey}`, `${t.url}/api/v1/ordini?riferimento_ordine=PRIMA-1`]);
    assert.equal(status.stdout, '403', 'reading its orders is refused too');

    // SOAP: a Client fault with the reason.
    const ns = `${t.url}/ws/ordini`;
    const fault = faultOf(await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'S-1'), { soapaction: `"${ns}#InviaOrdine"` }));
    assert.match(fault.faultcode, /Client$/);
    assert.equal(fault.faultstring, INACTIVE_MESSAGE);

    // SFTP (OpenSSH): the right password no longer logs in.
    const sftp = await sftpBatch(t.service.ports.sftp!, c1.ftpUser, c1.ftpPassword, [`put ${file('SF-1')} /ordini/SF-1.json`]);
    assert.notEqual(sftp.code, 0);
    assert.match(sftp.stderr, /Permission denied|Connection closed/i);

    // FTP (basic-ftp): 530 with the reason.
    await assert.rejects(ftpClient(t.service.ports.ftp!, c1.ftpUser, c1.ftpPassword), (e: Error & { code?: number }) => {
      assert.equal(e.code, 530);
      assert.match(e.message, /Il cliente è disattivato/);
      return true;
    });

    // SMTP (nodemailer): the order mailbox refuses the recipient, 550 5.7.1.
    await assert.rejects(mail(c1.mailbox, 'M-1'), (e: Error & { responseCode?: number; response?: string }) => {
      assert.equal(e.responseCode, 550);
      assert.match(e.response ?? '', /5\.7\.1 Il cliente di questa casella e' disattivato/);
      return true;
    });
    // The other customer's mailbox still takes mail.
    assert.match((await mail(c2.mailbox, 'M-C002')).response, /^250/);

    // Connectors: its own connector is refused at the door; a connector of several customers refuses its tickets.
    const door = await connector(own, 'C001', 'K-1');
    assert.equal(door.status, 403);
    assert.equal(door.body.message, INACTIVE_MESSAGE);
    const ticket = await connector(shared, 'C001', 'K-2');
    assert.equal(ticket.status, 403, JSON.stringify(ticket.body));
    assert.equal(ticket.body.message, 'Il cliente "C001" indicato nel ticket è disattivato: i suoi ordini non sono accettati');

    // Nothing already stored is lost: the order sent before is still there, credentials untouched.
    const c = (await t.service.store.getCustomerByCode('C001'))!;
    assert.ok(await t.service.store.getOrderByRef(c.id, 'PRIMA-1'));
    assert.ok(await t.service.store.findCredential('password', 'c001'));
    assert.ok(await stored() >= before);
  });

  void it('takes it back on every channel once reactivated, with the same credentials', async () => {
    assert.equal((await setCustomerActive(t.service.store, 'C001', true)).changed, true);
    assert.equal((await curlRest(c1.apiKey, 'DOPO-1')).status, 201);
    const ns = `${t.url}/ws/ordini`;
    assert.equal((await post(t.url, inviaOrdine(ns, c1.apiKey, 'C001', 'S-2'), { soapaction: `"${ns}#InviaOrdine"` })).status, 200);
    const sftp = await sftpBatch(t.service.ports.sftp!, c1.ftpUser, c1.ftpPassword, [`put ${file('SF-2')} /ordini/SF-2.json`]);
    assert.equal(sftp.code, 0, sftp.stderr);
    const ftp = await ftpClient(t.service.ports.ftp!, c1.ftpUser, c1.ftpPassword);
    ftp.close();
    assert.match((await mail(c1.mailbox, 'M-2')).response, /^250/);
    assert.equal((await connector(own, 'C001', 'K-3')).status, 201);
    assert.equal((await connector(shared, 'C001', 'K-4')).status, 201);
    const c = (await t.service.store.getCustomerByCode('C001'))!;
    await waitFor(async () => (await t.service.store.getOrderByRef(c.id, 'SF-2')) ?? undefined, 15_000, 'the SFTP order registered');
    await waitFor(async () => (await t.service.store.getOrderByRef(c.id, 'M-2')) ?? undefined, 15_000, 'the e-mail order registered');
  });
});
