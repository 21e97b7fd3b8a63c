// Where /metrics is served: on its own port (INTAKE_METRICS_PORT, token optional there), on the HTTP port only
// with a token, and nowhere when neither is set.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { request } from 'undici';
import { startTestService } from '../helpers/service.ts';
import { parsePrometheus, sample } from '../helpers/prometheus.ts';

async function get(url: string, token?: string): Promise<{ status: number; text: string }> {
  const res = await request(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.statusCode, text: await res.body.text() };
}

void describe('the metrics port (INTAKE_METRICS_PORT)', () => {
  void it('serves /metrics alone on its own port, and the HTTP port does not serve it', async () => {
    const t = await startTestService({ INTAKE_METRICS_PORT: '0' });
    try {
      const port = t.service.ports.metrics;
      assert.ok(port && port !== t.service.ports.http);
      const m = await get(`http://127.0.0.1:${port}/metrics`);
      assert.equal(m.status, 200);
      assert.equal(sample(parsePrometheus(m.text), 'intake_queue_depth', { queue: 'submissions_received' }), 0);
      assert.equal((await get(`http://127.0.0.1:${port}/healthz`)).status, 404, 'nothing else is served there');
      assert.equal((await get(`${t.url}/metrics`)).status, 404);
    } finally {
      await t.close();
    }
  });

  void it('with a token the metrics port asks for it too', async () => {
    const token = randomBytes(16).toString('hex');
    const t = await startTestService({ INTAKE_METRICS_PORT: '0', INTAKE_METRICS_TOKEN: token });
    try {
      const url = `http://127.0.0.1:${t.service.ports.metrics}/metrics`;
      assert.equal((await get(url)).status, 401);
      assert.equal((await get(url, token)).status, 200);
    } finally {
      await t.close();
    }
  });

  void it('without a token or a port, /metrics is not served; a short token is refused at start', async () => {
    const t = await startTestService();
    try {
      assert.equal((await get(`${t.url}/metrics`)).status, 404);
      assert.equal(t.service.ports.metrics, undefined);
    } finally {
      await t.close();
    }
    await assert.rejects(startTestService({ INTAKE_METRICS_TOKEN: 'short' }), /INTAKE_METRICS_TOKEN must be at least 32 characters/);
  });

  void it('two services in one process keep their own numbers', async () => {
    const [a, b] = await Promise.all([startTestService({ INTAKE_METRICS_PORT: '0' }), startTestService({ INTAKE_METRICS_PORT: '0' })]);
    try {
      const customer = await a.customer('C001');
      const res = await request(`${a.url}/api/v1/ordini`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': customer.apiKey },
        body: JSON.stringify({ codice_cliente: 'C001', riferimento_ordine: 'ISO-1', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }] }),
      });
      assert.equal(res.statusCode, 201, await res.body.text());
      const count = async (port: number | undefined) => sample(parsePrometheus((await get(`http://127.0.0.1:${port}/metrics`)).text), 'intake_submissions_total', { channel: 'rest', outcome: 'ok' });
      assert.equal(await count(a.service.ports.metrics), 1);
      assert.equal(await count(b.service.ports.metrics), 0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
