// INTAKE_TRUST_PROXY: X-Forwarded-For is believed only from the configured proxies. The connector allow list is
// the judge: a key allowed from 203.0.113.7 works through a trusted proxy that says the client is 203.0.113.7, and
// is refused when the same header comes from a peer that is not a configured proxy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { HSTS_VALUE } from '../../../src/http/tls.ts';
import { addConnector } from '../../../src/connectors/provision.ts';
import { addSite } from '../../../src/connectors/sites.ts';
import { order, startTestService, type TestService } from '../../helpers/service.ts';

const CLIENT = '203.0.113.7';

interface Setup { t: TestService; key: string }

async function setup(env: Record<string, string>): Promise<Setup> {
  const t = await startTestService(env);
  await t.customer('C001');
  await addSite(t.service.store, { code: 'VR', name: 'Verona' });
  const { key } = await addConnector(t.service.store, { customer: 'C001', name: 'ERP', sites: 'VR', format: 'json', allowIps: CLIENT });
  return { t, key };
}

async function submit(s: Setup, ref: string, forwardedFor?: string) {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'service-x-key': s.key };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  const res = await request(`${s.t.url}/api/v1/connettori/ordini`, { method: 'POST', headers, body: JSON.stringify(order('C001', ref)) });
  return { status: res.statusCode, json: await res.body.json() as Record<string, unknown> };
}

let trusted: Setup;
let elsewhere: Setup;
let unset: Setup;

before(async () => {
  // The test client connects from 127.0.0.1: the first service treats it as its proxy, the second trusts only a
  // proxy network it is not in, the third trusts no one.
  trusted = await setup({ INTAKE_TRUST_PROXY: '127.0.0.1' });
  elsewhere = await setup({ INTAKE_TRUST_PROXY: '10.0.0.0/8' });
  unset = await setup({});
});
after(async () => {
  await Promise.all([trusted.t.close(), elsewhere.t.close(), unset.t.close()]);
});

void describe('reverse proxy mode (INTAKE_TRUST_PROXY)', () => {
  void it('through a trusted proxy the client address comes from X-Forwarded-For: the allow list admits it, the submission records it', async () => {
    const r = await submit(trusted, 'PX-1', CLIENT);
    assert.equal(r.status, 201, JSON.stringify(r.json));
    const [s] = await trusted.t.service.store.listSubmissions({ limit: 10 });
    const stored = await trusted.t.service.store.getSubmission(s!.id);
    assert.equal(stored?.meta.remote, CLIENT);
  });

  void it('a trusted proxy does not make a client-written hop believable: the address next to the proxy is the client', async () => {
    // What a client sends through a real proxy that appends the address it saw: "spoofed, real".
    const r = await submit(trusted, 'PX-2', `${CLIENT}, 198.51.100.9`);
    assert.equal(r.status, 403);
    assert.equal(r.json.message, 'This connector key may not be used from 198.51.100.9');
  });

  void it('from a peer that is not a configured proxy, a spoofed X-Forwarded-For is ignored', async () => {
    for (const s of [elsewhere, unset]) {
      const r = await submit(s, 'PX-3', CLIENT);
      assert.equal(r.status, 403, JSON.stringify(r.json));
      assert.equal(r.json.message, 'This connector key may not be used from 127.0.0.1');
      assert.equal((await s.t.service.store.listSubmissions({ limit: 10 })).length, 0);
    }
  });

  void it('HSTS is sent when a trusted proxy says the client came over HTTPS, never on a spoofed X-Forwarded-Proto', async () => {
    const hsts = async (s: Setup) => {
      const res = await request(`${s.t.url}/healthz`, { headers: { 'x-forwarded-proto': 'https' } });
      await res.body.dump();
      return res.headers['strict-transport-security'];
    };
    assert.equal(await hsts(trusted), HSTS_VALUE);
    assert.equal(await hsts(elsewhere), undefined);
    assert.equal(await hsts(unset), undefined);
  });

  void it('invalid proxy entries stop the start with a clear message', async () => {
    const { loadConfig } = await import('../../../src/config.ts');
    assert.throws(() => loadConfig({ INTAKE_TRUST_PROXY: '127.0.0.1, proxy.example' }), /INTAKE_TRUST_PROXY: "proxy\.example" is not an IP address/);
    assert.deepEqual(loadConfig({ INTAKE_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy, ['loopback', '10.0.0.0/8']);
  });
});
