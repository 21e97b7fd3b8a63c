import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';

let t: TestService;
let c1: TestCustomer;

async function post(body: string | Buffer, type: string) {
  const res = await fetch(`${t.url}/api/v1/ordini`, { method: 'POST', body, headers: { 'content-type': type, 'x-api-key': c1.apiKey } });
  return { status: res.status, body: (await res.json()) as { statusCode: number; message: string | string[]; error: string } };
}

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
});
after(() => t.close());

describe('REST survives hostile input with a clear 4xx', () => {
  it('billion laughs XML is refused', async () => {
    const xml = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
      + '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><ordine><codice_cliente>&lol3;</codice_cliente></ordine>';
    const r = await post(xml, 'application/xml');
    assert.equal(r.status, 400);
    assert.match(String(r.body.message), /DOCTYPE/);
  });

  it('external entity XML is refused', async () => {
    const r = await post('<?xml version="1.0"?><!DOCTYPE o [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><ordine><codice_cliente>&xxe;</codice_cliente></ordine>', 'application/xml');
    assert.equal(r.status, 400);
    assert.doesNotMatch(JSON.stringify(r.body), /root:/);
  });

  it('deeply nested JSON is refused', async () => {
    const r = await post('['.repeat(200_000) + ']'.repeat(200_000), 'application/json');
    assert.equal(r.status, 400);
    assert.equal(r.body.error, 'Bad Request');
  });

  it('invalid UTF-8 in JSON is refused', async () => {
    const r = await post(Buffer.concat([Buffer.from('{"codice_cliente":"C'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}')]), 'application/json');
    assert.equal(r.status, 400);
  });

  it('a CSV with 100,000 columns is refused', async () => {
    const header = Array.from({ length: 100_000 }, (_, i) => `c${i}`).join(';');
    const r = await post(`${header}\n${'1;'.repeat(99_999)}1\n`, 'text/csv');
    assert.equal(r.status, 400);
  });

  it('a 50 MB body gets 413 and the server keeps serving', async () => {
    const r = await post(Buffer.alloc(50 * 1024 * 1024, 0x20), 'application/json');
    assert.equal(r.status, 413);
    assert.equal(r.body.error, 'Payload Too Large');
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200);
  });

  it('malformed JSON gets shape A naming the problem; the raw body is kept with its outcome', async () => {
    const r = await post('{"codice_cliente": "C001",', 'application/json');
    assert.equal(r.status, 400);
    assert.ok(Array.isArray(r.body.message));
    const body = '{"codice_cliente": "C001",';
    const customerId = (await t.service.store.getCustomerByCode('C001'))!.id;
    const kept = await t.service.store.listSubmissions({ customerId, limit: 50 });
    const all = await Promise.all(kept.map((s) => t.service.store.getSubmission(s.id)));
    const stored = all.find((s) => s?.raw.toString() === body);
    assert.ok(stored, 'the malformed body is kept');
    assert.equal(stored.state, 'processed');
    assert.ok(stored.outcome?.fileError);
  });
});
