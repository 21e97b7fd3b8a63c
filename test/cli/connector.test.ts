// The operator's connector commands, through the real `order-intake` CLI: sites, connectors and their keys,
// lookup tables, mappings and test-mapping.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { authenticateConnector } from '../../src/connectors/auth.ts';
import { openTempStore, tempDataDir } from '../auth/temp-store.ts';
import { failed, ok, runCli } from './run.ts';

async function callerOf(dataDir: string, key: string) {
  const t = await openTempStore(dataDir);
  try {
    return await authenticateConnector(t.store, key);
  } finally {
    await t.store.close();
  }
}

interface Issued { id: string; codice_cliente: string; siti: string[]; formato: string; allow_ips: string[]; service_x_key: string; key_id: string }

const MAPPING = `(
  $o := $type(ordini) = "array" ? ordini : [ordini];
  $o.{
    "codice_cliente": cliente,
    "riferimento_ordine": rif,
    "data_ordine": data,
    "righe": [righe.{ "codice_articolo": art, "quantita": $number(qta), "unita_misura": um }]
  }
)`;

void describe('order-intake site and connector', () => {
  let dataDir: string;
  let erp: Issued;

  before(async () => {
    dataDir = await tempDataDir('intake-cli-conn-');
    ok(await runCli(dataDir, ['customer', 'add', '--code', 'C001', '--name', 'Tipografia Rossi', '--json']));
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  void it('site add and site list (plain and --json); a repeated or malformed code is refused', async () => {
    assert.match(ok(await runCli(dataDir, ['site', 'list'])).stdout, /^no sites yet/);
    assert.match(ok(await runCli(dataDir, ['site', 'add', 'vr', '--name', 'Verona'])).stdout, /^Site VR \(Verona\) added\.\n$/);
    ok(await runCli(dataDir, ['site', 'add', 'MI', '--name', 'Milano', '--json']));
    const list = JSON.parse(ok(await runCli(dataDir, ['site', 'list', '--json'])).stdout) as { codice: string; nome: string }[];
    assert.deepEqual(list.map((s) => [s.codice, s.nome]), [['MI', 'Milano'], ['VR', 'Verona']]);
    assert.match(ok(await runCli(dataDir, ['site', 'list'])).stdout, /^CODE +NAME +CREATED\nMI +Milano .*\nVR +Verona /);
    failed(await runCli(dataDir, ['site', 'add', 'VR', '--name', 'Verona']), /site VR already exists/);
    failed(await runCli(dataDir, ['site', 'add', 'V R', '--name', 'x']), /site code "V R" is not valid/);
  });

  void it('connector add prints the key once, with a warning; the key authenticates as the customer and sites', async () => {
    const r = ok(await runCli(dataDir, ['connector', 'add', '--customer', 'C001', '--name', 'Switch Verona', '--sites', 'VR,MI', '--format', 'xjdf', '--allow-ip', '10.0.0.0/8,192.0.2.1']));
    assert.match(r.stdout, /service-x-key: +oic_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}\n/);
    assert.match(r.stdout, /Production sites: +MI, VR/);
    assert.match(r.stdout, /Allowed source addresses: +10\.0\.0\.0\/8, 192\.0\.2\.1\/32/);
    assert.match(r.stdout, /shown only now/);
    const key = /oic_\w+/.exec(r.stdout)![0];
    const caller = await callerOf(dataDir, key);
    assert.equal(caller?.principal.customerCode, 'C001');
    assert.deepEqual(caller?.principal.sites, ['MI', 'VR']);
    assert.deepEqual(caller?.connector.allowIps, ['10.0.0.0/8', '192.0.2.1/32']);
  });

  void it('connector add --json; list shows it without the key; bad input is refused clearly', async () => {
    erp = JSON.parse(ok(await runCli(dataDir, ['connector', 'add', '--customer', 'c001', '--name', 'ERP', '--sites', 'MI', '--format', 'json', '--json'])).stdout) as Issued;
    assert.equal(erp.codice_cliente, 'C001');
    assert.deepEqual(erp.siti, ['MI']);
    assert.equal(erp.formato, 'json');
    assert.match(erp.service_x_key, /^oic_/);
    const list = ok(await runCli(dataDir, ['connector', 'list', '--customer', 'C001']));
    assert.match(list.stdout, /^ID +CLIENTE +NAME +FORMAT +SITES/);
    assert.match(list.stdout, new RegExp(`${erp.id} +C001 +ERP +json +MI +any +${erp.key_id} +active`));
    assert.doesNotMatch(list.stdout, /oic_/);
    const json = JSON.parse(ok(await runCli(dataDir, ['connector', 'list', '--json'])).stdout) as Record<string, unknown>[];
    assert.equal(json.length, 2);
    assert.ok(json.every((c) => !('service_x_key' in c)));
    failed(await runCli(dataDir, ['connector', 'add', '--customer', 'C009', '--name', 'x', '--sites', 'VR', '--format', 'jdf']), /no customer with code C009/);
    failed(await runCli(dataDir, ['connector', 'add', '--customer', 'C001', '--name', 'x', '--sites', 'TO', '--format', 'jdf']), /unknown production site: TO/);
    failed(await runCli(dataDir, ['connector', 'add', '--customer', 'C001', '--name', 'x', '--sites', 'VR', '--format', 'pdf']), /format must be one of/);
    failed(await runCli(dataDir, ['connector', 'add', '--customer', 'C001', '--name', 'x', '--sites', 'VR', '--format', 'jdf', '--allow-ip', 'example.com']), /not an IP address/);
  });

  void it('connector rotate prints a new key; the old one stops working; revoke stops the new one', async () => {
    const r = ok(await runCli(dataDir, ['connector', 'rotate', erp.id, '--json']));
    const next = (JSON.parse(r.stdout) as Issued).service_x_key;
    assert.notEqual(next, erp.service_x_key);
    assert.equal(await callerOf(dataDir, erp.service_x_key), undefined);
    assert.equal((await callerOf(dataDir, next))?.connector.id, erp.id);
    const spare = JSON.parse(ok(await runCli(dataDir, ['connector', 'add', '--customer', 'C001', '--name', 'Spare', '--sites', 'VR', '--format', 'jdf', '--json'])).stdout) as Issued;
    assert.match(ok(await runCli(dataDir, ['connector', 'revoke', spare.id])).stdout, /is revoked/);
    assert.equal(await callerOf(dataDir, spare.service_x_key), undefined);
    assert.match(ok(await runCli(dataDir, ['connector', 'list'])).stdout, new RegExp(`${spare.id} .* revoked `));
    failed(await runCli(dataDir, ['connector', 'rotate', spare.id]), /was revoked/);
    failed(await runCli(dataDir, ['connector', 'revoke', 'nope']), /no connector nope/);
    erp.service_x_key = next;
  });

  void it('connector lookup import replaces the table; a bad file is refused with its line', async () => {
    const file = path.join(dataDir, 'lookup.csv');
    await writeFile(file, 'chiave_prodotto;codice_articolo;unita_misura\nBiglietti da visita;BV-STD;PZ\nVolantino A4;VOL-A4;\n');
    assert.match(ok(await runCli(dataDir, ['connector', 'lookup', 'import', erp.id, file])).stdout, /imported 2 lookup rows/);
    await writeFile(file, 'chiave_prodotto;codice_articolo\nA;X\na ;Y\n');
    failed(await runCli(dataDir, ['connector', 'lookup', 'import', erp.id, file]), /line 3: product key "a" repeats line 2/);
  });

  void it('connector mapping set stores a mapping that compiles and refuses one that does not', async () => {
    const file = path.join(dataDir, 'erp.jsonata');
    await writeFile(file, MAPPING);
    assert.match(ok(await runCli(dataDir, ['connector', 'mapping', 'set', erp.id, file])).stdout, /mapping of connector .* stored/);
    await writeFile(file, '{"a": ');
    failed(await runCli(dataDir, ['connector', 'mapping', 'set', erp.id, file]), /the mapping does not compile/);
  });

  void it('connector add --mapping stores a mapping with the connector (json/xml only)', async () => {
    const file = path.join(dataDir, 'add.jsonata');
    await writeFile(file, MAPPING);
    const c = JSON.parse(ok(await runCli(dataDir, ['connector', 'add', '--customer', 'C001', '--name', 'ERP 2', '--sites', 'VR', '--format', 'json', '--mapping', file, '--json'])).stdout) as Issued & { mapping: boolean };
    assert.equal(c.mapping, true);
    failed(await runCli(dataDir, ['connector', 'add', '--customer', 'C001', '--name', 'x', '--sites', 'VR', '--format', 'jdf', '--mapping', file]), /mappings are for json and xml/);
  });

  void it('connector test-mapping prints the orders a file becomes and the stage A verdict of each', async () => {
    const data = path.join(dataDir, 'export.json');
    await writeFile(data, JSON.stringify({ ordini: [
      { cliente: 'C001', rif: 'ERP-1', data: '2026-11-20', righe: [{ art: 'BV-STD', qta: '500', um: 'PZ' }] },
      { cliente: 'C001', rif: 'ERP-2', data: '20/11/2026', righe: [{ art: 'VOL-A4', qta: '10', um: 'PZ' }] },
    ] }));
    const viaConnector = await runCli(dataDir, ['connector', 'test-mapping', data, '--connector', erp.id]);
    assert.equal(viaConnector.code, 1, 'one order is not valid: exit 1');
    assert.match(viaConnector.stdout, /^2 order\(s\) read as json/);
    assert.match(viaConnector.stdout, /order 1: valid\n/);
    assert.match(viaConnector.stdout, /order 2: NOT valid\n {2}- data_ordine/);
    assert.match(viaConnector.stdout, /"riferimento_ordine": "ERP-1"/);
    const mapping = path.join(dataDir, 'm.jsonata');
    await writeFile(mapping, MAPPING);
    const one = path.join(dataDir, 'one.json');
    await writeFile(one, JSON.stringify({ ordini: { cliente: 'C001', rif: 'ERP-3', data: '2026-11-20', righe: [{ art: 'BV-STD', qta: '1', um: 'PZ' }] } }));
    const r = JSON.parse(ok(await runCli(dataDir, ['connector', 'test-mapping', one, '--mapping', mapping, '--format', 'json', '--json'])).stdout) as { orders: { valid: boolean; candidate: { riferimento_ordine: string } }[] };
    assert.equal(r.orders.length, 1);
    assert.equal(r.orders[0]!.valid, true);
    assert.equal(r.orders[0]!.candidate.riferimento_ordine, 'ERP-3');
    failed(await runCli(dataDir, ['connector', 'test-mapping', one]), /name a stored connector/);
  });
});
