// `order-intake customer set --peppol-id`, `articles import` with a gtin column and `articles xref import`: the real
// CLI against a data directory; what they store is what the UBL decoder's resolution reads.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openTempStore, tempDataDir } from '../auth/temp-store.ts';
import { failed, ok, runCli } from './run.ts';

void describe('Peppol setup CLI', () => {
  let dir: string;
  before(async () => {
    dir = await tempDataDir();
    ok(await runCli(dir, ['customer', 'add', '--code', 'C001', '--name', 'ASL Roma 1']));
    ok(await runCli(dir, ['customer', 'add', '--code', 'C002', '--name', 'Comune']));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function read<T>(fn: (s: Awaited<ReturnType<typeof openTempStore>>['store'], id: string) => Promise<T>): Promise<T> {
    const t = await openTempStore(dir);
    try {
      const c = await t.store.getCustomerByCode('C001');
      return await fn(t.store, c!.id);
    } finally {
      await t.store.close();
    }
  }

  void it('sets, replaces and clears a customer\'s Peppol identifiers; refuses malformed and taken ones', async () => {
    const set = JSON.parse(ok(await runCli(dir, ['customer', 'set', 'c001', '--peppol-id', '0211:it01234567890', '--peppol-id', 'iso6523-actorid-upis::9906:UFXYZ1', '--json'])).stdout) as Record<string, unknown>;
    assert.deepEqual(set, { codice_cliente: 'C001', peppol_ids: ['0211:IT01234567890', '9906:UFXYZ1'] });
    assert.deepEqual(await read((s, id) => s.listPeppolIds(id)), [{ scheme: '0211', identifier: 'IT01234567890' }, { scheme: '9906', identifier: 'UFXYZ1' }]);
    failed(await runCli(dir, ['customer', 'set', 'C002', '--peppol-id', '0211:IT01234567890']), /held by another customer: 0211:IT01234567890 \(C001\)/);
    failed(await runCli(dir, ['customer', 'set', 'C002', '--peppol-id', 'IT01234567890']), /scheme:value/);
    failed(await runCli(dir, ['customer', 'set', 'C002']), /nothing to set/);
    assert.match(ok(await runCli(dir, ['customer', 'set', 'C001', '--peppol-id', '0088:8012345678901'])).stdout, /Customer C001: Peppol identifiers 0088:8012345678901\./);
    assert.match(ok(await runCli(dir, ['customer', 'set', 'C001', '--no-peppol-ids'])).stdout, /has no Peppol identifiers/);
    assert.deepEqual(await read((s, id) => s.listPeppolIds(id)), []);
  });

  void it('imports GTINs with the catalog (padded to 14 digits, check digit verified) and a customer\'s cross-references', async () => {
    const catalog = path.join(dir, 'catalog.csv');
    await writeFile(catalog, 'codice_articolo;descrizione;unita_misura;gtin\nBV-STD;Biglietti;PZ;8001234567897\nVOL-A5;Volantini;PZ;\n');
    ok(await runCli(dir, ['articles', 'import', catalog]));
    assert.deepEqual([...await read((s) => s.articlesByGtin(['08001234567897']))], [['08001234567897', 'BV-STD']]);
    await writeFile(catalog, 'codice_articolo;descrizione;unita_misura;gtin\nBV-STD;Biglietti;PZ;8001234567898\n');
    failed(await runCli(dir, ['articles', 'import', catalog]), /line 2: gtin "8001234567898" is not a GTIN/);

    const xref = path.join(dir, 'xref.csv');
    await writeFile(xref, 'Codice cliente articolo;Codice articolo\nASL-77;BV-STD\nASL-78;VOL-A5\n\n');
    assert.match(ok(await runCli(dir, ['articles', 'xref', 'import', 'C001', xref])).stdout, /imported 2 cross-references for C001 .*the customer has 2/);
    assert.deepEqual([...await read((s, id) => s.articleXrefs(id, ['ASL-77', 'ASL-78']))].sort(), [['ASL-77', 'BV-STD'], ['ASL-78', 'VOL-A5']]);
    await writeFile(xref, 'codice_cliente_articolo;codice_articolo\nASL-79;\n');
    failed(await runCli(dir, ['articles', 'xref', 'import', 'C001', xref]), /line 2: both codes are needed/);
    failed(await runCli(dir, ['articles', 'xref', 'import', 'NOPE', xref]), /no customer with code NOPE/);
  });
});
