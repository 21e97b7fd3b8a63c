// The connector path as `serve` starts it (src/main.ts wires it beside REST and SOAP): one order end to end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addConnector } from '../../../src/connectors/provision.ts';
import { addSite } from '../../../src/connectors/sites.ts';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { order, startTestService, type TestService } from '../../helpers/service.ts';
import { call } from './helpers.ts';

let t: TestService;

before(async () => {
  t = await startTestService();
  await t.customer('C001');
});
after(() => t.close());

void describe('connector path in the running service', () => {
  void it('registers an order with its site and shows it through the status endpoint', async () => {
    await addSite(t.service.store, { code: 'VR', name: 'Verona' });
    const { key } = await addConnector(t.service.store, { customer: 'C001', name: 'ERP', sites: 'VR', format: 'json' });
    const r = await call(`${t.url}/api/v1/connettori/ordini`, { key, body: JSON.stringify(order('C001', 'SVC-1')), contentType: 'application/json' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.sito_produzione, 'VR');
    const view = await call(`${t.url}/api/v1/connettori/ordini/${String(r.json.id_ordine)}`, { key });
    assert.equal(view.json.numero_ordine, r.json.numero_ordine);
    assert.equal(view.json.sito_produzione, 'VR');
  });

  void it('shows the production status an integration reported (issue 17) on the connector status route', async () => {
    await addSite(t.service.store, { code: 'MI', name: 'Milano' }).catch(() => undefined);
    const { key } = await addConnector(t.service.store, { customer: 'C001', name: 'ERP-2', sites: 'MI', format: 'json' });
    const r = await call(`${t.url}/api/v1/connettori/ordini`, { key, body: JSON.stringify(order('C001', 'SVC-2')), contentType: 'application/json' });
    assert.equal(r.status, 201, r.text);
    const mis = (await addIntegration(t.service.store, 'MIS')).api_key;
    const res = await fetch(`${t.url}/api/v1/ordini/${String(r.json.id_ordine)}/stato`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': mis }, body: JSON.stringify({ stato: 'in_lavorazione', nota: 'Lastre pronte' }),
    });
    assert.equal(res.status, 200);
    const view = await call(`${t.url}/api/v1/connettori/ordini/${String(r.json.id_ordine)}`, { key });
    assert.equal(view.json.stato_produzione, 'in_lavorazione');
    assert.deepEqual((view.json.storico_produzione as { stato: string; nota: string }[]).map((p) => [p.stato, p.nota]), [['in_lavorazione', 'Lastre pronte']]);
    const byRef = await call(`${t.url}/api/v1/connettori/ordini?riferimento_ordine=SVC-2`, { key });
    assert.equal(byRef.json.stato_produzione, 'in_lavorazione');
  });
});
