// Printer-side connectors (issue 20): one key bound to several customers or to all of them, over a real HTTP server
// on port 0. The ticket's customer (our code, or the sender's id through the customer table) decides whose order it
// is and must be one the connector is bound to (403 otherwise); status queries on the connector path follow the
// same binding, and no customer sees another's orders or refusals (tenant isolation).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { call, startConnectorService, type ConnectorService } from './helpers.ts';
import { CIP4_ARTICLES, CIP4_SKIP, integratorConnector, SAMPLES_DIR, XJDF } from './cip4.ts';

/** CIP4's product.xjdf naming `customerId` (or no CustomerInfo at all) and the job `jobId`. */
function ticket(customerId: string | undefined, jobId = 'JOB-42'): string {
  const text = readFileSync(path.join(SAMPLES_DIR, 'product.xjdf'), 'utf8').replace('JobID="JOB-42"', `JobID="${jobId}"`);
  if (customerId === undefined) return text.replace(/<ResourceSet Name="CustomerInfo">[\s\S]*?<\/ResourceSet>/, '');
  return text.replace('CustomerID="CUSTOMER-ID"', `CustomerID="${customerId}"`);
}

void describe('connectors serving several customers', { skip: CIP4_SKIP }, () => {
  let svc: ConnectorService;
  let printer: { id: string; key: string };
  let everyone: { id: string; key: string };
  let own: { id: string; key: string };
  const post = (key: string, body: string) => call(`${svc.url}/api/v1/connettori/ordini`, { key, body, contentType: XJDF });
  const rest = (code: string, url: string) => call(`${svc.url}${url}`, { headers: { 'x-api-key': svc.apiKeys.get(code)! } });

  before(async () => {
    svc = await startConnectorService();
    await svc.store.upsertArticles(CIP4_ARTICLES);
    await svc.site('VR', 'Verona');
    for (const code of ['P000', 'C001', 'C002', 'C003']) await svc.customer(code);
    // The printer's MIS forwards jobs of C001 and C002 with its own customer numbers; the key is the printer's.
    printer = await svc.connector({ customer: 'P000', customers: 'C001,C002', sites: 'VR', format: 'xjdf', productKey: 'auto' });
    const { importLookup } = await import('../../../src/connectors/lookup-csv.ts');
    const { importCustomerTable } = await import('../../../src/connectors/customers-csv.ts');
    const { LOOKUP_CSV, withFile } = await import('./cip4.ts');
    await withFile('l.csv', LOOKUP_CSV, (f) => importLookup(svc.store, printer.id, f));
    await withFile('c.csv', 'id_esterno;codice_cliente\nMIS-1;C001\nmis-2;c002\n', (f) => importCustomerTable(svc.store, printer.id, f));
    everyone = await svc.connector({ customer: 'P000', customers: 'all', sites: 'VR', format: 'xjdf' });
    await withFile('l.csv', LOOKUP_CSV, (f) => importLookup(svc.store, everyone.id, f));
    own = await integratorConnector(svc, 'C003', []);
  });
  after(async () => svc?.close());

  void it('files each ticket under the customer it names, through the customer table or our code', async () => {
    const a = await post(printer.key, ticket('MIS-1'));
    assert.equal(a.status, 201, a.text);
    const b = await post(printer.key, ticket('MIS-2'));
    assert.equal(b.status, 201, b.text);
    assert.notEqual(a.json.id_ordine, b.json.id_ordine, "C001's JOB-42 and C002's JOB-42 are two orders");
    const byCode = await post(printer.key, ticket('C002'));
    assert.equal(byCode.status, 200, byCode.text);
    assert.equal(byCode.json.id_ordine, b.json.id_ordine, 'our code names the same customer: the same order again');

    // Each customer sees its own over REST, and not the other's; the printer's own account sees neither.
    assert.equal((await rest('C001', `/api/v1/ordini/${String(a.json.id_ordine)}`)).json.codice_cliente, 'C001');
    assert.equal((await rest('C002', `/api/v1/ordini/${String(a.json.id_ordine)}`)).status, 404);
    assert.equal((await rest('P000', `/api/v1/ordini/${String(a.json.id_ordine)}`)).status, 404);
    assert.equal((await rest('C002', '/api/v1/ordini?riferimento_ordine=JOB-42')).json.id_ordine, b.json.id_ordine);
  });

  void it('refuses a customer the connector is not bound to (403) and a ticket naming none (400)', async () => {
    const c3 = await post(printer.key, ticket('C003', 'JOB-43'));
    assert.equal(c3.status, 403, c3.text);
    assert.match(String(c3.json.message), /"C003" does not belong to the authenticated customer: it is not one of this connector's customers/);
    const unknown = await post(printer.key, ticket('MIS-9', 'JOB-44'));
    assert.equal(unknown.status, 403, unknown.text);
    const none = await post(printer.key, ticket(undefined, 'JOB-45'));
    assert.equal(none.status, 400, none.text);
    assert.match(JSON.stringify(none.json.message), /codice_cliente should not be empty/);
    assert.equal((await rest('C003', '/api/v1/ordini?riferimento_ordine=JOB-43')).status, 404, 'nothing was filed under C003');
    // The refusals are the connector's to see, nobody else's: not C001's, not the owner's.
    const seen = await call(`${svc.url}/api/v1/connettori/ordini?riferimento_ordine=JOB-44`, { key: printer.key });
    assert.equal(seen.status, 200, seen.text);
    assert.equal(seen.json.stato, 'rifiutato');
    for (const code of ['P000', 'C001', 'C002']) assert.equal((await rest(code, '/api/v1/ordini?riferimento_ordine=JOB-44')).status, 404, code);
    assert.equal((await call(`${svc.url}/api/v1/connettori/ordini?riferimento_ordine=JOB-44`, { key: everyone.key })).status, 404);
  });

  void it('a connector bound to all customers takes any customer; a single-customer one keeps to its own', async () => {
    const c3 = await post(everyone.key, ticket('C003', 'JOB-50'));
    assert.equal(c3.status, 201, c3.text);
    assert.equal((await rest('C003', '/api/v1/ordini?riferimento_ordine=JOB-50')).json.id_ordine, c3.json.id_ordine);
    const nobody = await post(everyone.key, ticket('NOBODY', 'JOB-51'));
    assert.equal(nobody.status, 403, nobody.text);
    // C003's own connector: a ticket without CustomerInfo is C003's; one naming C001 is refused.
    const mine = await post(own.key, ticket(undefined, 'JOB-52'));
    assert.equal(mine.status, 201, mine.text);
    assert.equal((await post(own.key, ticket('C001', 'JOB-53'))).status, 403);
  });

  void it('status queries follow the binding: ambiguous references need codice_cliente, other tenants are not found', async () => {
    const amb = await call(`${svc.url}/api/v1/connettori/ordini?riferimento_ordine=JOB-42`, { key: printer.key });
    assert.equal(amb.status, 409, amb.text);
    assert.match(String(amb.json.message), /C001, C002/);
    const one = await call(`${svc.url}/api/v1/connettori/ordini?riferimento_ordine=JOB-42&codice_cliente=MIS-1`, { key: printer.key });
    assert.equal(one.status, 200, one.text);
    assert.equal(one.json.codice_cliente, 'C001');
    assert.deepEqual((one.json.ticket as { file: string[] }).file, ['http://example.org/my-artwork.pdf']);
    const ours = await call(`${svc.url}/api/v1/connettori/ordini?riferimento_ordine=JOB-42&codice_cliente=C002`, { key: printer.key });
    assert.equal(ours.json.codice_cliente, 'C002');
    const notBound = await call(`${svc.url}/api/v1/connettori/ordini?riferimento_ordine=JOB-50&codice_cliente=C003`, { key: printer.key });
    assert.equal(notBound.status, 404, "C003's order is not the printer connector's to see");
    const c3 = await call(`${svc.url}/api/v1/connettori/ordini?riferimento_ordine=JOB-50`, { key: own.key });
    const id = String(c3.json.id_ordine);
    assert.equal(c3.status, 200, c3.text);
    assert.equal((await call(`${svc.url}/api/v1/connettori/ordini/${id}`, { key: printer.key })).status, 404);
    assert.equal((await call(`${svc.url}/api/v1/connettori/ordini/${id}`, { key: everyone.key })).status, 200, 'bound to all: C003 too');
    assert.equal((await call(`${svc.url}/api/v1/connettori/ordini/${id}`, { key: own.key })).json.codice_cliente, 'C003');
  });
});
