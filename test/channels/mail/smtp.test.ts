// The e-mail channel end to end over real SMTP: messages sent with nodemailer (and curl) to the service's server on
// an ephemeral port, replies captured by a test SMTP sink standing in for the relay.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { spawn } from 'node:child_process';
import type { ParsedMail } from 'mailparser';
import { SQLITE_FILE_NAME } from '../../../src/store/open.ts';
import { openSqliteStore } from '../../../src/store/sqlite/store.ts';
import { order, waitFor, type TestCustomer } from '../../helpers/service.ts';
import { converse, received, startMail, startSink, type Captured, type MailHarness, type Sink } from './helpers.ts';
import { makeZip } from './zip-writer.ts';

interface EsitoJson {
  esito: string;
  file: { file: string; esito: string; ordini: { esito: string; numero_ordine?: string; riferimento_ordine?: string; errori?: { campo: string; messaggio: string }[]; message?: string[] }[] }[];
}

function esitoJson(p: ParsedMail): EsitoJson {
  const a = p.attachments.find((x) => x.filename === 'esito.json');
  assert.ok(a, 'the reply carries esito.json');
  return JSON.parse(a.content.toString('utf8')) as EsitoJson;
}

const json = (o: unknown) => JSON.stringify(o);

void describe('e-mail channel over SMTP', () => {
  let h: MailHarness;
  let sink: Sink;
  let c1: TestCustomer;
  let c2: TestCustomer;

  before(async () => {
    sink = await startSink();
    h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url, INTAKE_MAX_MAIL_BYTES: String(256 * 1024) } });
    c1 = await h.t.customer('C001');
    c2 = await h.t.customer('C002');
  });

  after(async () => {
    await h?.close();
    await sink?.close();
  });

  const replyTo = (subject: string) => (m: Captured) => m.parsed.subject?.startsWith(`Re: ${subject} [`) ?? false;

  void it('accepts a JSON attachment and replies with the order number, threaded and marked automatic', async () => {
    const info = await h.send({
      to: c1.mailbox, subject: 'Ordine JSON', text: 'In allegato il nostro ordine.', messageId: '<ordine-json@cliente.it>',
      attachments: [{ filename: 'ordine.json', content: json(order('C001', 'M-JSON-1')), contentType: 'application/json' }],
    });
    assert.match(info.response, /^250 /);
    const r = await received(sink, replyTo('Ordine JSON'));
    assert.equal(r.mailFrom, '', 'replies go out with the null sender');
    assert.deepEqual(r.rcptTo, ['mario@cliente.it']);
    assert.match(r.parsed.subject ?? '', /\[esito: OK, 1 ordine accettato\]$/);
    assert.equal(r.parsed.inReplyTo, '<ordine-json@cliente.it>');
    assert.equal(r.parsed.references, '<ordine-json@cliente.it>');
    assert.equal(r.parsed.headers.get('auto-submitted'), 'auto-replied');
    assert.equal(r.parsed.from?.value[0]?.address, c1.mailbox);
    const numero = (await h.t.service.store.getOrderByRef((await h.t.service.store.getCustomerByCode('C001'))!.id, 'M-JSON-1'))?.numero_ordine;
    assert.match(numero ?? '', /^\d{4}-\d{6}$/);
    assert.match(r.parsed.text ?? '', new RegExp(`Ordine 1 \\(riferimento M-JSON-1\\): registrato con numero ${numero}`));
    assert.match(r.parsed.html || '', new RegExp(`registrato con numero ${numero}`));
    const e = esitoJson(r.parsed);
    assert.equal(e.esito, 'ok');
    assert.deepEqual(e.file.map((f) => [f.file, f.ordini[0]?.numero_ordine]), [['ordine.json', numero]]);

    const m = await h.finished('C001', 'Ordine JSON');
    assert.equal(m.envelopeFrom, 'mario@cliente.it');
    assert.deepEqual(m.recipients, [c1.mailbox]);
    assert.equal(m.result?.esito, 'ok');
    const sub = await h.t.service.store.getSubmission(m.result!.submissions[0]!);
    assert.equal(sub?.channel, 'email');
    assert.equal(sub?.fileName, 'ordine.json');
    assert.equal(sub?.meta.mail_id, m.id);
    assert.equal(sub?.meta.message_id, '<ordine-json@cliente.it>');
  });

  void it('judges XML, CSV (Windows-1252, encoded name) and the files of a ZIP in one message, and lists them all', async () => {
    const xml = `<?xml version="1.0"?><ordine><codice_cliente>C001</codice_cliente><riferimento_ordine>M-XML-1</riferimento_ordine>
      <data_ordine>2026-11-20</data_ordine><righe><riga><codice_articolo>BV-STD</codice_articolo><quantita>100</quantita>
      <unita_misura>PZ</unita_misura></riga></righe></ordine>`;
    const csv = Buffer.from('codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura\r\nC001;M-CSV-è;2026-11-20;VOL-A4;2,5;PZ\r\n', 'latin1');
    const zip = makeZip([
      { name: 'a.json', data: json(order('C001', 'M-ZIP-1')) },
      { name: 'b.json', data: json([order('C001', 'M-ZIP-2'), order('C001', 'M-ZIP-3')]) },
    ]);
    await h.send({
      to: c1.mailbox, subject: 'Ordini vari',
      attachments: [
        { filename: 'ordine.xml', content: xml, contentType: 'application/xml' },
        { filename: 'perché.csv', content: csv, contentType: 'text/csv; charset=windows-1252' },
        { filename: 'archivio.zip', content: zip, contentType: 'application/zip' },
        { filename: 'logo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]), contentType: 'image/png' },
      ],
    });
    const r = await received(sink, replyTo('Ordini vari'));
    assert.match(r.parsed.subject ?? '', /\[esito: OK, 5 ordini accettati\]$/);
    const e = esitoJson(r.parsed);
    assert.deepEqual(e.file.map((f) => [f.file, f.ordini.map((o) => o.riferimento_ordine)]), [
      ['ordine.xml', ['M-XML-1']], ['perché.csv', ['M-CSV-è']], ['archivio.zip / a.json', ['M-ZIP-1']],
      ['archivio.zip / b.json', ['M-ZIP-2', 'M-ZIP-3']],
    ]);
    assert.ok(e.file.every((f) => f.ordini.every((o) => /^\d{4}-\d{6}$/.test(o.numero_ordine ?? ''))));
    assert.match(r.parsed.text ?? '', /Allegati ignorati .*: logo\.png/);
  });

  void it('explains what to send when a message has no order file', async () => {
    await h.send({ to: c1.mailbox, subject: 'Solo testo', text: 'Vorrei ordinare 500 biglietti da visita.' });
    const r = await received(sink, replyTo('Solo testo'));
    assert.match(r.parsed.subject ?? '', /\[esito: nessun file d'ordine trovato\]$/);
    assert.match(r.parsed.text ?? '', /non abbiamo trovato nessun file d'ordine/);
    assert.match(r.parsed.text ?? '', /in formato JSON, XML, CSV o Excel/);
    assert.ok(r.parsed.text?.includes(c1.mailbox), 'the reply says where to send orders');
    assert.equal(r.parsed.attachments.length, 0);
    assert.equal((await h.finished('C001', 'Solo testo')).result?.esito, 'nessun_ordine');
  });

  void it('reports each error of an invalid order as campo/messaggio, and refuses another customer\'s code', async () => {
    const bad = order('C001', 'M-BAD-1', { righe: [{ codice_articolo: 'NON-ESISTE', quantita: 1, unita_misura: 'PZ' }] });
    const shapeless = { codice_cliente: 42, riferimento_ordine: 'M-BAD-2', data_ordine: '2026-11-20', righe: [] };
    await h.send({
      to: c1.mailbox, subject: 'Ordini sbagliati',
      attachments: [{ filename: 'ordini.json', content: json([bad, shapeless, order('C002', 'M-OTHER-1')]) }],
    });
    const r = await received(sink, replyTo('Ordini sbagliati'));
    assert.match(r.parsed.subject ?? '', /\[esito: ERRORE, 0 ordini accettati, 3 ordini con errori\]$/);
    const [o1, o2, o3] = esitoJson(r.parsed).file[0]!.ordini;
    assert.deepEqual(o1?.errori?.map((x) => x.campo), ['righe[0].codice_articolo']);
    assert.ok(o2?.message?.includes('codice_cliente must be a string'));
    assert.ok(o2?.message?.includes('righe must contain at least 1 elements'));
    assert.equal(o3?.esito, 'errore');
    assert.match(r.parsed.text ?? '', /Ordine 1, riga 1: articolo sconosciuto: "NON-ESISTE"/);
    assert.match(r.parsed.text ?? '', /NON registrato/);
    const c2id = (await h.t.service.store.getCustomerByCode('C002'))!.id;
    assert.equal(await h.t.service.store.getOrderByRef(c2id, 'M-OTHER-1'), undefined, 'the other customer\'s order is not registered');
  });

  void it('refuses unknown recipients at RCPT TO and stores nothing', async () => {
    const before = (await h.t.service.store.listMailMessages({})).length;
    await assert.rejects(
      h.send({ to: 'c001-nonesiste@ordini.test', subject: 'Sbagliato', attachments: [{ filename: 'o.json', content: '{}' }] }),
      (e: { responseCode?: number; response?: string }) => e.responseCode === 550 && /5\.1\.1 .*no such order mailbox/.test(e.response ?? ''),
    );
    assert.equal((await h.t.service.store.listMailMessages({})).length, before);
  });

  void it('stores a message for mailboxes of two customers once per customer, each judged as its own', async () => {
    const info = await h.send({
      to: [c1.mailbox, c2.mailbox], cc: 'sconosciuto@ordini.test', subject: 'Per due',
      attachments: [{ filename: 'o.json', content: json(order('C001', 'M-TWO-1')) }],
    });
    assert.deepEqual(info.rejected, ['sconosciuto@ordini.test'], 'the unknown recipient is refused, the message goes to the others');
    assert.match(info.response, /^250 2\.0\.0 Stored as \S+ \S+$/, 'stored twice, once per customer');
    const r1 = await received(sink, (m) => replyTo('Per due')(m) && m.parsed.from?.value[0]?.address === c1.mailbox);
    const r2 = await received(sink, (m) => replyTo('Per due')(m) && m.parsed.from?.value[0]?.address === c2.mailbox);
    assert.equal(esitoJson(r1.parsed).esito, 'ok');
    assert.equal(esitoJson(r2.parsed).file[0]?.ordini[0]?.esito, 'errore', 'C002 may not order for C001');
    assert.deepEqual((await h.finished('C002', 'Per due')).recipients, [c2.mailbox]);
  });

  void it('processes a bounce and automatic mail but never replies to them', async () => {
    const t0 = sink.messages.length;
    const bounce = h.send({
      envelope: { from: '', to: [c1.mailbox] }, to: c1.mailbox, subject: 'Undelivered Mail',
      attachments: [{ filename: 'o.json', content: json(order('C001', 'M-BOUNCE-1')) }],
    });
    await bounce;
    await h.send({ to: c1.mailbox, subject: 'Risposta automatica', headers: { 'Auto-Submitted': 'auto-replied' }, text: 'Sono in ferie.' });
    const m1 = await h.finished('C001', 'Undelivered Mail');
    const m2 = await h.finished('C001', 'Risposta automatica');
    assert.equal(m1.envelopeFrom, '');
    assert.match(m1.result?.noReply ?? '', /null sender/);
    assert.match(m2.result?.noReply ?? '', /Auto-Submitted/);
    const c1id = (await h.t.service.store.getCustomerByCode('C001'))!.id;
    assert.ok(await h.t.service.store.getOrderByRef(c1id, 'M-BOUNCE-1'), 'the orders of a bounce are still registered');
    // Replies queued after these two would show up in the sink; a message sent now is answered, these are not.
    await h.send({ to: c1.mailbox, subject: 'Dopo i robot', text: 'ciao' });
    await received(sink, replyTo('Dopo i robot'));
    assert.equal(sink.messages.slice(t0).filter((m) => /Undelivered|automatica/.test(m.parsed.subject ?? '')).length, 0);
  });

  void it('announces the size limit and refuses a message over it, from a client that ignores SIZE too', async () => {
    const big = Buffer.alloc(300 * 1024, 0x61).toString('utf8').replace(/(.{76})/g, '$1\r\n');
    const replies = await converse(h.smtpPort, [
      'EHLO client.test\r\n', 'MAIL FROM:<mario@cliente.it>\r\n', `RCPT TO:<${c1.mailbox}>\r\n`, 'DATA\r\n',
      `Subject: Troppo grande\r\n\r\n${big}\r\n.\r\n`, 'QUIT\r\n',
    ]);
    assert.match(replies[1]!, /^250[- ]SIZE 262144\r$/m, 'the limit is announced');
    assert.match(replies[5]!, /^552 5\.3\.4 Message too big/);
    await assert.rejects(h.send({ to: c1.mailbox, subject: 'Troppo grande 2', text: big }), /size|552/i);
    const subjects = await Promise.all((await h.t.service.store.listMailMessages({})).map(async (s) => (await h.t.service.store.getMailMessage(s.id))!.raw.toString('latin1', 0, 200)));
    assert.ok(!subjects.some((s) => s.includes('Troppo grande')), 'nothing of it is stored');
  });

  void it('does not take a bare LF as the end of the data, and refuses the message (SMTP smuggling)', async () => {
    const replies = await converse(h.smtpPort, [
      'EHLO client.test\r\n', 'MAIL FROM:<mario@cliente.it>\r\n', `RCPT TO:<${c1.mailbox}>\r\n`, 'DATA\r\n',
      `Subject: Contrabbando\r\n\r\nciao\n.\nMAIL FROM:<capo@cliente.it>\r\nRCPT TO:<${c1.mailbox}>\r\nDATA\r\nSubject: Nascosto\r\n\r\nx\r\n.\r\n`,
      'QUIT\r\n',
    ]);
    assert.match(replies[4]!, /^354/);
    assert.match(replies[5]!, /^550 5\.6\.0 .*bare LF/, 'one message, refused: the smuggled commands were data');
    assert.match(replies[6]!, /^221/);
    const raws = await Promise.all((await h.t.service.store.listMailMessages({})).map(async (s) => (await h.t.service.store.getMailMessage(s.id))!.raw.toString('latin1')));
    assert.ok(!raws.some((r) => /Contrabbando|Nascosto/.test(r)), 'neither the message nor a smuggled one is stored');
  });

  void it('commits the message before answering 250 (a second connection to the database sees it at once)', async () => {
    const info = await h.send({ to: c1.mailbox, subject: 'Durevole', attachments: [{ filename: 'o.json', content: json(order('C001', 'M-DUR-1')) }] });
    const id = /Stored as (\S+)/.exec(info.response)?.[1];
    assert.ok(id, info.response);
    const other = await openSqliteStore(`${h.t.dataDir}/${SQLITE_FILE_NAME}`);
    try {
      assert.match((await other.getMailMessage(id))?.raw.toString('utf8') ?? '', /Subject: Durevole/);
    } finally {
      await other.close();
    }
  });

  void it('takes a message uploaded by curl over smtp://', async () => {
    const message = [
      'From: Ufficio <ufficio@cliente.it>', `To: ${c1.mailbox}`, 'Subject: Da curl', 'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="x"', '', '--x', 'Content-Type: text/plain', '', 'ordine allegato', '--x',
      'Content-Type: application/json', 'Content-Disposition: attachment; filename="curl.json"', '',
      json(order('C001', 'M-CURL-1')), '--x--', '',
    ].join('\r\n');
    const out = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const p = spawn('curl', ['-sS', '--url', `smtp://127.0.0.1:${h.smtpPort}`, '--mail-from', 'ufficio@cliente.it', '--mail-rcpt', c1.mailbox, '-T', '-']);
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      p.on('error', reject);
      p.on('close', (code) => resolve({ code, stderr }));
      p.stdin.end(message);
    });
    assert.equal(out.code, 0, out.stderr);
    const r = await received(sink, replyTo('Da curl'));
    assert.deepEqual(r.rcptTo, ['ufficio@cliente.it']);
    assert.equal(esitoJson(r.parsed).esito, 'ok');
    await waitFor(async () => (await h.finished('C001', 'Da curl')).result?.esito === 'ok' || undefined, 5_000, 'the curl message');
  });
});

void describe('e-mail channel when the database fails', () => {
  void it('answers 451 (try again later), never 250, when the message cannot be stored', async () => {
    const h = await startMail();
    try {
      const c = await h.t.customer('C001');
      // The database goes away between RCPT and the end of the data: the sender must keep the message and retry.
      const replies = await converse(h.smtpPort, [
        'EHLO client.test\r\n', 'MAIL FROM:<mario@cliente.it>\r\n', `RCPT TO:<${c.mailbox}>\r\n`, 'DATA\r\n',
        () => h.t.service.store.close(), 'Subject: Mai salvato\r\n\r\nciao\r\n.\r\n',
        'MAIL FROM:<mario@cliente.it>\r\n', `RCPT TO:<${c.mailbox}>\r\n`, 'QUIT\r\n',
      ]);
      assert.match(replies[3]!, /^250/, 'the recipient is known while the database answers');
      assert.match(replies[4]!, /^354/);
      assert.match(replies[5]!, /^451 4\.3\.0 The message could not be stored/);
      assert.match(replies[7]!, /^451 4\.3\.0 Temporary failure/, 'a recipient that cannot be looked up is deferred, not refused');
    } finally {
      await h.close();
    }
  });
});
