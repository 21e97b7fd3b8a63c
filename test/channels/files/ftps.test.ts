/**
 * FTPS (explicit TLS) with real clients: lftp, which starts the data connection's TLS handshake only after the 150
 * reply, and curl, which (like FileZilla) handshakes first. Both orders must work every time, not by luck of timing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/config.ts';
import { tempDir } from '../../helpers/service.ts';
import { curl, order, rawFtp, run, startFiles, type FilesHarness } from './helpers.ts';
import type { TestCustomer } from '../../helpers/service.ts';

let h: FilesHarness;
let c1: TestCustomer;
let work: string;
let tlsEnv: Record<string, string>;

before(async () => {
  const certDir = tempDir('intake-cert-');
  const r = await run('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-keyout', path.join(certDir, 'key.pem'), '-out', path.join(certDir, 'cert.pem')]);
  assert.equal(r.code, 0, r.stderr);
  tlsEnv = { INTAKE_TLS_CERT: path.join(certDir, 'cert.pem'), INTAKE_TLS_KEY: path.join(certDir, 'key.pem') };
  h = await startFiles({ ...tlsEnv, INTAKE_FTP_PASV_RANGE: '32000-32099' });
  c1 = await h.t.customer('C001');
  work = tempDir('intake-ftps-client-');
});
after(() => h.close());

/** FEAT's feature lines, e.g. ["AUTH TLS", "PBSZ", …]. */
async function features(port: number): Promise<string[]> {
  const ftp = await rawFtp(port);
  try {
    const reply = await ftp.send('FEAT');
    assert.match(reply, /^211 /m);
    return reply.split('\r\n').filter((l) => l.startsWith(' ')).map((l) => l.trim());
  } finally {
    ftp.socket.destroy();
  }
}

/** lftp forced onto TLS for control and data, trusting the test's self-signed certificate. */
function lftp(commands: string[]) {
  const script = ['set ftp:ssl-force true', 'set ftp:ssl-protect-data true', 'set ssl:verify-certificate no',
    'set net:max-retries 1', 'set net:timeout 10', ...commands, 'bye'].join('; ');
  return run('lftp', ['-u', `${c1.ftpUser},${c1.ftpPassword}`, '-p', String(h.ftpPort), '-e', script, '127.0.0.1'], undefined, 30_000);
}

test('lftp uploads and lists over FTPS, five times in a row', async () => {
  for (let i = 1; i <= 5; i++) {
    const local = path.join(work, `lftp-${i}.json`);
    writeFileSync(local, JSON.stringify(order('C001', `FTPS-LFTP-${i}`)));
    const r = await lftp([`put ${local} -o /ordini/lftp-${i}.json`, 'cls -l /ordini/ /ordini/elaborati/ /ordini/scartati/']);
    assert.equal(r.code, 0, `run ${i}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`lftp-${i}\\.json`), `run ${i}: the listing names the file just sent`);
    const s = await h.processed('C001', `lftp-${i}.json`);
    assert.equal(s.channel, 'ftp');
    assert.equal(s.outcome?.orders[0]?.riferimento_ordine, `FTPS-LFTP-${i}`);
  }
});

test('curl uploads and lists over FTPS (handshake before the 150 reply)', async () => {
  for (let i = 1; i <= 3; i++) {
    const up = await curl(['--ssl-reqd', '-T', '-', `ftp://127.0.0.1:${h.ftpPort}/ordini/curl-${i}.json`], c1.ftpUser, c1.ftpPassword,
      Buffer.from(JSON.stringify(order('C001', `FTPS-CURL-${i}`))));
    assert.equal(up.code, 0, up.stderr);
    assert.equal((await h.processed('C001', `curl-${i}.json`)).outcome?.esito, 'ok');
    const list = await curl(['--ssl-reqd', `ftp://127.0.0.1:${h.ftpPort}/ordini/elaborati/`], c1.ftpUser, c1.ftpPassword);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`curl-${i}\\.json`));
  }
});

test('curl uploads a file of 3 MB over FTPS intact', async () => {
  const body = Buffer.concat([Buffer.from(JSON.stringify(order('C001', 'FTPS-GRANDE'))), Buffer.alloc(3 * 1024 * 1024, 0x20)]);
  const up = await curl(['--ssl-reqd', '-T', '-', `ftp://127.0.0.1:${h.ftpPort}/ordini/grande-ftps.json`], c1.ftpUser, c1.ftpPassword, body);
  assert.equal(up.code, 0, up.stderr);
  const s = await h.processed('C001', 'grande-ftps.json');
  assert.ok(s.raw.equals(body));
});

test('with a certificate FEAT offers AUTH TLS, PBSZ and PROT', async () => {
  const feats = await features(h.ftpPort);
  for (const f of ['AUTH TLS', 'PBSZ', 'PROT', 'UTF8']) assert.ok(feats.includes(f), feats.join());
});

test('without a certificate FEAT offers no TLS, and lftp with its defaults logs in in clear', async () => {
  const plain = await startFiles({ INTAKE_FTP_PASV_RANGE: '32100-32199' });
  try {
    const feats = await features(plain.ftpPort);
    assert.ok(feats.includes('UTF8') && feats.includes('SIZE'), feats.join());
    for (const f of ['AUTH TLS', 'PBSZ', 'PROT']) assert.ok(!feats.includes(f), `${f} advertised: ${feats.join()}`);
    const c = await plain.t.customer('C001');
    const r = await run('lftp', ['-u', `${c.ftpUser},${c.ftpPassword}`, '-p', String(plain.ftpPort), '-e', 'set net:max-retries 1; cls /ordini/; bye', '127.0.0.1'], undefined, 20_000);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /elaborati/);
  } finally {
    await plain.close();
  }
});

test('INTAKE_FTP_REQUIRE_TLS refuses USER before AUTH TLS with 530, and FTPS clients still get in', async () => {
  const strict = await startFiles({ ...tlsEnv, INTAKE_FTP_REQUIRE_TLS: 'true', INTAKE_FTP_PASV_RANGE: '32200-32299' });
  try {
    const c = await strict.t.customer('C001');
    const ftp = await rawFtp(strict.ftpPort);
    try {
      assert.match(await ftp.send(`USER ${c.ftpUser}`), /^530 .*AUTH TLS/);
      assert.match(await ftp.send(`PASS ${c.ftpPassword}`), /^530 /);
      assert.match(await ftp.send('LIST'), /^530 /, 'still not logged in');
    } finally {
      ftp.socket.destroy();
    }
    const clear = await curl(['-T', '-', `ftp://127.0.0.1:${strict.ftpPort}/ordini/in-chiaro.json`], c.ftpUser, c.ftpPassword, Buffer.from('{}'));
    assert.notEqual(clear.code, 0, 'curl without TLS is refused');
    assert.match(clear.stderr, /530|denied/i);
    const up = await curl(['--ssl-reqd', '-T', '-', `ftp://127.0.0.1:${strict.ftpPort}/ordini/cifrato.json`], c.ftpUser, c.ftpPassword,
      Buffer.from(JSON.stringify(order('C001', 'FTPS-STRICT'))));
    assert.equal(up.code, 0, up.stderr);
    assert.equal((await strict.processed('C001', 'cifrato.json')).outcome?.esito, 'ok');
    const names = (await strict.t.service.store.listSubmissions({})).map((s) => s.fileName);
    assert.ok(!names.includes('in-chiaro.json'), 'nothing was received in clear');
  } finally {
    await strict.close();
  }
});

test('INTAKE_FTP_REQUIRE_TLS without a certificate is refused at start', () => {
  assert.throws(() => loadConfig({ INTAKE_FTP_REQUIRE_TLS: 'true' }), /INTAKE_FTP_REQUIRE_TLS needs INTAKE_TLS_CERT/);
  assert.throws(() => loadConfig({ ...tlsEnv, INTAKE_FTP_REQUIRE_TLS: 'maybe' }), /must be true or false/);
  assert.equal(loadConfig({ ...tlsEnv, INTAKE_FTP_REQUIRE_TLS: 'true' }).ftpRequireTls, true);
  assert.equal(loadConfig({}).ftpRequireTls, false);
});
