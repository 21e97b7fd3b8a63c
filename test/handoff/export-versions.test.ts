// The hot folder and the lifecycle, on both stores: a changed order is written again as a new file named with its
// version, a cancelled one as a cancellation file, never over the first; each XJDF validates against the CIP4 schema,
// keeps the JobID (numero_ordine) and marks its version, so a MIS or prepress system matches them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addExport } from '../../src/handoff/subscribers.ts';
import { order, startTestService, tempDir, waitFor, type TestService } from '../helpers/service.ts';
import { XJDF_XSD } from '../helpers/shared.ts';
import { createSchema, PG_SKIP, testDatabaseUrl, type TestSchema } from '../store/pg-schema.ts';
import { TEST_SECRET_KEY } from './stores.ts';

const FAST = { INTAKE_SECRET_KEY: TEST_SECRET_KEY, INTAKE_HANDOFF_POLL_MS: '50', INTAKE_HANDOFF_RETRY: '100,500,600000' };

for (const engine of ['sqlite', 'postgres'] as const) {
  void describe(`hot folder: versions and cancellations (${engine})`, { skip: engine === 'postgres' ? PG_SKIP : false }, () => {
    let t: TestService;
    let schema: TestSchema | undefined;
    let hot: string;
    let apiKey: string;

    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${t.url}${p}`, {
        method, headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, json: await res.json() as Record<string, unknown> };
    };

    before(async () => {
      if (engine === 'postgres') schema = await createSchema(testDatabaseUrl!, 'export_versions');
      hot = tempDir('intake-hot-versions-');
      t = await startTestService({ ...FAST, ...(schema ? { INTAKE_DATABASE_URL: schema.url } : {}) });
      await addExport(t.service.store, { dir: hot, format: 'xjdf' });
      apiKey = (await t.customer('C001')).apiKey;
    });
    after(async () => {
      await t?.close();
      await schema?.drop();
      rmSync(hot, { recursive: true, force: true });
    });

    void it('writes version 1, version 2 and the cancellation as three files of one JobID', async () => {
      const created = await call('POST', '/api/v1/ordini', order('C001', 'HV-1'));
      assert.equal(created.status, 201);
      const id = created.json.id_ordine as string;
      const numero = created.json.numero_ordine as string;
      const changed = await call('PUT', `/api/v1/ordini/${id}`, order('C001', 'HV-1', { righe: [{ codice_articolo: 'BV-STD', quantita: 2000, unita_misura: 'PZ' }] }));
      assert.equal(changed.status, 200);
      assert.equal((await call('POST', `/api/v1/ordini/${id}/annulla`, { motivo: 'cliente chiuso' })).status, 200);

      const names = await waitFor(() => {
        const list = readdirSync(hot).filter((f) => !f.startsWith('.')).sort();
        return list.length >= 3 ? list : undefined;
      }, 15_000, 'three files in the hot folder');
      assert.equal(names.length, 3, names.join(', '));
      const first = names.find((n) => n.startsWith(`${numero}_`));
      const second = names.find((n) => n.startsWith(`${numero}-v2_`));
      const cancel = names.find((n) => n.startsWith(`${numero}-annullato_`));
      assert.ok(first && second && cancel, names.join(', '));
      for (const n of names) execFileSync('xmllint', ['--noout', '--schema', XJDF_XSD, path.join(hot, n)], { stdio: 'pipe' });

      const v2 = readFileSync(path.join(hot, second), 'utf8');
      assert.match(v2, new RegExp(`JobID="${numero}"`));
      assert.match(v2, /<GeneralID IDUsage="OrderVersion" IDValue="2"\/>/);
      assert.match(v2, /Amount="2000"/);
      assert.doesNotMatch(v2, /ExternalID="VOL-A4"/, 'the new version holds only its own lines');
      const gone = readFileSync(path.join(hot, cancel), 'utf8');
      assert.match(gone, /<GeneralID IDUsage="OrderStatus" IDValue="annullato"\/>/);
      assert.match(gone, /Ordine annullato: cliente chiuso/);
      assert.match(readFileSync(path.join(hot, first), 'utf8'), /<GeneralID IDUsage="OrderVersion" IDValue="1"\/>/);
    });
  });
}
