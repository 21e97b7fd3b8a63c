import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { authenticateConnector } from '../../src/connectors/auth.ts';
import { importLookup, parseLookup } from '../../src/connectors/lookup-csv.ts';
import { addConnector, revokeConnector, rotateConnectorKey, setMapping } from '../../src/connectors/provision.ts';
import { addSite } from '../../src/connectors/sites.ts';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { IntakeError } from '../../src/domain/errors.ts';
import { openTempStore, type TempStore } from '../auth/temp-store.ts';

const isCode = (code: IntakeError['code'], message?: RegExp) => (e: unknown) =>
  e instanceof IntakeError && e.code === code && (message === undefined || message.test(e.message));

let t: TempStore;
let apiKey: string;

before(async () => {
  t = await openTempStore();
  apiKey = (await provisionCustomer(t.store, { code: 'C001', name: 'Tipografia Rossi' }, 'ordini.test')).apiKey;
  await provisionCustomer(t.store, { code: 'C002', name: 'Grafiche Bianchi' }, 'ordini.test');
  await addSite(t.store, { code: 'vr', name: 'Verona' });
  await addSite(t.store, { code: 'MI', name: 'Milano' });
});
after(() => t.cleanup());

void describe('sites', () => {
  void it('refuses bad codes, empty names and repeats', async () => {
    await assert.rejects(addSite(t.store, { code: 'V R', name: 'x' }), isCode('VALIDATION', /site code/));
    await assert.rejects(addSite(t.store, { code: '-VR', name: 'x' }), isCode('VALIDATION'));
    await assert.rejects(addSite(t.store, { code: 'TO', name: '  ' }), isCode('VALIDATION', /name/));
    await assert.rejects(addSite(t.store, { code: 'Vr', name: 'Verona' }), isCode('CONFLICT'));
  });
});

void describe('connector provisioning and keys', () => {
  void it('adds a connector whose key authenticates as its customer, sites and connector', async () => {
    const { connector, key } = await addConnector(t.store, { customer: 'c001', name: ' Switch Verona ', sites: 'vr, MI', format: 'XJDF' });
    assert.match(key, /^oic_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    assert.equal(connector.name, 'Switch Verona');
    assert.equal(connector.format, 'xjdf');
    assert.deepEqual(connector.sites, ['MI', 'VR']);
    const caller = await authenticateConnector(t.store, key);
    assert.deepEqual(caller?.principal, { customerId: connector.customerId, customerCode: 'C001', sites: ['MI', 'VR'], connectorId: connector.id });
    assert.equal(await authenticateConnector(t.store, apiKey), undefined, 'an API key is not a connector key');
    assert.equal(await authenticateConnector(t.store, `${key.slice(0, -4)}AAAA`), undefined, 'wrong secret');
    assert.equal(await authenticateConnector(t.store, undefined), undefined);
    assert.equal(await authenticateConnector(t.store, 'oic_short'), undefined);
  });

  void it('refuses an unknown customer, format or site, and a bad allow list, with clear messages', async () => {
    const base = { customer: 'C001', name: 'X', sites: 'VR', format: 'jdf' };
    await assert.rejects(addConnector(t.store, { ...base, customer: 'C999' }), isCode('NOT_FOUND', /C999/));
    await assert.rejects(addConnector(t.store, { ...base, format: 'pdf' }), isCode('VALIDATION', /jdf, xjdf, json, xml/));
    await assert.rejects(addConnector(t.store, { ...base, sites: 'VR,TO' }), isCode('NOT_FOUND', /TO/));
    await assert.rejects(addConnector(t.store, { ...base, sites: ' , ' }), isCode('VALIDATION', /at least one/));
    await assert.rejects(addConnector(t.store, { ...base, allowIps: '10.0.0.0/40' }), isCode('VALIDATION', /prefix/));
    await assert.rejects(addConnector(t.store, { ...base, name: '' }), isCode('VALIDATION', /name/));
    await assert.rejects(addConnector(t.store, { ...base, mapping: '$' }), isCode('VALIDATION', /json and xml/));
    await assert.rejects(addConnector(t.store, { ...base, format: 'json', mapping: '{' }), isCode('VALIDATION', /does not compile/));
    assert.equal((await t.store.listConnectors({})).filter((c) => c.name === 'X').length, 0, 'nothing stored');
  });

  void it('rotates: the old key stops working, the new one works; a revoked connector cannot rotate', async () => {
    const first = await addConnector(t.store, { customer: 'C001', name: 'Prinect', sites: 'VR', format: 'jdf', allowIps: '10.0.0.0/8' });
    const second = await rotateConnectorKey(t.store, first.connector.id);
    assert.notEqual(second.key, first.key);
    assert.equal(await authenticateConnector(t.store, first.key), undefined);
    assert.equal((await authenticateConnector(t.store, second.key))?.connector.id, first.connector.id);
    assert.deepEqual(second.connector.allowIps, ['10.0.0.0/8']);
    const revoked = await revokeConnector(t.store, first.connector.id);
    assert.ok(revoked.revokedAt);
    assert.equal(await authenticateConnector(t.store, second.key), undefined);
    await assert.rejects(rotateConnectorKey(t.store, first.connector.id), isCode('CONFLICT', /revoked/));
    await assert.rejects(revokeConnector(t.store, first.connector.id), isCode('CONFLICT', /already revoked/));
    await assert.rejects(revokeConnector(t.store, 'nope'), isCode('NOT_FOUND'));
  });

  void it('stores a mapping only for json/xml connectors and only when it compiles', async () => {
    const erp = await addConnector(t.store, { customer: 'C002', name: 'ERP', sites: 'MI', format: 'json' });
    const c = await setMapping(t.store, erp.connector.id, '{"codice_cliente": cliente}');
    assert.equal(c.mapping, '{"codice_cliente": cliente}');
    await assert.rejects(setMapping(t.store, erp.connector.id, '{"a": '), isCode('VALIDATION', /does not compile/));
    await assert.rejects(setMapping(t.store, erp.connector.id, '   '), isCode('VALIDATION', /empty/));
    const jdf = await addConnector(t.store, { customer: 'C002', name: 'Apogee', sites: 'MI', format: 'jdf' });
    await assert.rejects(setMapping(t.store, jdf.connector.id, '$'), isCode('VALIDATION', /json and xml/));
  });
});

void describe('connector lookup tables', () => {
  void it('parses the CSV, normalising keys, with the unit optional and columns in any order', () => {
    const rows = parseLookup('Codice_Articolo;Chiave Prodotto;unita_misura\nBV-STD;  Biglietti   da Visita ;pz\nVOL-A4;Volantino A4;\n');
    assert.deepEqual(rows, [
      { productKey: 'biglietti da visita', codice_articolo: 'BV-STD', unita_misura: 'PZ' },
      { productKey: 'volantino a4', codice_articolo: 'VOL-A4' },
    ]);
    assert.deepEqual(parseLookup('product_key,codice_articolo\n"Flyer, A5",VOL-A5\n'), [{ productKey: 'flyer, a5', codice_articolo: 'VOL-A5' }]);
  });

  void it('refuses a missing column, empty fields and keys that repeat after normalising, naming the lines', () => {
    assert.throws(() => parseLookup('chiave_prodotto;descrizione\nx;y\n'), isCode('VALIDATION', /codice_articolo/));
    assert.throws(() => parseLookup('nothing here\n'), isCode('VALIDATION', /delimiter/));
    assert.throws(() => parseLookup('chiave_prodotto;codice_articolo\n;BV\nA;\n'), (e: unknown) =>
      isCode('VALIDATION')(e) && /line 2/.test((e as Error).message) && /line 3/.test((e as Error).message));
    assert.throws(() => parseLookup('chiave_prodotto;codice_articolo\nBiglietti;BV\n biglietti ;BV2\n'), isCode('VALIDATION', /line 3: .*repeats line 2/));
  });

  void it('imports a Windows-1252 file, replacing the previous table', async () => {
    const { connector } = await addConnector(t.store, { customer: 'C001', name: 'Switch', sites: 'VR', format: 'xjdf' });
    const file = path.join(t.dataDir, 'lookup.csv');
    await writeFile(file, iconv.encode('chiave_prodotto;codice_articolo;unita_misura\nCartolina però;CART-1;PZ\nBrochure;BRO-1;\n', 'win1252'));
    assert.equal(await importLookup(t.store, connector.id, file), 2);
    assert.deepEqual(await t.store.connectorLookup(connector.id), [
      { productKey: 'brochure', codice_articolo: 'BRO-1' },
      { productKey: 'cartolina però', codice_articolo: 'CART-1', unita_misura: 'PZ' },
    ]);
    await writeFile(file, 'chiave_prodotto;codice_articolo\nBrochure;BRO-2\n');
    assert.equal(await importLookup(t.store, connector.id, file), 1);
    assert.deepEqual(await t.store.connectorLookup(connector.id), [{ productKey: 'brochure', codice_articolo: 'BRO-2' }]);
    await assert.rejects(importLookup(t.store, 'nope', file), isCode('NOT_FOUND'));
  });
});
