// The connector path on PostgreSQL: provisioning, a JDF ticket, rotation, and the status view, on a fresh schema.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { importLookup } from '../../../src/connectors/lookup-csv.ts';
import { rotateConnectorKey } from '../../../src/connectors/provision.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { call, startConnectorService } from './helpers.ts';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/connectors/infra');

void describe('connectors on PostgreSQL', { skip: PG_SKIP }, () => {
  void it('registers a JDF ticket with its site; a rotated key is refused, the new one reads the status', async () => {
    const schema = await createSchema(testDatabaseUrl!, 'conn');
    const t = await startConnectorService({ INTAKE_DATABASE_URL: schema.url });
    try {
      await t.customer('C001');
      await t.site('VR');
      const c = await t.connector({ customer: 'C001', sites: 'VR', format: 'jdf' });
      await importLookup(t.store, c.id, path.join(FIXTURES, 'lookup.csv'));
      const r = await call(`${t.url}/api/v1/connettori/VR/ordini`, { key: c.key, body: readFileSync(path.join(FIXTURES, 'order.jdf')), contentType: 'application/vnd.cip4-jdf+xml' });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.sito_produzione, 'VR');
      const { key } = await rotateConnectorKey(t.store, c.id);
      const url = `${t.url}/api/v1/connettori/ordini/${String(r.json.id_ordine)}`;
      assert.equal((await call(url, { key: c.key })).status, 401);
      const view = await call(url, { key });
      assert.equal(view.status, 200);
      assert.equal(view.json.sito_produzione, 'VR');
      assert.equal(view.json.numero_ordine, r.json.numero_ordine);
      assert.equal(t.store.kind, 'postgres');
    } finally {
      await t.close();
      await schema.drop();
    }
  });
});
