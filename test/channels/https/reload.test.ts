// `order-intake serve` re-reads its certificate on SIGHUP: a new connection sees the new certificate while a
// keep-alive connection opened before keeps working; a broken renewal leaves the old certificate in use. The same
// files serve FTP's AUTH TLS and SMTP's STARTTLS, checked with OpenSSL's own client: they follow the same SIGHUP.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { loggedPort, spawnServe, stopServe, waitForLine, type ServeProcess } from '../../helpers/child.ts';
import { tempDir } from '../../helpers/service.ts';
import { makeCert, type TestCert } from '../../helpers/tls.ts';
import { waitUntil } from '../../helpers/wait.ts';

const dir = tempDir('intake-reload-');
let first: TestCert;
let second: TestCert;
let p: ServeProcess;
const live = { cert: path.join(dir, 'live.crt'), key: path.join(dir, 'live.key') };

before(async () => {
  first = makeCert(dir, 'first', 'first.localhost');
  second = makeCert(dir, 'second', 'second.localhost');
  copyFileSync(first.certFile, live.cert);
  copyFileSync(first.keyFile, live.key);
  p = await spawnServe(path.join(dir, 'data'), { INTAKE_TLS_CERT: live.cert, INTAKE_TLS_KEY: live.key, INTAKE_FTP_PORT: '0', INTAKE_SMTP_PORT: '0' });
});
after(async () => {
  await stopServe(p);
  rmSync(dir, { recursive: true, force: true });
});

interface Seen { status: number; fingerprint: string; reused: boolean; socket: TLSSocket }

/** GET /healthz through `agent`, trusting both test certificates; reports which certificate the socket saw. */
function get(agent: https.Agent): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port: p.httpPort, path: '/healthz', agent, ca: [first.pem, second.pem] }, (res) => {
      // Read now: once the body has ended, a keep-alive socket goes back to the agent and leaves the response.
      const socket = res.socket as TLSSocket;
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, fingerprint, reused: req.reusedSocket, socket }));
    });
    req.on('error', reject);
  });
}

/**
 * The SHA-256 fingerprint of the certificate a new FTP (AUTH TLS) or SMTP (STARTTLS) session is offered, as
 * `openssl s_client -starttls` sees it, in Node's notation (upper-case hex pairs joined by colons).
 */
async function starttlsFingerprint(proto: 'ftp' | 'smtp'): Promise<string> {
  const port = await loggedPort(p, proto);
  const hello = spawnSync('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-starttls', proto, '-servername', 'localhost'],
    { input: '', encoding: 'utf8', timeout: 20_000 });
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(hello.stdout)?.[0];
  assert.ok(pem, `openssl s_client -starttls ${proto} got no certificate: ${hello.stderr}`);
  const fp = spawnSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], { input: pem, encoding: 'utf8' });
  const m = /Fingerprint=([0-9A-F:]+)/i.exec(fp.stdout);
  assert.ok(m, fp.stderr);
  return m[1]!.toUpperCase();
}

/** Send SIGHUP and wait for the service to say how it went (the n-th such line). */
async function hangUp(expect: RegExp, nth: number): Promise<void> {
  p.proc.kill('SIGHUP');
  await waitUntil(() => p.lines.filter((l) => expect.test(l)).length >= nth, `${expect} after SIGHUP`)
    .catch((e: Error) => { throw new Error(`${e.message}:\n${p.lines.join('\n')}`, { cause: e }); });
}

void describe('certificate reload on SIGHUP', () => {
  void it('new connections get the new certificate; a keep-alive connection opened before survives', async () => {
    const kept = new https.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await get(kept);
      assert.equal(before.status, 200);
      assert.equal(before.fingerprint, first.fingerprint256);
      assert.equal(await starttlsFingerprint('ftp'), first.fingerprint256);
      assert.equal(await starttlsFingerprint('smtp'), first.fingerprint256);

      copyFileSync(second.certFile, live.cert);
      copyFileSync(second.keyFile, live.key);
      await hangUp(/TLS certificate reloaded/, 1);

      const fresh = new https.Agent({ keepAlive: false });
      const now = await get(fresh);
      assert.equal(now.status, 200);
      assert.equal(now.fingerprint, second.fingerprint256, 'a new connection sees the renewed certificate');
      assert.equal(await starttlsFingerprint('ftp'), second.fingerprint256, 'FTP AUTH TLS offers the renewed certificate');
      assert.equal(await starttlsFingerprint('smtp'), second.fingerprint256, 'SMTP STARTTLS offers the renewed certificate');

      const again = await get(kept);
      assert.equal(again.status, 200);
      assert.equal(again.reused, true, 'the keep-alive connection was not dropped');
      assert.equal(again.socket, before.socket);
      assert.equal(again.fingerprint, first.fingerprint256, 'it keeps the session it negotiated');
      fresh.destroy();
    } finally {
      kept.destroy();
    }
  });

  void it('a renewal that is not a usable certificate is logged and the current one stays in use', async () => {
    writeFileSync(live.key, '-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n');
    await hangUp(/TLS certificate reload failed/, 1);
    const agent = new https.Agent({ keepAlive: false });
    try {
      const r = await get(agent);
      assert.equal(r.status, 200);
      assert.equal(r.fingerprint, second.fingerprint256);
      assert.equal(await starttlsFingerprint('ftp'), second.fingerprint256);
      assert.equal(await starttlsFingerprint('smtp'), second.fingerprint256);
    } finally {
      agent.destroy();
    }
    await waitForLine(p, /previous certificate stays in use/);
  });
});
