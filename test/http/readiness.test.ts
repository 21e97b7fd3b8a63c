// GET /readyz: 200 only once the store answers and every enabled channel accepts connections, 503 while starting and
// from the first moment of a graceful stop. /healthz (liveness) answers 200 earlier than that: HTTP listens first.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { addWebhook } from '../../src/handoff/subscribers.ts';
import { createReadiness, readinessReport } from '../../src/http/readiness.ts';
import { loggedPort, spawnServe, stopOrKill, waitForLine } from '../helpers/child.ts';
import { order, startTestService, tempDir, waitFor } from '../helpers/service.ts';
import { TEST_SECRET_KEY } from '../handoff/stores.ts';

interface Report { status: string; store: boolean; channels: Record<string, boolean> }

async function readyz(url: string): Promise<{ status: number; body: Report }> {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: await res.json() as Report };
}

/** Resolves when a TCP connection to the port is accepted; rejects if it is refused. */
function accepts(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}

void describe('readiness (/readyz)', () => {
  void it('a serve child answers 200 only when SFTP, FTP and SMTP accept connections; 503 or closed once SIGTERM arrives', async () => {
    const dir = tempDir();
    const serve = await spawnServe(dir, { INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_SMTP_PORT: '0', INTAKE_MAIL_DOMAIN: 'ordini.test' });
    try {
      const url = `http://127.0.0.1:${serve.httpPort}`;
      const seen: Report[] = [];
      const ready = await waitFor(async () => {
        const r = await readyz(url);
        seen.push(r.body);
        return r.status === 200 ? r.body : undefined;
      }, 60_000, '/readyz to answer 200');
      // At the first 200 every channel already takes connections: nothing waits for a log line here.
      const ports = { sftp: await loggedPort(serve, 'sftp'), ftp: await loggedPort(serve, 'ftp'), smtp: await loggedPort(serve, 'smtp') };
      await Promise.all(Object.values(ports).map(accepts));
      assert.deepEqual(ready, { status: 'ready', store: true, channels: { http: true, sftp: true, ftp: true, smtp: true } });
      assert.ok(seen.slice(0, -1).every((r) => r.status === 'starting'), `before ready only "starting": ${JSON.stringify(seen)}`);
      await waitForLine(serve, /"msg":"service ready"/);

      serve.proc.kill('SIGTERM');
      await waitForLine(serve, /"msg":"stopping"/);
      // The stop may already have closed the HTTP port: then the connection is refused, which a balancer reads the same.
      const during = await readyz(url).catch((err: Error) => err);
      if (during instanceof Error) assert.match(String((during.cause as Error | undefined)?.message ?? during.message), /ECONNREFUSED|ECONNRESET|other side closed|fetch failed/);
      else assert.equal(during.status, 503, JSON.stringify(during.body));
      assert.equal(await serve.exited, 0);
    } finally {
      await stopOrKill(serve);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void it('answers 503 "stopping" while a stop waits for a webhook delivery under way, with HTTP still open', async () => {
    // A receiver that holds every request until released: the hand-off's close waits for the attempt, and the HTTP
    // port (closed last) stays open meanwhile, so the stopping state is there to be seen, not raced.
    const held: http.ServerResponse[] = [];
    const receiver = http.createServer((req, res) => {
      req.resume();
      held.push(res);
    });
    receiver.listen(0, '127.0.0.1');
    await new Promise((resolve) => receiver.once('listening', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const t = await startTestService({ INTAKE_SECRET_KEY: TEST_SECRET_KEY, INTAKE_HANDOFF_POLL_MS: '50' });
    let stopped: Promise<void> | undefined;
    try {
      // SFTP, FTP and SMTP are off here: they do not count.
      assert.deepEqual(await readyz(t.url), { status: 200, body: { status: 'ready', store: true, channels: { http: true } } });
      await addWebhook(t.service.store, TEST_SECRET_KEY, { url: receiverUrl, allowPrivate: true });
      const c = await t.customer('C001');
      const res = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.apiKey }, body: JSON.stringify(order('C001', 'ODA-1')) });
      assert.equal(res.status, 201);
      await waitFor(() => (held.length > 0 ? true : undefined), 15_000, 'the webhook delivery to arrive');

      stopped = t.service.stop();
      const during = await readyz(t.url);
      assert.equal(during.status, 503);
      assert.equal(during.body.status, 'stopping');
      assert.equal(during.body.channels.http, true, 'HTTP still listens: the balancer drains before ports close');
      assert.equal((await fetch(`${t.url}/healthz`)).status, 200, 'liveness is not readiness');
    } finally {
      for (const res of held) res.writeHead(204).end();
      await (stopped ?? t.service.stop());
      rmSync(t.dataDir, { recursive: true, force: true });
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  void it('reports a store that does not answer or a closed channel as unavailable', () => {
    const r = createReadiness();
    r.listening('http');
    r.listening('sftp');
    assert.equal(readinessReport(r, true).status, 'starting');
    r.started();
    assert.equal(readinessReport(r, true).status, 'ready');
    assert.deepEqual(readinessReport(r, false), { status: 'unavailable', store: false, channels: { http: true, sftp: true } });
    r.closed('sftp');
    assert.equal(readinessReport(r, true).status, 'unavailable');
    r.stopping();
    assert.equal(readinessReport(r, true).status, 'stopping');
  });
});
