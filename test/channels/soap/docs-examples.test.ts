import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestService, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { bodyOf, faultOf, post, SOAP11 } from './helpers.ts';

const run = promisify(execFile);
// The SOAP examples customers copy are in docs/customers/soap.md; each is run here against the real service.
const PAGE = readFileSync(path.resolve(import.meta.dirname, '../../../docs/customers/soap.md'), 'utf8');

/** The ```xml block that follows `<!-- example:NAME -->`, or every ```xml block. */
function example(name: string): string {
  const m = new RegExp(`<!-- example:${name} -->\\s*\`\`\`xml\\n([\\s\\S]*?)\`\`\``).exec(PAGE);
  assert.ok(m, `docs/customers/soap.md has the ${name} example`);
  return m[1]!;
}

let t: TestService;
let c1: TestCustomer;

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
});
after(() => t.close());

void describe('docs/customers/soap.md examples', () => {
  void it('the InviaOrdine example, sent with curl as documented, gets a response shaped like the documented one', async () => {
    const request = example('invia-request').replace('YOUR_API_KEY', c1.apiKey);
    const { stdout } = await run('curl', [
      '-sS', '-X', 'POST', `${t.url}/ws/ordini`, '-H', 'Content-Type: text/xml; charset=utf-8',
      '-H', 'SOAPAction: "http://localhost:8080/ws/ordini#InviaOrdine"', '--data-binary', request, '-w', '\n%{http_code}',
    ]);
    const status = stdout.slice(stdout.lastIndexOf('\n') + 1);
    const xml = stdout.slice(0, stdout.lastIndexOf('\n'));
    assert.equal(status, '200');
    const got = bodyOf(xml).InviaOrdineResponse as Record<string, string>;
    const documented = bodyOf(example('invia-response')).InviaOrdineResponse as Record<string, string>;
    assert.deepEqual(Object.keys(got), Object.keys(documented));
    assert.equal(got.esito, documented.esito);
    assert.equal(got.messaggio, documented.messaggio);
  });

  void it('the ModificaOrdine and AnnullaOrdine examples, sent as documented, get responses shaped like the documented ones', async () => {
    const key = c1.apiKey;
    const registered = await post(t.url, example('invia-request').replace('YOUR_API_KEY', key));
    assert.equal(registered.status, 200, registered.text);
    for (const [request, response, name] of [['modifica-request', 'modifica-response', 'ModificaOrdineResponse'], ['annulla-request', 'annulla-response', 'AnnullaOrdineResponse']] as const) {
      const a = await post(t.url, example(request).replace('YOUR_API_KEY', key));
      assert.equal(a.status, 200, a.text);
      const got = a.body[name] as Record<string, string>;
      const documented = bodyOf(`<soap:Envelope xmlns:soap="${SOAP11}"><soap:Body>${example(response)}</soap:Body></soap:Envelope>`)[name] as Record<string, string>;
      assert.deepEqual(Object.keys(got), Object.keys(documented));
      assert.equal(got.esito, 'ok');
      assert.equal(got.messaggio, String(documented.messaggio).replace('2026-000042', got.numero_ordine!));
    }
  });

  void it('the documented fault is what an order without codice_cliente and with empty righe gets', async () => {
    const fault = /```xml\n(<\?xml[^`]*?<soap:Fault>[\s\S]*?)```/.exec(PAGE)?.[1];
    assert.ok(fault);
    const documented = bodyOf(fault).Fault as { faultstring: string };
    const request = example('invia-request').replace('YOUR_API_KEY', c1.apiKey)
      .replace(/<ord:codice_cliente>.*<\/ord:codice_cliente>/, '')
      .replace(/<ord:righe>[\s\S]*<\/ord:righe>/, '<ord:righe/>');
    const f = faultOf(await post(t.url, request));
    assert.equal(f.faultstring, documented.faultstring);
    assert.deepEqual(f.detail, documented.faultstring.split('; '));
  });
});
