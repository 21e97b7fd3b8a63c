// The operator's commands for printer-side connectors (issue 20), through the real `order-intake` CLI:
// `connector add --customers`, `connector customers import|list` and `connector product-key`.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempDataDir } from '../auth/temp-store.ts';
import { failed, ok, runCli } from './run.ts';

void describe('order-intake connector customers', () => {
  let dataDir: string;

  before(async () => {
    dataDir = await tempDataDir('intake-cli-conncust-');
    for (const code of ['P000', 'C001', 'C002']) ok(await runCli(dataDir, ['customer', 'add', '--code', code, '--name', `Cliente ${code}`, '--json']));
    ok(await runCli(dataDir, ['site', 'add', 'VR', '--name', 'Verona']));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  void it('binds a connector to several customers, loads and lists its customer table, sets its product key', async () => {
    const added = JSON.parse(ok(await runCli(dataDir, [
      'connector', 'add', '--customers', 'C001,C002', '--customer', 'P000', '--name', 'MIS', '--sites', 'VR', '--format', 'xjdf',
      '--product-key', 'auto||{MediaIntent/@MediaQuality}', '--json',
    ])).stdout) as { id: string; codice_cliente: string; clienti: string[]; chiave_prodotto: string };
    assert.deepEqual([added.codice_cliente, added.clienti, added.chiave_prodotto], ['P000', ['C001', 'C002'], 'auto||{MediaIntent/@MediaQuality}']);

    const file = path.join(dataDir, 'clienti.csv');
    await writeFile(file, 'id_esterno;codice_cliente\nMIS-1;C001\nmis-2;c002\n');
    assert.match(ok(await runCli(dataDir, ['connector', 'customers', 'import', added.id, file])).stdout, /imported 2 customer rows/);
    const listed = JSON.parse(ok(await runCli(dataDir, ['connector', 'customers', 'list', added.id, '--json'])).stdout) as unknown;
    assert.deepEqual(listed, { clienti: ['C001', 'C002'], tabella: [{ id_esterno: 'MIS-1', codice_cliente: 'C001' }, { id_esterno: 'MIS-2', codice_cliente: 'C002' }] });
    assert.match(ok(await runCli(dataDir, ['connector', 'customers', 'list', added.id])).stdout, /may bring orders of: C001,C002\nID_ESTERNO +CODICE_CLIENTE\nMIS-1 +C001\nMIS-2 +C002\n/);

    // A table cannot widen the binding, nor name an unknown customer; the old table stays.
    await writeFile(file, 'id_esterno;codice_cliente\nMIS-3;P000\nMIS-4;C404\n');
    failed(await runCli(dataDir, ['connector', 'customers', 'import', added.id, file]), /customer P000 is not bound to connector[\s\S]*no customer with code C404/);
    assert.equal((JSON.parse(ok(await runCli(dataDir, ['connector', 'customers', 'list', added.id, '--json'])).stdout) as { tabella: unknown[] }).tabella.length, 2);

    assert.match(ok(await runCli(dataDir, ['connector', 'product-key', added.id, '{@DescriptiveName}'])).stdout, /product key of connector .*: \{@DescriptiveName\}/);
    failed(await runCli(dataDir, ['connector', 'product-key', added.id, '{DescriptiveName}']), /placeholder that is not/);
    assert.match(ok(await runCli(dataDir, ['connector', 'product-key', added.id, 'auto'])).stdout, /: auto\n/);
  });

  void it('binds a connector to all customers only with an owner; --customer alone works as before', async () => {
    failed(await runCli(dataDir, ['connector', 'add', '--customers', 'all', '--name', 'Prinect', '--sites', 'VR', '--format', 'xjdf']), /belongs to one account: name it with --customer/);
    const all = JSON.parse(ok(await runCli(dataDir, ['connector', 'add', '--customers', 'all', '--customer', 'P000', '--name', 'Prinect', '--sites', 'VR', '--format', 'xjdf', '--json'])).stdout) as { clienti: unknown };
    assert.equal(all.clienti, 'all');
    const one = JSON.parse(ok(await runCli(dataDir, ['connector', 'add', '--customer', 'C001', '--name', 'Switch', '--sites', 'VR', '--format', 'jdf', '--json'])).stdout) as { clienti: unknown };
    assert.deepEqual(one.clienti, ['C001']);
    failed(await runCli(dataDir, ['connector', 'add', '--name', 'x', '--sites', 'VR', '--format', 'jdf']), /name the customer/);
  });
});
