// GET /metrics on the HTTP port behind INTAKE_METRICS_TOKEN: orders registered by REST, FTP (curl) and SFTP (OpenSSH
// sftp), then scraped with a real HTTP client and parsed; every counter must have moved by exactly what was sent.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { curl, ftpClient, order as fileOrder, sftpBatch, startFiles, type FilesHarness } from '../channels/files/helpers.ts';
import { order, waitFor, type TestCustomer } from '../helpers/service.ts';
import { parsePrometheus, sample, type Samples } from '../helpers/prometheus.ts';

const TOKEN = randomBytes(24).toString('hex');
let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  // No sweeps during the test: the queue-depth check needs a received submission to stay unjudged until it says so.
  h = await startFiles({ INTAKE_METRICS_TOKEN: TOKEN, INTAKE_SWEEP_INTERVAL_MS: '3600000' });
  c1 = await h.t.customer('C001');
});
after(() => h.close());

async function scrape(token: string | null = TOKEN): Promise<{ status: number; contentType: string; text: string; headers: Record<string, unknown> }> {
  const res = await request(`${h.t.url}/metrics`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, contentType: String(res.headers['content-type']), text: await res.body.text(), headers: res.headers };
}

async function samples(): Promise<Samples> {
  const r = await scrape();
  assert.equal(r.status, 200, r.text);
  return parsePrometheus(r.text);
}

async function rest(body: unknown): Promise<number> {
  const res = await request(`${h.t.url}/api/v1/ordini`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c1.apiKey }, body: JSON.stringify(body),
  });
  await res.body.dump();
  return res.statusCode;
}

void describe('GET /metrics', () => {
  void it('refuses a missing or wrong bearer token with 401 and serves the Prometheus text format with the right one', async () => {
    for (const token of [null, 'x'.repeat(48), `${TOKEN}x`]) {
      const r = await scrape(token);
      assert.equal(r.status, 401, `token ${String(token)}`);
      assert.equal(r.headers['www-authenticate'], 'Bearer realm="metrics"');
      assert.doesNotMatch(r.text, /intake_/);
    }
    const ok = await scrape();
    assert.equal(ok.status, 200);
    assert.match(ok.contentType, /^text\/plain; version=0\.0\.4/);
    const s = parsePrometheus(ok.text);
    assert.ok(s.has('process_resident_memory_bytes'), 'default process metrics are there');
    assert.equal(sample(s, 'intake_queue_depth', { queue: 'replies_pending' }), 0);
  });

  void it('takes the Bearer scheme in any case (RFC 7235: schemes are case-insensitive), and nothing else', async () => {
    const status = async (authorization: string) => {
      const res = await request(`${h.t.url}/metrics`, { headers: { authorization } });
      await res.body.dump();
      return res.statusCode;
    };
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) assert.equal(await status(`${scheme} ${TOKEN}`), 200, scheme);
    for (const wrong of [`Basic ${TOKEN}`, `Token ${TOKEN}`, `Bearer${TOKEN}`, TOKEN, 'Bearer', `Bearer ${TOKEN} x`]) {
      assert.equal(await status(wrong), 401, wrong);
    }
  });

  void it('submissions, orders, acknowledgements and store writes move by what REST, FTP and SFTP brought', async () => {
    const before = await samples();
    assert.equal(await rest(order('C001', 'M-1')), 201);
    assert.ok([200, 201].includes(await rest(order('C001', 'M-1'))), 'the same order again is a duplicate');
    assert.equal(await rest({ ...order('C001', 'M-2'), righe: [] }), 400);

    const two = Buffer.from(JSON.stringify([fileOrder('C001', 'F-1'), fileOrder('C001', 'F-2')]));
    const up = await curl(['-T', '-', `ftp://127.0.0.1:${h.ftpPort}/ordini/due.json`], c1.ftpUser, c1.ftpPassword, two);
    assert.equal(up.code, 0, up.stderr);
    await h.processed('C001', 'due.json');
    const local = path.join(h.t.dataDir, 'uno.csv');
    writeFileSync(local, 'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura\nC001;S-1;2026-11-20;NON-ESISTE;5;PZ\n');
    const put = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, [`put ${local} /ordini/uno.csv`]);
    assert.equal(put.code, 0, put.stderr);
    await h.processed('C001', 'uno.csv');
    const after = await samples();

    const d = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
    assert.equal(d('intake_submissions_total', { channel: 'rest', outcome: 'ok' }), 2);
    assert.equal(d('intake_submissions_total', { channel: 'rest', outcome: 'errore' }), 1);
    assert.equal(d('intake_orders_total', { channel: 'rest', outcome: 'accepted' }), 1);
    assert.equal(d('intake_orders_total', { channel: 'rest', outcome: 'duplicate' }), 1);
    assert.equal(d('intake_orders_total', { channel: 'rest', outcome: 'rejected' }), 1);
    assert.equal(d('intake_submissions_total', { channel: 'ftp', outcome: 'ok' }), 1);
    assert.equal(d('intake_orders_total', { channel: 'ftp', outcome: 'accepted' }), 2);
    // An unknown article: the SFTP file is judged "errore", its one order rejected.
    assert.equal(d('intake_submissions_total', { channel: 'sftp', outcome: 'errore' }), 1);
    assert.equal(d('intake_orders_total', { channel: 'sftp', outcome: 'rejected' }), 1);
    assert.equal(d('intake_ack_seconds_count', { channel: 'rest' }), 3);
    assert.equal(d('intake_ack_seconds_count', { channel: 'ftp' }), 1);
    assert.equal(d('intake_ack_seconds_count', { channel: 'sftp' }), 1);
    assert.ok(d('intake_ack_seconds_sum', { channel: 'rest' }) > 0);
    assert.equal(d('intake_ack_seconds_bucket', { channel: 'ftp', le: '+Inf' }), 1);
    // REST orders are saved already processed, in one write (saveSingleOrder); the files are saved first, then judged.
    assert.equal(d('intake_store_write_seconds_count', { operation: 'saveSingleOrder' }), 3);
    assert.equal(d('intake_store_write_seconds_count', { operation: 'saveSubmission' }), 2);
    assert.equal(d('intake_store_write_seconds_count', { operation: 'completeSubmission' }), 2);
  });

  void it('queue depth counts received submissions not yet judged', async () => {
    const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
    const s = await h.t.service.intake.receive({
      principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'rest', mediaType: 'application/json',
      raw: Buffer.from(JSON.stringify(order('C001', 'Q-1'))), singleOrder: true,
    });
    assert.equal(sample(await samples(), 'intake_queue_depth', { queue: 'submissions_received' }), 1);
    await h.t.service.intake.process(s.id);
    assert.equal(sample(await samples(), 'intake_queue_depth', { queue: 'submissions_received' }), 0);
  });

  void it('open connections per channel follow a real FTP client in and out', async () => {
    const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
    try {
      const open = await samples();
      assert.equal(sample(open, 'intake_open_connections', { channel: 'ftp' }), 1);
      assert.ok(sample(open, 'intake_open_connections', { channel: 'http' }) >= 1, 'the scrape itself is an open HTTP connection');
    } finally {
      client.close();
    }
    await waitFor(async () => (sample(await samples(), 'intake_open_connections', { channel: 'ftp' }) === 0 ? true : undefined), 5_000, 'the FTP connection to be counted as closed');
  });

  // Last: it locks 127.0.0.1 out of FTP/SFTP for the rest of this service's life.
  void it('logins refused because of a lockout are counted', async () => {
    const before = sample(await samples(), 'intake_lockout_refusals_total');
    let refused = 0;
    for (let i = 0; i < 6; i++) {
      await ftpClient(h.ftpPort, 'intruso', 'sbagliata').then((c) => c.close(), () => { refused++; });
    }
    assert.equal(refused, 6);
    assert.equal(sample(await samples(), 'intake_lockout_refusals_total') - before, 1, 'the sixth attempt met the lock');
  });
});
