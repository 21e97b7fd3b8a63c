// The outcome file for people (.esito.txt) after an SFTP upload: errors in Italian, placed by the row of the CSV file
// (or "ordine N, riga M" for JSON), a file-level error in Italian too; .esito.json keeps shape A for programs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { p, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';
import type { TestCustomer } from '../../helpers/service.ts';

const ENGLISH = /must be|should not|must contain|ISO 8601|conforming|does not belong|CSV header|encoded in|\brighe\.\d|righe\[\d/;

let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
});
after(() => h.close());

test('SFTP: a CSV with errors gets an Italian outcome file naming the rows of the file', async () => {
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const csv = [
      'riferimento_ordine,codice_cliente,data_ordine,data_consegna,codice_articolo,quantita,unita_misura',
      'F-1,C001,2026-11-20,,BV-STD,500,PZ',
      'F-1,C001,2026-11-20,,VOL-A4,1000,BOH',
      'F-2,C001,2026-11-20,2026-11-01,BV-STD,1,PZ',
      'F-3,,2026-11-20,,BV-STD,1,PZ',
    ].join('\n') + '\n';
    await p((cb) => sftp.writeFile('/ordini/righe.csv', csv, cb));
    await p((cb) => sftp.writeFile('/ordini/vuoto.json', '{"ordini": []}', cb));
    await p((cb) => sftp.writeFile('/ordini/righe.json', JSON.stringify({ ordini: [
      { codice_cliente: 'C001', riferimento_ordine: 'FJ-1', data_ordine: '2026-13-01', righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }, { codice_articolo: 'BV-STD', quantita: 'due', unita_misura: 'PZ' }] },
    ] }), cb));
    await h.processed('C001', 'righe.csv');
    const text = (await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/righe.csv.esito.txt', cb))).toString('utf8');
    assert.match(text, /Ordine 1 \(riferimento F-1, righe 2-3 del file\): NON registrato\r\n {2}- Riga 3 del file: unità di misura sconosciuta: "BOH"\r\n/);
    assert.match(text, /Ordine 2 \(riferimento F-2, riga 4 del file\): NON registrato\r\n {2}- La data di consegna \(2026-11-01\) precede la data dell'ordine/);
    assert.match(text, /Ordine 3 \(riferimento F-3, riga 5 del file\): NON registrato\r\n {2}- Manca il codice cliente\r\n/);
    assert.doesNotMatch(text, ENGLISH);

    await h.processed('C001', 'righe.json');
    const jsonText = (await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/righe.json.esito.txt', cb))).toString('utf8');
    assert.match(jsonText, /- La data dell'ordine non è una data valida/);
    assert.match(jsonText, /- Ordine 1, riga 2: la quantità deve essere un numero/);
    assert.doesNotMatch(jsonText, ENGLISH);
    const json = JSON.parse((await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/righe.json.esito.json', cb))).toString('utf8'));
    assert.deepEqual(json.ordini[0].message, [
      'data_ordine must be a valid ISO 8601 date string (YYYY-MM-DD)', 'righe.1.quantita must be a number conforming to the specified constraints',
    ]);

    await h.processed('C001', 'vuoto.json');
    const empty = (await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/vuoto.json.esito.txt', cb))).toString('utf8');
    assert.match(empty, /Esito: ERRORE - il file non è stato elaborato, nessun ordine registrato\r\n {2}- Il file non contiene nessun ordine\r\n/);
    assert.doesNotMatch(empty, /holds no order/);
  } finally {
    conn.end();
  }
});
