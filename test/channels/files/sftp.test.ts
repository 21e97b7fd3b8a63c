/**
 * The SFTP channel end to end: real server on an ephemeral port, real clients (OpenSSH sftp, curl, ssh2).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { waitFor } from '../../helpers/service.ts';
import { curl, order, p, sftpBatch, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';
import type { TestCustomer } from '../../helpers/service.ts';

let h: FilesHarness;
let c1: TestCustomer;
let c2: TestCustomer;
let work: string;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
  c2 = await h.t.customer('C002');
  work = path.join(h.t.dataDir, 'client');
  await import('node:fs').then((fs) => fs.mkdirSync(work));
});
after(() => h.close());

const STATUS = { NO_SUCH_FILE: 2, PERMISSION_DENIED: 3, FAILURE: 4 };

function codeOf(err: unknown): number | undefined {
  return (err as { code?: number }).code;
}

test('a large CSV file is acknowledged before it is judged, and the session is served while it is', async () => {
  const count = 10_000;
  const lines = ['codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura'];
  for (let i = 0; i < count; i++) lines.push(`C001;GRANDE-${i};2026-11-20;BV-STD;${i + 1};PZ`);
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await p((cb) => sftp.writeFile('/ordini/grande.csv', lines.join('\n'), cb));
    const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
    const state = async () => (await h.t.service.store.listSubmissions({ customerId: customer.id, limit: 1000 })).find((x) => x.fileName === 'grande.csv')?.state;
    // Acknowledged means stored, not judged: judging 10,000 orders takes far longer than this round trip.
    assert.equal(await state(), 'received');
    const listed = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini', cb))).map((e) => e.filename);
    assert.ok(listed.includes('grande.csv'), listed.join());
    assert.equal(await state(), 'received', 'the listing was answered while the file was being judged');
    const s = await h.processed('C001', 'grande.csv', 120_000);
    assert.equal(s.outcome?.orders.length, count);
    assert.equal(s.outcome?.esito, 'ok');
  } finally {
    conn.end();
  }
});

test('OpenSSH sftp uploads a JSON order; the outcome files are downloaded from /ordini/esiti', async () => {
  const file = path.join(work, 'ordine-1.json');
  writeFileSync(file, JSON.stringify(order('C001', 'SFTP-1')));
  const up = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, ['cd ordini', `put ${file}`]);
  assert.equal(up.code, 0, up.stderr);
  const s = await h.processed('C001', 'ordine-1.json');
  assert.equal(s.channel, 'sftp');
  assert.equal(s.outcome?.esito, 'ok');
  const numero = s.outcome?.orders[0]?.numero_ordine;
  assert.match(numero ?? '', /^\d{4}-\d{6}$/);

  const out = path.join(work, 'esito-1');
  const get = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, [
    'cd /ordini/esiti', `get ordine-1.json.esito.json ${out}.json`, `get ordine-1.json.esito.txt ${out}.txt`, 'ls /ordini/elaborati',
  ]);
  assert.equal(get.code, 0, get.stderr);
  assert.match(get.stdout, /ordine-1\.json/);
  const json = JSON.parse(readFileSync(`${out}.json`, 'utf8'));
  assert.equal(json.esito, 'ok');
  assert.equal(json.file, 'ordine-1.json');
  assert.equal(json.ordini[0].riferimento_ordine, 'SFTP-1');
  assert.equal(json.ordini[0].numero_ordine, numero);
  assert.match(readFileSync(`${out}.txt`, 'utf8'), new RegExp(`Esito: OK - 1 ordine accettato[\\s\\S]*numero ${numero}`));
});

test('curl uploads XML over sftp:// and downloads the stored file back byte for byte', async () => {
  const xml = Buffer.from(`<?xml version="1.0"?><ordine><codice_cliente>C001</codice_cliente><riferimento_ordine>SFTP-XML</riferimento_ordine>
<data_ordine>2026-11-20</data_ordine><righe><riga><codice_articolo>VOL-A4</codice_articolo><quantita>1000</quantita><unita_misura>PZ</unita_misura></riga></righe></ordine>`);
  const up = await curl(['-T', '-', `sftp://127.0.0.1:${h.sftpPort}/ordini/ordine.xml`], c1.ftpUser, c1.ftpPassword, xml);
  assert.equal(up.code, 0, up.stderr);
  const s = await h.processed('C001', 'ordine.xml');
  assert.equal(s.outcome?.esito, 'ok');
  const down = await curl([`sftp://127.0.0.1:${h.sftpPort}/ordini/elaborati/ordine.xml`], c1.ftpUser, c1.ftpPassword);
  assert.equal(down.code, 0, down.stderr);
  assert.equal(down.stdout, xml.toString());
});

test('a Windows-1252 CSV with several orders: every order is registered and listed in the outcome', async () => {
  const csv = [
    'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura',
    'C001;PERÒ-1;2026-11-20;2026-12-01;BV-STD;500;PZ',
    'C001;PERÒ-1;2026-11-20;2026-12-01;VOL-A4;1000;PZ',
    'C001;PERÒ-2;2026-11-20;2026-12-01;CAR-A4-80;2,5;RS',
    'C001;PERÒ-3;2026-11-20;2026-12-01;BV-STD;100;PZ',
  ].join('\r\n') + '\r\n';
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await p((cb) => sftp.writeFile('/ordini/excel.csv', iconv.encode(csv, 'windows-1252'), cb));
    const s = await h.processed('C001', 'excel.csv');
    assert.equal(s.outcome?.esito, 'ok');
    assert.deepEqual(s.outcome?.orders.map((o) => o.riferimento_ordine), ['PERÒ-1', 'PERÒ-2', 'PERÒ-3']);
    const text = (await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/excel.csv.esito.txt', cb))).toString('utf8');
    assert.match(text, /Esito: OK - 3 ordini accettati/);
    for (const o of s.outcome?.orders ?? []) assert.ok(text.includes(`numero ${o.numero_ordine}`), text);
  } finally {
    conn.end();
  }
});

test('an invalid file lands in scartati and its outcome lists the errors', async () => {
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const bad = [order('C001', 'BAD-1', [{ codice_articolo: 'NON-ESISTE', quantita: 1, unita_misura: 'PZ' }]), { codice_cliente: 7, righe: [] }, order('C001', 'GOOD-1')];
    await p((cb) => sftp.writeFile('/ordini/misto.json', JSON.stringify(bad), cb));
    await p((cb) => sftp.writeFile('/ordini/rotto.csv', 'questo non è un ordine', cb));
    const s = await h.processed('C001', 'misto.json');
    assert.equal(s.outcome?.esito, 'errore');
    await h.processed('C001', 'rotto.csv');
    const scartati = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini/scartati', cb))).map((e) => e.filename);
    assert.ok(scartati.includes('misto.json') && scartati.includes('rotto.csv'), scartati.join());
    const json = JSON.parse((await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/misto.json.esito.json', cb))).toString());
    assert.equal(json.esito, 'errore');
    assert.equal(json.ordini[0].esito, 'errore');
    assert.equal(json.ordini[0].errori[0].campo, 'righe[0].codice_articolo');
    assert.ok(json.ordini[1].message.some((m: string) => /codice_cliente must be a string/.test(m)), JSON.stringify(json.ordini[1]));
    assert.equal(json.ordini[2].esito, 'ok');
    assert.match(json.ordini[2].numero_ordine, /^\d{4}-\d{6}$/);
    const text = (await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/rotto.csv.esito.txt', cb))).toString();
    assert.match(text, /ERRORE - il file non è stato elaborato/);
  } finally {
    conn.end();
  }
});

test('the same file twice: both receipts kept, the second says duplicate and "già ricevuto"', async () => {
  const body = JSON.stringify(order('C001', 'TWICE-1'));
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await p((cb) => sftp.writeFile('/ordini/twice.json', body, cb));
    const first = await h.processed('C001', 'twice.json');
    await p((cb) => sftp.writeFile('/ordini/twice.json', body, cb));
    const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
    const both = await waitFor(async () => {
      const l = (await h.t.service.store.listSubmissions({ customerId: customer.id, limit: 100 })).filter((x) => x.fileName === 'twice.json');
      return l.length === 2 && l.every((x) => x.state === 'processed') ? l : undefined;
    });
    assert.equal(both.length, 2);
    const names = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini/esiti', cb))).map((e) => e.filename);
    const older = names.find((n) => /^twice\.\d{8}-\d{6}(-\d+)?\.json\.esito\.json$/.test(n));
    assert.ok(older, names.join());
    const latest = JSON.parse((await p<Buffer>((cb) => sftp.readFile('/ordini/esiti/twice.json.esito.json', cb))).toString());
    assert.equal(latest.ordini[0].duplicato, true);
    assert.equal(latest.ordini[0].numero_ordine, first.outcome?.orders[0]?.numero_ordine);
    assert.equal(latest.gia_ricevuto_il, first.receivedAt);
  } finally {
    conn.end();
  }
});

test('an upload cut before CLOSE is discarded and never processed', async () => {
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  const handle = await p<Buffer>((cb) => sftp.open('/ordini/cut.json', 'w', cb));
  const part = Buffer.from(JSON.stringify(order('C001', 'CUT-1')).slice(0, 30));
  await p((cb) => sftp.write(handle, part, 0, part.length, 0, cb));
  const uploads = path.join(h.t.dataDir, 'spool', 'uploads');
  assert.equal(readdirSync(uploads).length, 1, 'the upload is in the spool while it arrives');
  conn.end();
  await waitFor(() => (readdirSync(uploads).length === 0 ? true : undefined), 10_000, 'spool emptied');
  await h.t.service.intake.idle();
  const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
  const all = await h.t.service.store.listSubmissions({ customerId: customer.id, limit: 1000 });
  assert.equal(all.filter((s) => s.fileName === 'cut.json').length, 0);
});

test('a .part file waits in /ordini and is processed once, after the rename only', async () => {
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const body = JSON.stringify(order('C001', 'PART-1'));
    await p((cb) => sftp.writeFile('/ordini/lungo.json.part', body.slice(0, 20), cb));
    // Resume: append the rest without truncating, as WinSCP does.
    const hd = await p<Buffer>((cb) => sftp.open('/ordini/lungo.json.part', 'r+', cb));
    const rest = Buffer.from(body.slice(20));
    await p((cb) => sftp.write(hd, rest, 0, rest.length, 20, cb));
    await p((cb) => sftp.close(hd, cb));
    const inbox = (await p<{ filename: string; attrs: { size: number } }[]>((cb) => sftp.readdir('/ordini', cb)));
    const part = inbox.find((e) => e.filename === 'lungo.json.part');
    assert.equal(part?.attrs.size, Buffer.byteLength(body));
    const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
    const count = async () => (await h.t.service.store.listSubmissions({ customerId: customer.id, limit: 1000 })).filter((s) => s.fileName?.startsWith('lungo.json')).length;
    assert.equal(await count(), 0);
    await p((cb) => sftp.rename('/ordini/lungo.json.part', '/ordini/lungo.json', cb));
    const s = await h.processed('C001', 'lungo.json');
    assert.equal(s.outcome?.esito, 'ok');
    assert.equal(s.raw.toString(), body);
    assert.equal(await count(), 1);
    const after = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini', cb))).map((e) => e.filename);
    assert.ok(!after.includes('lungo.json.part'));
    await assert.rejects(p((cb) => sftp.rename('/ordini/lungo.json.part', '/ordini/lungo.json', cb)), (e) => codeOf(e) === STATUS.NO_SUCH_FILE);
  } finally {
    conn.end();
  }
});

test('hostile paths and forbidden operations get clear refusals', async () => {
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const denied = (e: unknown) => codeOf(e) === STATUS.PERMISSION_DENIED;
    const missing = (e: unknown) => codeOf(e) === STATUS.NO_SUCH_FILE;
    await assert.rejects(p((cb) => sftp.readFile('../etc/passwd', cb)), denied);
    await assert.rejects(p((cb) => sftp.readFile('/ordini/../../etc/passwd', cb)), denied);
    await assert.rejects(p((cb) => sftp.readFile('..\\..\\etc\\passwd', cb)), denied);
    await assert.rejects(p((cb) => sftp.readFile('/etc/passwd', cb)), missing);
    await assert.rejects(p((cb) => sftp.writeFile('/etc/passwd', 'x', cb)), denied);
    await assert.rejects(p((cb) => sftp.writeFile('/x.json', 'x', cb)), denied);
    await assert.rejects(p((cb) => sftp.writeFile('/ordini/elaborati/x.json', 'x', cb)), denied);
    await assert.rejects(p((cb) => sftp.writeFile('/ordini/esiti', 'x', cb)), denied);
    await assert.rejects(p((cb) => sftp.writeFile('/ordini/a\u0001b.json', 'x', cb)), denied);
    await assert.rejects(p((cb) => sftp.mkdir('/ordini/nuova', cb)), denied);
    await assert.rejects(p((cb) => sftp.rmdir('/ordini/elaborati', cb)), denied);
    await assert.rejects(p((cb) => sftp.symlink('/ordini/elaborati', '/ordini/link', cb)), denied);
    await assert.rejects(p((cb) => sftp.unlink('/ordini/elaborati/ordine-1.json', cb)), denied);
    await assert.rejects(p((cb) => sftp.rename('/ordini/elaborati/ordine-1.json', '/ordini/x.json', cb)), denied);
    const root = (await p<{ filename: string }[]>((cb) => sftp.readdir('/', cb))).map((e) => e.filename);
    assert.deepEqual(root, ['ordini']);
    assert.equal(await p<string>((cb) => sftp.realpath('.', cb)), '/');
  } finally {
    conn.end();
  }
});

test('another customer sees only its own tree', async () => {
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c2.ftpUser, c2.ftpPassword);
  try {
    await p((cb) => sftp.writeFile('/ordini/c2.json', JSON.stringify(order('C002', 'C2-1')), cb));
    await h.processed('C002', 'c2.json');
    const mine = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini/elaborati', cb))).map((e) => e.filename);
    assert.deepEqual(mine, ['c2.json']);
    await assert.rejects(p((cb) => sftp.readFile('/ordini/elaborati/ordine-1.json', cb)), (e) => codeOf(e) === STATUS.NO_SUCH_FILE);
    await assert.rejects(p((cb) => sftp.readFile('/ordini/esiti/ordine-1.json.esito.json', cb)), (e) => codeOf(e) === STATUS.NO_SUCH_FILE);
  } finally {
    conn.end();
  }
  // An order naming another customer's code, uploaded with C002's login, is refused.
  const { sftp: s2, conn: c } = await ssh2Sftp(h.sftpPort, c2.ftpUser, c2.ftpPassword);
  try {
    await p((cb) => s2.writeFile('/ordini/altrui.json', JSON.stringify(order('C001', 'NOT-MINE')), cb));
    const s = await h.processed('C002', 'altrui.json');
    assert.equal(s.outcome?.esito, 'errore');
  } finally {
    c.end();
  }
});

test('a wrong password is refused', async () => {
  await assert.rejects(ssh2Sftp(h.sftpPort, c1.ftpUser, 'sbagliata'), /authentication methods failed/i);
  const r = await sftpBatch(h.sftpPort, c1.ftpUser, 'sbagliata', ['ls']);
  assert.notEqual(r.code, 0);
});
