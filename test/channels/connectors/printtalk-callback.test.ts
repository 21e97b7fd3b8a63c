// A connector's callback over real HTTP: the service (server on port 0, hand-off running) takes a PrintTalk
// PurchaseOrder and a Cancellation from a shop's XJDF connector with curl; the order is in production (reported by
// the MIS through the integration API), so the Cancellation waits; when the MIS decides it, the shop's own receiver
// (a local HTTP server verifying the signature) gets a PrintTalk Confirmation (accepted) or Refusal (refused) that
// answers the Cancellation's BusinessID and validates against PrintTalk 2.2 + XJDF 2.x (xmllint).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addConnector } from '../../../src/connectors/provision.ts';
import { addSite } from '../../../src/connectors/sites.ts';
import { addIntegration } from '../../../src/handoff/integrations.ts';
import { connectorCallback, setConnectorCallback } from '../../../src/handoff/subscribers.ts';
import { startTestService, waitFor, type TestService } from '../../helpers/service.ts';
import { startReceiver, type Receiver } from '../../handoff/receiver.ts';
import { TEST_SECRET_KEY } from '../../handoff/stores.ts';
import { createSchema, PG_SKIP, testDatabaseUrl, type TestSchema } from '../../store/pg-schema.ts';
import type { ConnectorService } from './helpers.ts';
import {
  attrOf, comments, curlPost, FIXTURES, identities, objectOf, PRINTTALK_SKIP, printTalkSchemaErrors, SHOP_ARTICLES, shopConnector,
} from './printtalk.ts';

const PO = readFileSync(path.join(FIXTURES, 'purchase-order.ptk'), 'utf8');
const CANCEL = readFileSync(path.join(FIXTURES, 'cancellation.ptk'), 'utf8');
const FAST = { INTAKE_SECRET_KEY: TEST_SECRET_KEY, INTAKE_HANDOFF_POLL_MS: '50', INTAKE_HANDOFF_RETRY: '100,500,600000' };

const engines: { name: string; skip: string | false | undefined }[] = [
  { name: 'sqlite', skip: PRINTTALK_SKIP },
  { name: 'postgres', skip: PRINTTALK_SKIP || PG_SKIP },
];

for (const engine of engines) {
  void describe(`PrintTalk connector callback (${engine.name})`, { skip: engine.skip }, () => {
    let t: TestService;
    let schema: TestSchema | undefined;
    let receiver: Receiver;
    let key: string;
    let connectorId: string;
    let mis: string;
    let url: string;

    before(async () => {
      if (engine.name === 'postgres') schema = await createSchema(testDatabaseUrl!, 'ptk_callback');
      receiver = await startReceiver();
      t = await startTestService({ ...FAST, ...(schema ? { INTAKE_DATABASE_URL: schema.url } : {}) });
      const store = t.service.store;
      await store.upsertArticles(SHOP_ARTICLES);
      await addSite(store, { code: 'VR', name: 'Verona' });
      await t.customer('C900');
      // shopConnector needs only these two of the connector test service.
      const svc = {
        store,
        connector: async (input: Parameters<ConnectorService['connector']>[0]) => {
          const { connector, key: k } = await addConnector(store, { name: 'shop', ...input });
          return { id: connector.id, key: k };
        },
      } as unknown as ConnectorService;
      ({ id: connectorId, key } = await shopConnector(svc, 'C900'));
      const issued = await setConnectorCallback(store, TEST_SECRET_KEY, { connectorId, url: receiver.url, allowPrivate: true });
      receiver.setSecret(issued!.secret);
      mis = (await addIntegration(store, 'MIS')).api_key;
      url = `${t.url}/api/v1/connettori/ordini`;
    });
    after(async () => {
      await t?.close();
      await receiver?.close();
      await schema?.drop();
    });

    async function send(body: string): Promise<string> {
      const r = await curlPost(url, key, body);
      assert.equal(r.status, 200, r.body);
      return r.body;
    }
    async function integration(p: string, body: unknown): Promise<number> {
      const res = await fetch(`${t.url}${p}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': mis } });
      await res.arrayBuffer();
      return res.status;
    }

    /** A PurchaseOrder put in production, then its Cancellation (BusinessID `cancelId`): the request waiting. */
    async function pendingCancellation(ref: string, cancelId: string): Promise<{ id: string; rid: string }> {
      const id = attrOf(await send(PO.replaceAll('WEB-2026-0412', ref)), 'Ordine', 'id_ordine')!;
      assert.equal(await integration(`/api/v1/ordini/${id}/stato`, { stato: 'in_lavorazione' }), 200);
      const cancel = CANCEL.replaceAll('WEB-2026-0412', ref).replace(/(<Request[^>]*BusinessID=")[^"]*"/, `$1${cancelId}"`);
      const pending = await send(cancel);
      assert.equal(objectOf(pending), 'OrderStatusResponse', pending);
      const rid = /Richiesta di annullamento (\S+) /.exec(comments(pending)[0] ?? '')![1]!;
      return { id, rid };
    }

    void it('production accepts the cancellation: the callback receives a PrintTalk Confirmation', async () => {
      const { id, rid } = await pendingCancellation('WEB-CB-1', 'ANN-CB-1');
      assert.equal(await integration(`/api/v1/ordini/${id}/richieste/${rid}`, { esito: 'accettata', nota: 'fermato in tempo' }), 200);
      const got = await waitFor(() => receiver.received.find((r) => r.body.includes(id)), 15_000, 'the callback');
      assert.ok(got.verified, 'signed like a webhook');
      assert.match(got.contentType ?? '', /^application\/xml/);
      assert.equal(await printTalkSchemaErrors(got.body), '', `validates against PrintTalk 2.2 + XJDF:\n${got.body}`);
      assert.equal(objectOf(got.body), 'Confirmation', got.body);
      assert.equal(attrOf(got.body, 'Request', 'BusinessRefID'), 'ANN-CB-1', "answers the Cancellation's BusinessID");
      assert.match(attrOf(got.body, 'Request', 'BusinessID') ?? '', /^B[0-9a-f]{32}$/);
      assert.deepEqual(identities(got.body, 'From'), ['https://tipografia.example.it/printtalk'], 'From and To swapped');
      assert.equal(attrOf(got.body, 'Ordine', 'stato'), 'annullato');
      assert.equal(attrOf(got.body, 'Ordine', 'id_richiesta'), rid);
      assert.match(comments(got.body)[0] ?? '', new RegExp(`^Richiesta di annullamento ${rid} dell'ordine "WEB-CB-1" .*accettata dalla produzione: ordine annullato: fermato in tempo`));
    });

    void it('production refuses it: the callback receives a Refusal with the note in Italian', async () => {
      const { id, rid } = await pendingCancellation('WEB-CB-2', 'ANN-CB-2');
      assert.equal(await integration(`/api/v1/ordini/${id}/richieste/${rid}`, { esito: 'rifiutata', nota: 'già stampato' }), 200);
      const got = await waitFor(() => receiver.received.find((r) => r.body.includes(rid)), 15_000, 'the callback');
      assert.ok(got.verified);
      assert.equal(await printTalkSchemaErrors(got.body), '', got.body);
      assert.equal(objectOf(got.body), 'Refusal', got.body);
      assert.equal(attrOf(got.body, 'Refusal', 'Reason'), 'Other');
      assert.equal(attrOf(got.body, 'Request', 'BusinessRefID'), 'ANN-CB-2');
      assert.match(comments(got.body)[0] ?? '', /rifiutata dalla produzione: già stampato$/);
    });

    void it('a callback URL is checked like a webhook URL, and only an xjdf connector takes one', async () => {
      const store = t.service.store;
      await assert.rejects(setConnectorCallback(store, TEST_SECRET_KEY, { connectorId, url: 'ftp://shop.example.it/cb' }), /only https URLs/);
      await assert.rejects(setConnectorCallback(store, TEST_SECRET_KEY, { connectorId, url: 'http://shop.example.it/cb' }), /only https URLs/);
      await assert.rejects(setConnectorCallback(store, TEST_SECRET_KEY, { connectorId, url: 'https://10.0.0.1/cb' }), /private|not public|address/i);
      const json = await addConnector(store, { customer: 'C900', sites: 'VR', format: 'json', name: 'erp' });
      await assert.rejects(setConnectorCallback(store, TEST_SECRET_KEY, { connectorId: json.connector.id, url: 'https://erp.example.it/cb' }), /xjdf/);
      const before = await connectorCallback(store, connectorId);
      assert.equal(before?.url, receiver.url, 'a refused URL leaves the callback as it was');
    });
  });
}
