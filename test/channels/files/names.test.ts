import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactTime, displayNames, isTemporaryName } from '../../../src/channels/files/names.ts';
import { renderOutcomeJson, renderOutcomeText } from '../../../src/render/outcome-file.ts';

test('temporary names: hidden files and the usual partial-upload suffixes', () => {
  for (const n of ['.ordine.csv', 'ordine.csv.part', 'ordine.csv.filepart', 'ORDINE.CSV.TMP', 'x.crdownload', 'x.partial', 'x.temp']) {
    assert.equal(isTemporaryName(n), true, n);
  }
  for (const n of ['ordine.csv', 'ordine.json', 'part', 'ordine.part.csv', 'tmp.xml']) {
    assert.equal(isTemporaryName(n), false, n);
  }
});

test('compactTime is in the service time zone', () => {
  assert.equal(compactTime('2026-11-22T02:15:00.000Z', 'Europe/Rome'), '20261122-031500');
  assert.equal(compactTime('2026-07-01T22:00:05.000Z', 'Europe/Rome'), '20260702-000005');
});

test('the newest upload keeps the name; older ones get their receive time, same second adds -2', () => {
  const items = [
    { id: 'a1', fileName: 'ordine.csv', receivedAt: '2026-11-22T02:15:00.000Z' },
    { id: 'a2', fileName: 'ordine.csv', receivedAt: '2026-11-22T02:15:00.400Z' },
    { id: 'a3', fileName: 'ordine.csv', receivedAt: '2026-11-23T08:00:00.000Z' },
    { id: 'b1', fileName: 'README', receivedAt: '2026-11-20T08:00:00.000Z' },
    { id: 'b2', fileName: 'README', receivedAt: '2026-11-21T08:00:00.000Z' },
    { id: 'c1', fileName: 'altro.xml', receivedAt: '2026-11-21T08:00:00.000Z' },
  ];
  const names = displayNames(items, 'Europe/Rome');
  const byId = new Map([...names].map(([n, s]) => [s.id, n]));
  assert.equal(byId.get('a3'), 'ordine.csv');
  assert.equal(byId.get('a1'), 'ordine.20261122-031500.csv');
  assert.equal(byId.get('a2'), 'ordine.20261122-031500-2.csv');
  assert.equal(byId.get('b2'), 'README');
  assert.equal(byId.get('b1'), 'README.20261120-090000');
  assert.equal(byId.get('c1'), 'altro.xml');
  assert.equal(names.size, items.length);
});

test('a stamped name never takes the name of a file really uploaded under it', () => {
  const items = [
    { id: 'x1', fileName: 'o.csv', receivedAt: '2026-11-22T02:15:00.000Z' },
    { id: 'x2', fileName: 'o.csv', receivedAt: '2026-11-23T02:15:00.000Z' },
    { id: 'x3', fileName: 'o.20261122-031500.csv', receivedAt: '2026-11-20T00:00:00.000Z' },
  ];
  const byId = new Map([...displayNames(items, 'Europe/Rome')].map(([n, s]) => [s.id, n]));
  assert.equal(byId.get('x3'), 'o.20261122-031500.csv');
  assert.notEqual(byId.get('x1'), 'o.20261122-031500.csv');
  assert.equal(new Set(byId.values()).size, 3);
});

test('outcome files list every order with its number or its errors', () => {
  const input = {
    name: 'ordini.csv', submissionId: 'S1', receivedAt: '2026-11-22T02:15:00.000Z', processedAt: '2026-11-22T02:15:01.000Z',
    alreadyReceivedAt: '2026-11-21T10:00:00.000Z', timeZone: 'Europe/Rome',
    outcome: {
      submissionId: 'S1', esito: 'errore' as const,
      orders: [
        { index: 0, codice_cliente: 'C001', riferimento_ordine: 'A', esito: 'ok' as const, id_ordine: 'id-a', numero_ordine: '2026-000001' },
        { index: 1, riferimento_ordine: 'B', esito: 'ok' as const, duplicate: true, id_ordine: 'id-b', numero_ordine: '2026-000002' },
        { index: 2, riferimento_ordine: 'C', esito: 'errore' as const, code: 'BUSINESS' as const, errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'articolo sconosciuto' }] },
        { index: 3, esito: 'errore' as const, code: 'VALIDATION' as const, message: ['codice_cliente must be a string'] },
      ],
    },
  };
  const json = JSON.parse(renderOutcomeJson(input).toString('utf8'));
  assert.equal(json.esito, 'errore');
  assert.equal(json.gia_ricevuto_il, '2026-11-21T10:00:00.000Z');
  assert.deepEqual(json.ordini.map((o: { esito: string }) => o.esito), ['ok', 'ok', 'errore', 'errore']);
  assert.equal(json.ordini[0].numero_ordine, '2026-000001');
  assert.equal(json.ordini[1].duplicato, true);
  assert.deepEqual(json.ordini[2].errori, [{ campo: 'righe[0].codice_articolo', messaggio: 'articolo sconosciuto' }]);
  assert.deepEqual(json.ordini[3].message, ['codice_cliente must be a string']);
  const text = renderOutcomeText(input).toString('utf8');
  assert.match(text, /\r\n/);
  assert.match(text, /Esito: ERRORE - 2 ordini accettati, 2 ordini con errori/);
  assert.match(text, /riferimento A\): registrato con numero 2026-000001/);
  assert.match(text, /riferimento B\): già registrato/);
  assert.match(text, /Ordine 3, riga 1: articolo sconosciuto/);
  assert.match(text, /Il codice cliente deve essere un testo/);
  assert.doesNotMatch(text, /must be|righe\[0\]/);
  assert.match(text, /file già ricevuto il 21\/11\/2026/);
});

test('a file that cannot be read says so in both outcome files', () => {
  const input = {
    name: 'x.csv', submissionId: 'S2', receivedAt: '2026-11-22T02:15:00.000Z', timeZone: 'Europe/Rome',
    outcome: { submissionId: 'S2', esito: 'errore' as const, fileError: { code: 'NOT_PARSEABLE' as const, message: ['CSV has a quote that is never closed, opened on line 3'] }, orders: [] },
  };
  assert.deepEqual(JSON.parse(renderOutcomeJson(input).toString()).errore_file, { codice: 'NOT_PARSEABLE', message: ['CSV has a quote that is never closed, opened on line 3'] });
  assert.match(renderOutcomeText(input).toString(), /il file non è stato elaborato[\s\S]*virgoletta aperta alla riga 3 del file non viene mai chiusa/);
});
