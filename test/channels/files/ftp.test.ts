/**
 * The FTP channel end to end: real server on an ephemeral port (passive mode), real clients (basic-ftp, curl) and
 * a bare control connection to cut transfers on purpose.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { waitFor, type TestCustomer } from '../../helpers/service.ts';
import { curl, ftpClient, ftpDownload, order, rawFtp, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness;
let c1: TestCustomer;
let c2: TestCustomer;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
  c2 = await h.t.customer('C002');
});
after(() => h.close());

async function countNamed(code: string, prefix: string): Promise<number> {
  const customer = (await h.t.service.store.getCustomerByCode(code))!;
  const all = await h.t.service.store.listSubmissions({ customerId: customer.id, limit: 1000 });
  return all.filter((s) => s.fileName?.startsWith(prefix)).length;
}

test('basic-ftp uploads a Windows-1252 CSV with several orders; 226 comes after the file is stored', async () => {
  const csv = [
    'Codice_Cliente,Riferimento_Ordine,Data_Ordine,Codice_Articolo,Quantita,Unita_Misura',
    'C001,FTP-È1,2026-11-20,BV-STD,500,PZ',
    'C001,FTP-È2,2026-11-20,VOL-A4,1000,PZ',
  ].join('\r\n');
  const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const res = await client.uploadFrom(Readable.from([iconv.encode(csv, 'windows-1252')]), 'ordini/export.csv');
    assert.equal(res.code, 226);
    // Acknowledged means stored: the submission exists the moment the 226 has arrived.
    assert.equal(await countNamed('C001', 'export.csv'), 1);
    const s = await h.processed('C001', 'export.csv');
    assert.equal(s.channel, 'ftp');
    assert.deepEqual(s.outcome?.orders.map((o) => [o.riferimento_ordine, o.esito]), [['FTP-È1', 'ok'], ['FTP-È2', 'ok']]);
    const listing = (await client.list('/ordini/esiti')).map((f) => f.name);
    assert.ok(listing.includes('export.csv.esito.json') && listing.includes('export.csv.esito.txt'), listing.join());
    const text = (await ftpDownload(client, '/ordini/esiti/export.csv.esito.txt')).toString('utf8');
    assert.match(text, /Esito: OK - 2 ordini accettati/);
    assert.ok(text.includes(s.outcome?.orders[1]?.numero_ordine ?? 'missing'), text);
    assert.deepEqual(await ftpDownload(client, '/ordini/elaborati/export.csv'), iconv.encode(csv, 'windows-1252'));
  } finally {
    client.close();
  }
});

test('curl uploads JSON and XML over ftp:// and reads the outcome back', async () => {
  const json = Buffer.from(JSON.stringify(order('C001', 'CURL-FTP-1')));
  const up = await curl(['-T', '-', `ftp://127.0.0.1:${h.ftpPort}/ordini/curl.json`], c1.ftpUser, c1.ftpPassword, json);
  assert.equal(up.code, 0, up.stderr);
  const xml = Buffer.from('<ordini><ordine><codice_cliente>C001</codice_cliente><riferimento_ordine>CURL-FTP-2</riferimento_ordine><data_ordine>2026-11-20</data_ordine><righe><riga><codice_articolo>BV-STD</codice_articolo><quantita>5</quantita><unita_misura>PZ</unita_misura></riga></righe></ordine></ordini>');
  const up2 = await curl(['-T', '-', `ftp://127.0.0.1:${h.ftpPort}/ordini/curl.xml`], c1.ftpUser, c1.ftpPassword, xml);
  assert.equal(up2.code, 0, up2.stderr);
  assert.equal((await h.processed('C001', 'curl.json')).outcome?.esito, 'ok');
  assert.equal((await h.processed('C001', 'curl.xml')).outcome?.esito, 'ok');
  const down = await curl([`ftp://127.0.0.1:${h.ftpPort}/ordini/esiti/curl.xml.esito.json`], c1.ftpUser, c1.ftpPassword);
  assert.equal(down.code, 0, down.stderr);
  assert.equal(JSON.parse(down.stdout).ordini[0].riferimento_ordine, 'CURL-FTP-2');
});

test('an invalid file lands in scartati with its errors in the outcome file', async () => {
  const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const bad = JSON.stringify(order('C001', 'FTP-BAD', [{ codice_articolo: 'ZZZ', quantita: 1, unita_misura: 'PZ' }]));
    await client.uploadFrom(Readable.from([Buffer.from(bad)]), '/ordini/sbagliato.json');
    await h.processed('C001', 'sbagliato.json');
    assert.ok((await client.list('/ordini/scartati')).some((f) => f.name === 'sbagliato.json'));
    const json = JSON.parse((await ftpDownload(client, '/ordini/esiti/sbagliato.json.esito.json')).toString());
    assert.equal(json.esito, 'errore');
    assert.deepEqual(json.ordini[0].errori.map((e: { campo: string }) => e.campo), ['righe[0].codice_articolo']);
  } finally {
    client.close();
  }
});

/**
 * True when the server has read everything sent on `data` (at least `sent` bytes went out): its end of the
 * connection, found in Linux's /proc/net/tcp by its ports, has an empty receive queue.
 */
function receivedAll(data: Socket, sent: number): boolean {
  if (data.bytesWritten < sent) return false;
  const port = (n: number | undefined) => `:${(n ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, remote, state, queues] = row.trim().split(/\s+/);
      if (local?.endsWith(port(data.remotePort)) && remote?.endsWith(port(data.localPort)) && state === '01') {
        return Number.parseInt(queues?.split(':')[1] ?? '', 16) === 0;
      }
    }
  }
  return false;
}

async function openStor(name: string) {
  const ftp = await rawFtp(h.ftpPort);
  assert.match(await ftp.send(`USER ${c1.ftpUser}`), /^331/);
  assert.match(await ftp.send(`PASS ${c1.ftpPassword}`), /^230/);
  assert.match(await ftp.send('TYPE I'), /^200/);
  const epsv = await ftp.send('EPSV');
  const port = Number(/\(\|\|\|(\d+)\|\)/.exec(epsv)?.[1]);
  const data = connect(port, '127.0.0.1');
  await new Promise((resolve) => data.once('connect', resolve));
  assert.match(await ftp.send(`STOR ${name}`), /^150/);
  const part = Buffer.from('{"codice_cliente":"C001","rif');
  await new Promise<void>((resolve) => data.write(part, () => resolve()));
  return { ftp, data, bytes: part.length };
}

test('a transfer reset midway is answered with an error and discarded, never processed', async () => {
  const { ftp, data, bytes } = await openStor('/ordini/reset.json');
  const uploads = path.join(h.t.dataDir, 'spool', 'uploads');
  // Reset once the server has read what was sent: a reset racing unread bytes can reach the server as a plain
  // end of file (Linux reports it so), which FTP cannot tell from a finished upload (see ftp.ts). The bytes may
  // stay in the spool's write buffer, so "read" is the server's receive queue being empty.
  await waitFor(() => (readdirSync(uploads).length === 1 && receivedAll(data, bytes) ? true : undefined), 5000, 'bytes read by the server');
  data.resetAndDestroy();
  assert.match(await ftp.next(), /^5\d\d/);
  await waitFor(() => (readdirSync(uploads).length === 0 ? true : undefined), 5000, 'spool emptied');
  ftp.socket.destroy();
  await h.t.service.intake.idle();
  assert.equal(await countNamed('C001', 'reset.json'), 0);
});

test('a control connection dropped during the transfer discards the upload', async () => {
  const { ftp, data } = await openStor('/ordini/dropped.json');
  const uploads = path.join(h.t.dataDir, 'spool', 'uploads');
  await waitFor(() => (readdirSync(uploads).length > 0 ? true : undefined), 5000, 'upload in the spool');
  ftp.socket.destroy();
  await waitFor(() => (readdirSync(uploads).length === 0 ? true : undefined), 5000, 'spool emptied');
  data.destroy();
  await h.t.service.intake.idle();
  assert.equal(await countNamed('C001', 'dropped.json'), 0);
});

test('a .filepart upload is resumed with REST, then processed once after RNFR/RNTO', async () => {
  const body = Buffer.from(JSON.stringify(order('C001', 'FTP-PART')));
  const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await client.uploadFrom(Readable.from([body.subarray(0, 25)]), '/ordini/grande.json.filepart');
    assert.ok((await client.list('/ordini')).some((f) => f.name === 'grande.json.filepart' && f.size === 25));
    await client.appendFrom(Readable.from([body.subarray(25)]), '/ordini/grande.json.filepart');
    assert.equal(await countNamed('C001', 'grande.json'), 0);
    await client.rename('/ordini/grande.json.filepart', '/ordini/grande.json');
    const s = await h.processed('C001', 'grande.json');
    assert.equal(s.outcome?.esito, 'ok');
    assert.deepEqual(s.raw, body);
    assert.equal(await countNamed('C001', 'grande.json'), 1);
    assert.ok(!(await client.list('/ordini')).some((f) => f.name.endsWith('.filepart')));
    // A temporary file can be deleted (a client giving up), and then it is gone without a trace.
    await client.uploadFrom(Readable.from([body]), '/ordini/abbandonato.json.part');
    await client.remove('/ordini/abbandonato.json.part');
    assert.ok(!(await client.list('/ordini')).some((f) => f.name.startsWith('abbandonato')));
    assert.equal(await countNamed('C001', 'abbandonato'), 0);
  } finally {
    client.close();
  }
});

test('hostile paths, deletes, renames and folders are refused with 55x and a clear message', async () => {
  const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    // RETR answers 551 (ftp-srv's choice), everything else 550.
    const refused = async (fn: () => Promise<unknown>, re: RegExp) => {
      await assert.rejects(fn(), (e: Error & { code?: number }) => (e.code === 550 || e.code === 551) && re.test(e.message));
    };
    const up = (remote: string) => () => client.uploadFrom(Readable.from([Buffer.from('x')]), remote);
    await refused(() => ftpDownload(client, '../etc/passwd'), /fuori dalla cartella/);
    await refused(() => ftpDownload(client, '/ordini/../../etc/passwd'), /fuori dalla cartella/);
    await refused(() => ftpDownload(client, '..\\..\\etc\\passwd'), /"\\"/);
    await refused(() => ftpDownload(client, '/etc/passwd'), /inesistente/);
    await refused(up('/etc/passwd'), /caricare gli ordini nella cartella \/ordini\//);
    await refused(up('/x.json'), /cartella \/ordini\//);
    await refused(up('/ordini/elaborati/x.json'), /cartella \/ordini\//);
    await refused(() => client.remove('/ordini/elaborati/export.csv'), /non si possono cancellare/);
    await refused(() => client.rename('/ordini/elaborati/export.csv', '/ordini/x.csv'), /non si possono cancellare né rinominare/);
    await refused(() => client.send('MKD /ordini/nuova'), /cartelle/);
    await assert.rejects(client.send('PORT 127,0,0,1,4,1'), (e: Error & { code?: number }) => e.code === 502);
    assert.deepEqual((await client.list('/')).map((f) => f.name), ['ordini']);
    assert.equal(await client.pwd(), '/');
  } finally {
    client.close();
  }
});

test('another customer sees only its own files', async () => {
  const client = await ftpClient(h.ftpPort, c2.ftpUser, c2.ftpPassword);
  try {
    assert.deepEqual(await client.list('/ordini/elaborati'), []);
    await assert.rejects(ftpDownload(client, '/ordini/elaborati/export.csv'), (e: Error & { code?: number }) => e.code === 551 || e.code === 550);
  } finally {
    client.close();
  }
});

test('a wrong password is refused with 530', async () => {
  await assert.rejects(ftpClient(h.ftpPort, c1.ftpUser, 'sbagliata'), (e: Error & { code?: number }) => e.code === 530 && /Utente o password errati/.test(e.message));
});
