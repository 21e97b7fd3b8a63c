// HTTPS on the HTTP port with the certificate FTP/SMTP use (INTAKE_TLS_CERT/INTAKE_TLS_KEY): real clients (curl,
// undici) against the real service on port 0, HSTS, the https:// address in the WSDL, and the clear-text redirect port.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import https from 'node:https';
import { connect } from 'node:net';
import { createClientAsync } from 'soap';
import { Agent, request } from 'undici';
import { HANDSHAKE_TIMEOUT_MS, HSTS_VALUE } from '../../../src/http/tls.ts';
import { order, startTestService, tempDir, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { makeCert, type TestCert } from '../../helpers/tls.ts';

const run = promisify(execFile);

let t: TestService;
let cert: TestCert;
let customer: TestCustomer;
let caFile: string;
let base: string;
const certDir = tempDir('intake-tls-');

before(async () => {
  cert = makeCert(certDir, 'server');
  caFile = cert.certFile;
  t = await startTestService({ INTAKE_TLS_CERT: cert.certFile, INTAKE_TLS_KEY: cert.keyFile, INTAKE_HTTP_REDIRECT_PORT: '0' });
  customer = await t.customer('C001');
  base = `https://127.0.0.1:${t.service.ports.http}`;
});
after(() => t.close());

/** curl with the test certificate as its only CA: verification is on, as for a customer. */
async function curl(args: string[]): Promise<{ status: number; headers: string; body: string }> {
  const out = path.join(certDir, `body-${Math.random().toString(36).slice(2)}`);
  const { stdout } = await run('curl', ['-sS', '--cacert', caFile, '-D', '-', '-o', out, ...args]);
  // With -L every hop's headers are dumped: the status is the last one's.
  const status = Number([...stdout.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].at(-1)?.[1]);
  return { status, headers: stdout, body: readFileSync(out, 'utf8') };
}

void describe('HTTPS on the HTTP port', () => {
  void it('curl registers an order over verified TLS; the answer carries HSTS', async () => {
    const body = path.join(certDir, 'order.json');
    writeFileSync(body, JSON.stringify(order('C001', 'TLS-1')));
    const r = await curl(['-X', 'POST', `${base}/api/v1/ordini`, '-H', 'Content-Type: application/json', '-H', `X-API-Key: ${customer.apiKey}`, '--data-binary', `@${body}`]);
    assert.equal(r.status, 201, r.body);
    assert.match(r.headers, new RegExp(`^strict-transport-security: ${HSTS_VALUE}\\r?$`, 'mi'));
    const stored = await t.service.store.getOrderByRef((await t.service.store.getCustomerByCode('C001'))!.id, 'TLS-1');
    assert.equal(stored?.id_ordine, (JSON.parse(r.body) as { id_ordine: string }).id_ordine);
  });

  void it('undici trusting only the test certificate gets the WSDL, whose address says https://', async () => {
    const dispatcher = new Agent({ connect: { ca: cert.pem } });
    try {
      const res = await request(`${base}/ws/ordini?wsdl`, { dispatcher });
      const wsdl = await res.body.text();
      assert.equal(res.statusCode, 200);
      assert.match(wsdl, new RegExp(`location="https://127\\.0\\.0\\.1:${t.service.ports.http}/ws/ordini"`));
      assert.equal(res.headers['strict-transport-security'], HSTS_VALUE);
      const doc = await request(`${base}/api/docs/json`, { dispatcher });
      const servers = (await doc.body.json() as { servers: { url: string }[] }).servers;
      assert.match(servers[0]!.url, /^https:\/\//, 'the OpenAPI document points clients at HTTPS');
    } finally {
      await dispatcher.close();
    }
  });

  void it('node-soap builds its client from the WSDL over HTTPS and InviaOrdine reaches the https:// address it names', async () => {
    const httpsAgent = new https.Agent({ ca: cert.pem });
    try {
      const c = await createClientAsync(`${base}/ws/ordini?wsdl`, { wsdl_options: { httpsAgent } });
      c.addSoapHeader({ Autenticazione: { ApiKey: customer.apiKey } }, 'Autenticazione', 'ord', `${base}/ws/ordini`);
      const [r] = (await c.InviaOrdineAsync({
        codice_cliente: 'C001', riferimento_ordine: 'TLS-SOAP-1', data_ordine: '2026-11-20',
        righe: { riga: [{ codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' }] },
      }, { httpsAgent })) as [Record<string, unknown>];
      assert.equal(r.esito, 'ok', JSON.stringify(r));
      assert.match(String(r.numero_ordine), /^\d{4}-\d{6}$/);
    } finally {
      httpsAgent.destroy();
    }
  });

  // A cookie without Secure is sent in clear text to any http:// port of the host (the redirect port among them), where
  // whoever is on the path reads it or sets his own: under HTTPS every cookie of the console and the portal is Secure.
  void it('under HTTPS every cookie of the console and the portal is Secure, HttpOnly and SameSite=Strict', async () => {
    const dispatcher = new Agent({ connect: { ca: cert.pem } });
    try {
      const cookies: string[] = [];
      const jar = new Map<string, string>();
      const send = async (method: 'GET' | 'POST', url: string, form?: Record<string, string>) => {
        const res = await request(`${base}${url}`, {
          dispatcher, method, body: form && new URLSearchParams(form).toString(),
          headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        });
        const set = res.headers['set-cookie'];
        for (const c of Array.isArray(set) ? set : set ? [set] : []) {
          cookies.push(c);
          const [pair] = c.split(';');
          jar.set(pair!.slice(0, pair!.indexOf('=')), pair!.slice(pair!.indexOf('=') + 1));
        }
        return { status: res.statusCode, body: await res.body.text() };
      };
      const login = await send('GET', '/portale/login');
      const _csrf = /name="_csrf" value="([^"]+)"/.exec(login.body)![1]!;
      assert.equal((await send('POST', '/portale/login', { _csrf, user: customer.ftpUser, password: customer.ftpPassword })).status, 303);
      await send('GET', '/console/login');
      assert.deepEqual([...new Set(cookies.map((c) => c.split('=')[0]))].sort(), ['_csrf', 'oi_portale']);
      for (const c of cookies) {
        assert.match(c, /;\s*Secure(;|$)/i, c);
        assert.match(c, /;\s*HttpOnly(;|$)/i, c);
        assert.match(c, /;\s*SameSite=Strict(;|$)/i, c);
      }
    } finally {
      await dispatcher.close();
    }
  });

  void it('a client that does not trust the certificate is refused by its own verification', async () => {
    await assert.rejects(request(`${base}/healthz`), /self[- ]signed|certificate/i);
  });

  void it('clear text to the HTTPS port gets no answer from the service', async () => {
    const res = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', `http://127.0.0.1:${t.service.ports.http}/healthz`]).catch((e: { stdout: string }) => e);
    assert.notEqual(res.stdout, '200');
  });

  void it('a connection that never starts its TLS handshake is dropped (HANDSHAKE_TIMEOUT_MS), not held for minutes', async () => {
    const socket = connect(t.service.ports.http!, '127.0.0.1');
    socket.on('error', () => undefined);
    const closed = await new Promise<boolean>((resolve) => {
      // Twice the bound: Node's own default (120 s) would not close it in time.
      const timer = setTimeout(() => resolve(false), 2 * HANDSHAKE_TIMEOUT_MS);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    socket.destroy();
    assert.equal(closed, true);
  });

  void it('the test helper and the banner address say https://', () => {
    assert.equal(t.url, base);
    assert.equal(t.service.demo?.baseUrl ?? base, base);
  });
});

void describe('the clear-text redirect port (INTAKE_HTTP_REDIRECT_PORT)', () => {
  void it('GET is sent to the same path over HTTPS with 308, and curl -L follows it to the real page', async () => {
    const plain = `http://127.0.0.1:${t.service.ports['http-redirect']}`;
    const r = await curl([`${plain}/healthz?x=1`]);
    assert.equal(r.status, 308);
    assert.match(r.headers, new RegExp(`^location: https://127\\.0\\.0\\.1:${t.service.ports.http}/healthz\\?x=1\\r?$`, 'mi'));
    const followed = await curl(['-L', `${plain}/healthz`]);
    assert.equal(followed.status, 200);
    assert.equal((JSON.parse(followed.body) as { status: string }).status, 'ok');
  });

  void it('with an https:// INTAKE_PUBLIC_URL the redirect goes there, whatever Host the client sent', async () => {
    const other = await startTestService({
      INTAKE_TLS_CERT: cert.certFile, INTAKE_TLS_KEY: cert.keyFile, INTAKE_HTTP_REDIRECT_PORT: '0', INTAKE_PUBLIC_URL: 'https://ordini.example.it',
    });
    try {
      const r = await curl(['-H', 'Host: evil.example', `http://127.0.0.1:${other.service.ports['http-redirect']}/ws/ordini?wsdl`]);
      assert.equal(r.status, 308);
      assert.match(r.headers, /^location: https:\/\/ordini\.example\.it\/ws\/ordini\?wsdl\r?$/mi);
    } finally {
      await other.close();
    }
  });

  void it('POST in clear text is refused with 403, not redirected, and nothing is stored', async () => {
    const before = (await t.service.store.listSubmissions({ limit: 1000 })).length;
    const r = await curl(['-X', 'POST', `http://127.0.0.1:${t.service.ports['http-redirect']}/api/v1/ordini`, '-H', 'Content-Type: application/json',
      '-H', `X-API-Key: ${customer.apiKey}`, '--data-binary', JSON.stringify(order('C001', 'CLEAR-1'))]);
    assert.equal(r.status, 403);
    const json = JSON.parse(r.body) as { statusCode: number; message: string; error: string };
    assert.equal(json.statusCode, 403);
    assert.equal(json.error, 'Forbidden');
    assert.match(json.message, /HTTPS/);
    assert.doesNotMatch(r.headers, /^location:/mi);
    assert.equal((await t.service.store.listSubmissions({ limit: 1000 })).length, before);
  });
});
