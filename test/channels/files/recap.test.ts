// Issue 43 on the FTP/SFTP channel, with the real clients: the outcome file recaps the registered lines of each
// accepted order (read with OpenSSH's sftp), and the order desk's correction of a refused order shows up as a new
// outcome file in /ordini/esiti (listed and read with basic-ftp, its listed size the size of its bytes).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { TestCustomer } from '../../helpers/service.ts';
import { ftpClient, ftpDownload, sftpBatch, startFiles, type FilesHarness } from './helpers.ts';

const CSV = [
  'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura',
  'C001;SFTP-R1;2026-11-20;BV-STD;1500;PZ',
  'C001;SFTP-R1;2026-11-20;CAR-A4-80;2,5;RS',
  'C001;SFTP-R2;2026-11-20;BV-XXX;300;PZ',
].join('\r\n');

let h: FilesHarness;
let c1: TestCustomer;
let dir: string;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
  dir = mkdtempSync(path.join(tmpdir(), 'intake-recap-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await h.close();
});

test('the outcome file recaps the registered lines; a correction adds an outcome file naming the number', async () => {
  const local = path.join(dir, 'riepilogo.csv');
  writeFileSync(local, CSV);
  const put = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, [`put ${local} /ordini/riepilogo.csv`]);
  assert.equal(put.code, 0, put.stderr);
  const s = await h.processed('C001', 'riepilogo.csv');
  const numero = s.outcome!.orders[0]!.numero_ordine!;
  const got = path.join(dir, 'esito.txt');
  const gotJson = path.join(dir, 'esito.json');
  const get = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, [
    `get /ordini/esiti/riepilogo.csv.esito.txt ${got}`, `get /ordini/esiti/riepilogo.csv.esito.json ${gotJson}`,
  ]);
  assert.equal(get.code, 0, get.stderr);
  const text = readFileSync(got, 'utf8');
  assert.match(text, new RegExp(`Ordine 1 \\(riferimento SFTP-R1\\): registrato con numero ${numero}.*\\r\\n  Righe registrate:\\r\\n`
    + ' {4}BV-STD \\(Biglietti da visita\\): 1500 PZ\\r\\n {4}CAR-A4-80 \\(Carta A4 80g\\): 2,5 RS\\r\\n'));
  assert.match(text, /Ordine 2 \(riferimento SFTP-R2, riga \d+ del file\): NON registrato/);
  const json = JSON.parse(readFileSync(gotJson, 'utf8')) as { ordini: { righe_registrate?: { quantita: number }[] }[] };
  assert.deepEqual(json.ordini[0]!.righe_registrate!.map((r) => r.quantita), [1500, 2.5]);

  // The order desk registers the refused order, as the console's "Correggi e registra" submits it.
  const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
  const { outcome } = await h.t.service.intake.submit({
    principal: { customerId: customer.id, customerCode: 'C001' }, channel: 'console', fileName: `correzione-${s.id}.json`,
    mediaType: 'application/json', singleOrder: true, meta: { corregge: s.id, ordine: '1', operatore: 'ops@example.com' },
    raw: Buffer.from(JSON.stringify({
      codice_cliente: 'C001', riferimento_ordine: 'SFTP-R2', data_ordine: '2026-11-20',
      righe: [{ codice_articolo: 'VOL-A4', quantita: 300, unita_misura: 'PZ' }],
    })),
  });
  assert.equal(outcome.esito, 'ok');
  const corrected = outcome.orders[0]!.numero_ordine!;
  const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const listing = await client.list('/ordini/esiti');
    const names = listing.map((f) => f.name).sort();
    assert.deepEqual(names, [
      'riepilogo.csv.correzione-2.esito.json', 'riepilogo.csv.correzione-2.esito.txt', 'riepilogo.csv.esito.json', 'riepilogo.csv.esito.txt',
    ]);
    const notice = await ftpDownload(client, '/ordini/esiti/riepilogo.csv.correzione-2.esito.txt');
    assert.equal(notice.length, listing.find((f) => f.name === 'riepilogo.csv.correzione-2.esito.txt')!.size, 'listed size = bytes');
    const noticeText = notice.toString('utf8');
    assert.match(noticeText, new RegExp(`^L'ordine \\(riferimento SFTP-R2\\) è stato corretto e registrato dall'ufficio ordini con numero ${corrected}\\.`));
    assert.match(noticeText, /Esito del file riepilogo\.csv/);
    assert.match(noticeText, / {4}VOL-A4 \(Volantini A4\): 300 PZ\r\n/);
    const noticeJson = JSON.parse((await ftpDownload(client, '/ordini/esiti/riepilogo.csv.correzione-2.esito.json')).toString('utf8')) as Record<string, unknown>;
    assert.equal(noticeJson.registrato_da, 'ufficio_ordini');
    assert.equal((noticeJson.ordini as { numero_ordine: string }[])[0]!.numero_ordine, corrected);
  } finally {
    client.close();
  }
});
