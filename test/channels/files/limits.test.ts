/**
 * Limits and options of the file channels: file size, sessions per customer, explicit TLS on FTP.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { LIMITS } from '../../../src/channels/files/limits.ts';
import { tempDir, waitFor, type TestCustomer } from '../../helpers/service.ts';
import { ftpClient, order, p, run, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';

const MAX = 2000;
let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  const certDir = tempDir('intake-cert-');
  const r = await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem')]);
  assert.equal(r.code, 0, r.stderr);
  h = await startFiles({
    INTAKE_MAX_FILE_BYTES: String(MAX), INTAKE_TLS_CERT: path.join(certDir, 'cert.pem'), INTAKE_TLS_KEY: path.join(certDir, 'key.pem'),
  });
  c1 = await h.t.customer('C001');
});
after(() => h.close());

async function submissions(): Promise<number> {
  const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
  return (await h.t.service.store.listSubmissions({ customerId: customer.id, limit: 1000 })).length;
}

test('a file over the size limit is refused on both protocols and never processed', async () => {
  const big = Buffer.alloc(MAX + 1, 0x20);
  const before = await submissions();
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await assert.rejects(p((cb) => sftp.writeFile('/ordini/grosso.json', big, cb)), (e: Error & { code?: number }) => e.code === 4 && /troppo grande/.test(e.message));
  } finally {
    conn.end();
  }
  const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await assert.rejects(client.uploadFrom(Readable.from([big]), '/ordini/grosso.csv'), (e: Error & { code?: number }) => e.code === 550 && /troppo grande/.test(e.message));
  } finally {
    client.close();
  }
  const uploads = path.join(h.t.dataDir, 'spool', 'uploads');
  await waitFor(() => (readdirSync(uploads).length === 0 ? true : undefined), 5000, 'spool emptied');
  assert.equal(await submissions(), before);
});

test(`at most ${LIMITS.sessionsPerCustomer} sessions per customer; a closed one frees its place`, async () => {
  const open = [];
  try {
    for (let i = 0; i < LIMITS.sessionsPerCustomer; i++) open.push(await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword));
    await assert.rejects(ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword), (e: Error & { code?: number }) => e.code === 530 && /Troppe sessioni/.test(e.message));
    open.pop()!.conn.end();
    const again = await waitFor(async () => ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword).catch(() => undefined), 5000, 'a free session');
    again.close();
  } finally {
    for (const s of open) s.conn.end();
  }
});

test('FTP with explicit TLS (AUTH TLS, protected data connections) uploads an order', async () => {
  const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword, true);
  try {
    const res = await client.uploadFrom(Readable.from([Buffer.from(JSON.stringify(order('C001', 'TLS-1')))]), '/ordini/tls.json');
    assert.equal(res.code, 226);
    const s = await h.processed('C001', 'tls.json');
    assert.equal(s.outcome?.esito, 'ok');
    assert.ok((await client.list('/ordini/elaborati')).some((f) => f.name === 'tls.json'));
  } finally {
    client.close();
  }
});
