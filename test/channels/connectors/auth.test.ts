// The connector path's gate: the service-x-key (401), the source address (403), the site in the path (403
// FORBIDDEN_SITE) and the media type (415), all decided before anything is stored; and keys that work only there.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { revokeConnector, rotateConnectorKey } from '../../../src/connectors/provision.ts';
import { order } from '../../helpers/service.ts';
import { call, startConnectorService, type ConnectorService } from './helpers.ts';

let t: ConnectorService;
let vr: { id: string; key: string };

const ORDERS = '/api/v1/connettori/ordini';

async function stored(): Promise<number> {
  return (await t.store.listSubmissions({ limit: 1000 })).length;
}

before(async () => {
  t = await startConnectorService();
  await t.customer('C001');
  await t.customer('C002');
  await t.site('VR', 'Verona');
  await t.site('MI', 'Milano');
  await t.site('TO', 'Torino');
  vr = await t.connector({ customer: 'C001', sites: 'VR,MI', format: 'json' });
});
after(() => t.close());

void describe('connector authentication', () => {
  void it('401 without a key, with a wrong, malformed or API key, in the {statusCode, message, error} form; nothing stored', async () => {
    const body = JSON.stringify(order('C001', 'A-1'));
    const none = await call(`${t.url}${ORDERS}`, { body, contentType: 'application/json' });
    assert.equal(none.status, 401);
    assert.deepEqual(none.json, { statusCode: 401, message: 'Missing service-x-key header', error: 'Unauthorized', code: 'CONNECTOR_KEY_MISSING' });
    const wrongSecret = `${vr.key.slice(0, -1)}${vr.key.endsWith('a') ? 'b' : 'a'}`;
    for (const key of [wrongSecret, 'not-a-key', t.apiKeys.get('C001')!]) {
      const r = await call(`${t.url}${ORDERS}`, { key, body, contentType: 'application/json' });
      assert.equal(r.status, 401, key);
      assert.deepEqual(r.json, { statusCode: 401, message: 'Invalid connector key', error: 'Unauthorized', code: 'CONNECTOR_KEY_INVALID' });
    }
    assert.equal(await stored(), 0);
  });

  void it('a connector key does not work on the REST path, nor as X-API-Key', async () => {
    const r = await call(`${t.url}/api/v1/ordini`, { headers: { 'x-api-key': vr.key }, body: JSON.stringify(order('C001', 'A-2')), contentType: 'application/json' });
    assert.equal(r.status, 401);
    const s = await call(`${t.url}/api/v1/ordini?riferimento_ordine=A-2`, { headers: { 'x-api-key': vr.key, 'service-x-key': vr.key } });
    assert.equal(s.status, 401);
  });

  void it('a revoked key is refused; a rotated key: the old one is refused, the new one works', async () => {
    const c = await t.connector({ customer: 'C001', sites: 'VR', format: 'json' });
    const status = (key: string) => call(`${t.url}${ORDERS}?riferimento_ordine=none`, { key });
    assert.equal((await status(c.key)).status, 404, 'authenticated: the order simply does not exist');
    const { key: next } = await rotateConnectorKey(t.store, c.id);
    assert.equal((await status(c.key)).status, 401);
    assert.equal((await status(next)).status, 404);
    await revokeConnector(t.store, c.id);
    assert.equal((await status(next)).status, 401);
  });
});

void describe('connector source addresses', () => {
  void it('403 from an address outside the allow list, before anything is stored; allowed inside it', async () => {
    const before = await stored();
    const far = await t.connector({ customer: 'C001', sites: 'VR', format: 'json', allowIps: '10.0.0.0/8,2001:db8::/32' });
    const r = await call(`${t.url}${ORDERS}`, { key: far.key, body: JSON.stringify(order('C001', 'IP-1')), contentType: 'application/json' });
    assert.equal(r.status, 403);
    assert.equal(r.json.error, 'Forbidden');
    assert.match(String(r.json.message), /127\.0\.0\.1/);
    assert.equal((await call(`${t.url}${ORDERS}?riferimento_ordine=IP-1`, { key: far.key })).status, 403, 'status queries too');
    assert.equal(await stored(), before);
    const near = await t.connector({ customer: 'C001', sites: 'VR', format: 'json', allowIps: '10.0.0.0/8,127.0.0.0/8' });
    assert.equal((await call(`${t.url}${ORDERS}?riferimento_ordine=IP-1`, { key: near.key })).status, 404);
  });
});

void describe('connector sites in the path and media types', () => {
  void it('403 FORBIDDEN_SITE for a site the key is not bound to, existing or not, before anything is stored', async () => {
    const before = await stored();
    for (const site of ['TO', 'XX', 'bad%20site']) {
      const r = await call(`${t.url}/api/v1/connettori/${site}/ordini`, { key: vr.key, body: JSON.stringify(order('C001', 'S-1')), contentType: 'application/json' });
      assert.equal(r.status, 403, site);
      assert.equal(r.json.error, 'Forbidden');
      assert.match(String(r.json.message), /not bound to that production site/);
    }
    assert.equal(await stored(), before);
  });

  void it('415 for a media type the connector path does not take, before anything is stored', async () => {
    const before = await stored();
    for (const type of ['text/csv', 'application/pdf', '']) {
      const r = await call(`${t.url}${ORDERS}`, { key: vr.key, body: 'a;b\n1;2\n', ...(type ? { contentType: type } : {}) });
      assert.equal(r.status, 415, type);
      assert.equal(r.json.error, 'Unsupported Media Type');
    }
    assert.equal(await stored(), before);
  });

  void it('413 for a body over the limit (INTAKE_MAX_BODY_BYTES, as REST), before anything is stored', async () => {
    const before = await stored();
    const r = await call(`${t.url}${ORDERS}`, { key: vr.key, body: Buffer.alloc(6 * 1024 * 1024, 0x20), contentType: 'application/json' });
    assert.equal(r.status, 413);
    assert.equal(r.json.error, 'Payload Too Large');
    assert.equal(await stored(), before);
  });

  void it('400 for a status query without a reference; 404 for an unknown id', async () => {
    const r = await call(`${t.url}${ORDERS}?riferimento_ordine=`, { key: vr.key });
    assert.equal(r.status, 400);
    assert.equal((await call(`${t.url}${ORDERS}/0190a0a0-0000-7000-8000-000000000000`, { key: vr.key })).status, 404);
  });
});

void describe('connector status is scoped to the key\'s customer', () => {
  void it("shows the customer's order whatever channel brought it, and never another customer's", async () => {
    const rest = await call(`${t.url}/api/v1/ordini`, { headers: { 'x-api-key': t.apiKeys.get('C001')! }, body: JSON.stringify(order('C001', 'REST-1')), contentType: 'application/json' });
    assert.equal(rest.status, 201, rest.text);
    const mine = await call(`${t.url}${ORDERS}/${String(rest.json.id_ordine)}`, { key: vr.key });
    assert.equal(mine.status, 200);
    assert.equal(mine.json.numero_ordine, rest.json.numero_ordine);
    assert.equal(mine.json.canale, 'rest');
    const other = await t.connector({ customer: 'C002', sites: 'VR', format: 'json' });
    assert.equal((await call(`${t.url}${ORDERS}/${String(rest.json.id_ordine)}`, { key: other.key })).status, 404);
    assert.equal((await call(`${t.url}${ORDERS}?riferimento_ordine=REST-1`, { key: other.key })).status, 404);
  });
});

void describe('connector path in the OpenAPI document', () => {
  void it('lists the connector endpoints and the service-x-key scheme', async () => {
    const doc = (await call(`${t.url}/api/docs/json`)).json as { paths: Record<string, Record<string, unknown>>; components: { securitySchemes: Record<string, { name: string }> } };
    assert.ok(doc.paths['/api/v1/connettori/ordini']?.post);
    assert.ok(doc.paths['/api/v1/connettori/ordini']?.get);
    assert.ok(doc.paths['/api/v1/connettori/{sito}/ordini']?.post);
    assert.ok(doc.paths['/api/v1/connettori/ordini/{id_ordine}']?.get);
    assert.equal(doc.components.securitySchemes.serviceXKey?.name, 'service-x-key');
    assert.ok(doc.paths['/api/v1/ordini'], 'the REST paths are still there');
  });
});
