// PostgreSQL going away under a running service (through a TCP relay the test controls): /healthz turns 503 and
// names the database, no order is acknowledged while nothing can be committed (no REST 201/202; no SMTP 250 but a
// temporary 4xx, so the sender's mail server tries again; no successful SFTP close for a file whose session was
// opened before the outage), and when the database is back the lost connections are
// replaced and the service works again, with nothing half-registered. Skipped, visibly, without
// INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import ssh2 from 'ssh2';
import type { SFTPWrapper } from 'ssh2';
import { order, startTestService, waitFor, type TestService } from '../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { startProxy } from './proxy.ts';

async function health(t: TestService): Promise<{ status: number; body: { status: string; store: string } }> {
  const res = await fetch(`${t.url}/healthz`);
  return { status: res.status, body: (await res.json()) as { status: string; store: string } };
}

async function post(t: TestService, key: string, ref: string, async = false): Promise<number> {
  const res = await fetch(`${t.url}/api/v1/ordini`, {
    method: 'POST', body: JSON.stringify(order('C001', ref)),
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...(async ? { prefer: 'respond-async' } : {}) },
    signal: AbortSignal.timeout(30_000),
  });
  await res.arrayBuffer();
  return res.status;
}

/** One message by SMTP: the server's final answer code (250 after DATA, or the code it refused with). */
async function mail(port: number, to: string, ref: string): Promise<number | undefined> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, socketTimeout: 30_000 });
  try {
    const info = await transport.sendMail({
      from: 'mario@cliente.it', to, subject: `Ordine ${ref}`, text: 'In allegato.', messageId: `<${ref}@cliente.it>`,
      attachments: [{ filename: `${ref}.json`, content: JSON.stringify(order('C001', ref)) }],
    });
    return Number(/^(\d{3})/.exec(info.response)?.[1]);
  } catch (e) {
    return (e as { responseCode?: number }).responseCode;
  } finally {
    transport.close();
  }
}

/** An SFTP session opened now (login needs the database), to upload through later. */
async function sftpSession(port: number, user: string, password: string): Promise<{ sftp: SFTPWrapper; end(): void }> {
  const conn = new ssh2.Client();
  return new Promise((resolve, reject) => {
    conn.on('error', reject);
    conn.on('ready', () => conn.sftp((err, sftp) => (err ? reject(err) : resolve({ sftp, end: () => conn.end() }))));
    conn.connect({ host: '127.0.0.1', port, username: user, password, readyTimeout: 10_000, tryKeyboard: false });
  });
}

/** Upload one file; resolves with the error the close (the acknowledgement) reported, or undefined for success. */
function upload(sftp: SFTPWrapper, name: string, content: string): Promise<Error | undefined> {
  return new Promise((resolve) => sftp.writeFile(`/ordini/${name}`, content, (err) => resolve(err ?? undefined)));
}

async function stateOf(t: TestService, key: string, ref: string): Promise<number> {
  const res = await fetch(`${t.url}/api/v1/ordini?riferimento_ordine=${ref}`, { headers: { 'x-api-key': key } });
  await res.arrayBuffer();
  return res.status;
}

void describe('PostgreSQL outage under a running service', { skip: PG_SKIP }, () => {
  void it('is unready and acknowledges nothing while the database is away, and recovers when it is back', async () => {
    const pgUrl = new URL(testDatabaseUrl!);
    const proxy = await startProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    const schema = await createSchema(testDatabaseUrl!, 'outage');
    let t: TestService | undefined;
    const sessions: { end(): void }[] = [];
    try {
      t = await startTestService({ INTAKE_DATABASE_URL: proxy.url(schema.url), INTAKE_SMTP_PORT: '0', INTAKE_SFTP_PORT: '0' });
      const smtpPort = t.service.ports.smtp!;
      const c = await t.customer('C001');
      const session = await sftpSession(t.service.ports.sftp!, c.ftpUser, c.ftpPassword);
      sessions.push(session);
      assert.equal(await post(t, c.apiKey, 'BEFORE'), 201);
      assert.equal(await mail(smtpPort, c.mailbox, 'MAIL-BEFORE'), 250);
      assert.deepEqual(await health(t), { status: 200, body: { status: 'ok', store: 'postgres' } });

      await proxy.cut();
      assert.deepEqual(await health(t), { status: 503, body: { status: 'unavailable', store: 'postgres' } });
      const during = await post(t, c.apiKey, 'DURING');
      assert.ok(during >= 500, `no acknowledgement while the database is away (got ${during})`);
      const duringAsync = await post(t, c.apiKey, 'DURING-ASYNC', true);
      assert.ok(duringAsync >= 500, `no 202 either (got ${duringAsync})`);
      const duringMail = await mail(smtpPort, c.mailbox, 'MAIL-DURING');
      assert.ok(duringMail !== undefined && duringMail >= 400 && duringMail < 500, `a temporary SMTP refusal, not 250 (got ${duringMail})`);
      assert.ok(await upload(session.sftp, 'durante.json', JSON.stringify(order('C001', 'SFTP-DURING'))), 'the SFTP close reports a failure');

      await proxy.restore();
      await waitFor(async () => ((await health(t!)).status === 200 ? true : undefined), 15_000, 'readiness after the database is back');
      assert.equal(await stateOf(t, c.apiKey, 'DURING'), 404, 'what was refused was not registered');
      assert.equal(await stateOf(t, c.apiKey, 'DURING-ASYNC'), 404);
      assert.equal(await post(t, c.apiKey, 'DURING'), 201, 'the customer sends it again and it is registered');
      assert.equal(await post(t, c.apiKey, 'AFTER'), 201);
      assert.equal(await stateOf(t, c.apiKey, 'BEFORE'), 200);
      const stored = (await t.service.store.listMailMessages({ limit: 10 })).map((m) => m.messageId);
      assert.deepEqual(stored, ['<MAIL-BEFORE@cliente.it>'], 'the refused message was not stored');
      assert.equal(await mail(smtpPort, c.mailbox, 'MAIL-DURING'), 250, 'the sender tries again and it is taken');
      assert.equal((await t.service.store.listSubmissions({ limit: 100 })).filter((x) => x.fileName === 'durante.json').length, 0,
        'the file whose close failed was not kept');
      assert.equal(await upload(session.sftp, 'durante.json', JSON.stringify(order('C001', 'SFTP-DURING'))), undefined, 'uploaded again on the same session');
      await waitFor(async () => ((await stateOf(t!, c.apiKey, 'SFTP-DURING')) === 200 ? true : undefined), 15_000, 'the order sent again by SFTP to be registered');
      await waitFor(async () => ((await stateOf(t!, c.apiKey, 'MAIL-DURING')) === 200 ? true : undefined), 15_000, 'the order sent again by e-mail to be registered');
    } finally {
      for (const x of sessions) x.end();
      await proxy.restore();
      await t?.close();
      await proxy.close();
      await schema.drop();
    }
  });

  void it('answers 503 promptly when the database stops answering without closing the connection', async () => {
    const pgUrl = new URL(testDatabaseUrl!);
    const proxy = await startProxy(pgUrl.hostname, Number(pgUrl.port || 5432));
    const schema = await createSchema(testDatabaseUrl!, 'outage');
    let t: TestService | undefined;
    try {
      t = await startTestService({ INTAKE_DATABASE_URL: proxy.url(schema.url) });
      assert.equal((await health(t)).status, 200);
      proxy.stall();
      const started = Date.now();
      assert.deepEqual(await health(t), { status: 503, body: { status: 'unavailable', store: 'postgres' } });
      assert.ok(Date.now() - started < 10_000, 'the probe is not held until a TCP timeout');
      await proxy.restore();
      await waitFor(async () => ((await health(t!)).status === 200 ? true : undefined), 15_000, 'readiness after the stall');
    } finally {
      await proxy.restore();
      await t?.close();
      await proxy.close();
      await schema.drop();
    }
  });
});
