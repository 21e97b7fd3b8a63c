// Reading messages: which attachments are order files (encoded names, ZIPs, PEC envelopes), the ZIP limits that
// stop zip bombs, and when a reply must not be sent. Messages are built by nodemailer's composer, the same code
// many customers' programs use, or written out by hand where a client's oddity is the point.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import MailComposer from 'nodemailer/lib/mail-composer';
import type { Options } from 'nodemailer/lib/mailer';
import { cleanFileName, parseMessage, type ParseOptions } from '../../../src/channels/mail/parse.ts';
import { MAIL_LIMITS } from '../../../src/channels/mail/limits.ts';
import { makeZip } from './zip-writer.ts';

const OPTS: ParseOptions = { maxFileBytes: 1024 * 1024, ownDomain: 'ordini.test' };

function compose(mail: Options): Promise<Buffer> {
  return new MailComposer({ from: 'Mario Rossi <mario@cliente.it>', to: 'c001-abc@ordini.test', subject: 'Ordine', text: 'In allegato.', ...mail })
    .compile().build();
}

function crlf(lines: string[]): Buffer {
  return Buffer.from(lines.join('\r\n') + '\r\n', 'latin1');
}

void describe('order attachments', () => {
  void it('takes JSON, XML and CSV files and ignores everything else', async () => {
    const raw = await compose({
      attachments: [
        { filename: 'ordine.json', content: '{"a":1}', contentType: 'application/json' },
        { filename: 'ordine.XML', content: '<ordine/>', contentType: 'application/octet-stream' },
        // Excel on Windows labels CSV files like this; the name decides.
        { filename: 'righe.csv', content: 'a;b', contentType: 'application/vnd.ms-excel' },
        { filename: 'logo.png', content: Buffer.from([0x89, 0x50]), contentType: 'image/png' },
        { filename: 'condizioni.pdf', content: '%PDF', contentType: 'application/pdf' },
        { content: '{"b":2}', contentType: 'application/json' },
      ],
    });
    const p = await parseMessage(raw, OPTS);
    assert.deepEqual(p.parts.map((x) => [x.idx, x.fileName, x.mediaType, x.raw.toString()]), [
      [0, 'ordine.json', 'application/json', '{"a":1}'],
      // A generic type is replaced by the one the name implies (mailparser), which the core accepts.
      [1, 'ordine.XML', 'application/xml', '<ordine/>'],
      [2, 'righe.csv', undefined, 'a;b'],
      [3, 'attachment-6.json', 'application/json', '{"b":2}'],
    ]);
    assert.deepEqual(p.ignored, ['logo.png', 'condizioni.pdf']);
    assert.deepEqual(p.problems, []);
    assert.equal(p.subject, 'Ordine');
    assert.equal(p.from, 'mario@cliente.it');
    assert.equal(p.replyTo, 'mario@cliente.it');
    assert.equal(p.noReply, undefined);
  });

  void it('decodes file names in RFC 2047 and RFC 2231 encodings, and the declared charset', async () => {
    const raw = crlf([
      'From: ufficio@cliente.it', 'To: c001-abc@ordini.test', 'Subject: =?UTF-8?B?T3JkaW5lIGRpIG5vdmVtYnJl?=',
      'Message-ID: <m1@cliente.it>', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"', '',
      '--b', 'Content-Type: text/plain', '', 'vedi allegati',
      '--b', "Content-Type: application/json; name*=UTF-8''ordine%20n%C2%B0%201.json",
      "Content-Disposition: attachment; filename*0*=UTF-8''ordine%20n%C2%B0;", ' filename*1*=%201%20%E2%82%AC.json',
      'Content-Transfer-Encoding: base64', '', Buffer.from('{"x":1}').toString('base64'),
      '--b', 'Content-Type: text/csv; charset=windows-1252; name="=?ISO-8859-1?Q?perch=E9.csv?="',
      'Content-Disposition: attachment; filename="=?ISO-8859-1?Q?perch=E9.csv?="', '', 'a;b',
      '--b', 'Content-Type: text/csv', 'Content-Disposition: attachment; filename="Export/Ordini/oggi.csv"', '', 'c;d',
      '--b--',
    ]);
    const p = await parseMessage(raw, OPTS);
    assert.deepEqual(p.parts.map((x) => [x.fileName, x.charset]), [['ordine n° 1 €.json', undefined], ['perché.csv', 'windows-1252'], ['oggi.csv', undefined]]);
    assert.equal(p.subject, 'Ordine di novembre');
    assert.equal(p.messageId, '<m1@cliente.it>');
    assert.deepEqual(p.references, ['<m1@cliente.it>']);
  });

  void it('opens ZIP attachments and takes the order files inside', async () => {
    const zip = makeZip([
      { name: 'ordini/uno.json', data: '{"n":1}' },
      { name: 'ordini/', data: '', store: true },
      { name: '__MACOSX/ordini/._uno.json', data: 'x' },
      { name: 'ordini/due.csv', data: 'x;y', store: true },
      { name: 'leggimi.txt', data: 'ciao' },
    ]);
    const p = await parseMessage(await compose({ attachments: [{ filename: 'ordini.zip', content: zip }] }), OPTS);
    assert.deepEqual(p.parts.map((x) => [x.fileName, x.zip, x.raw.toString()]), [['uno.json', 'ordini.zip', '{"n":1}'], ['due.csv', 'ordini.zip', 'x;y']]);
    assert.deepEqual(p.ignored, ['ordini.zip: leggimi.txt']);
  });

  void it('stops zip bombs, oversized, encrypted and broken archives with a reason', async () => {
    // Within the size limit, but a thousand times smaller packed than unpacked: the shape of a zip bomb.
    const bomb = makeZip([{ name: 'bomba.csv', data: Buffer.alloc(450_000, 0x41) }]);
    assert.ok(bomb.length < 1_000, 'the test archive really is a bomb');
    const liar = makeZip([{ name: 'piccolo.json', data: Buffer.alloc(600_000, 0x20), claimedSize: 10 }]);
    const big = makeZip([{ name: 'grande.csv', data: Buffer.from(Array.from({ length: 80_000 }, (_, i) => `${i};riga\n`).join('')) }]);
    const locked = makeZip([{ name: 'segreto.json', data: '{}', encrypted: true }, { name: 'ok.json', data: '{"ok":1}' }]);
    const many = makeZip(Array.from({ length: MAIL_LIMITS.zipEntries + 1 }, (_, i) => ({ name: `f${i}.txt`, data: 'x', store: true })));
    const raw = await compose({
      attachments: [
        { filename: 'bomba.zip', content: bomb }, { filename: 'bugiardo.zip', content: liar }, { filename: 'grande.zip', content: big },
        { filename: 'chiuso.zip', content: locked }, { filename: 'tanti.zip', content: many },
        { filename: 'rotto.zip', content: Buffer.from('PK\u0003\u0004 non proprio') },
      ],
    });
    const p = await parseMessage(raw, { ...OPTS, maxFileBytes: 500_000 });
    assert.deepEqual(p.parts.map((x) => x.fileName), ['ok.json'], 'only the readable file of the encrypted archive is taken');
    assert.equal(p.problems.length, 6, p.problems.join('\n'));
    assert.match(p.problems[0]!, /^bomba\.zip: .*rapporto di compressione/);
    // Inflating stops at the size the header declared: the entry is reported, never inflated to its real size.
    assert.match(p.problems[1]!, /^bugiardo\.zip: piccolo\.json: .*danneggiato/);
    assert.match(p.problems[2]!, /^grande\.zip: .*supera 500000 byte/);
    assert.match(p.problems[3]!, /^chiuso\.zip: segreto\.json: .*password/);
    assert.match(p.problems[4]!, /^tanti\.zip: .*1001 voci/);
    assert.match(p.problems[5]!, /^rotto\.zip: .*danneggiato/);
  });

  void it('takes at most the allowed number of order files from one message', async () => {
    const attachments = Array.from({ length: MAIL_LIMITS.partsPerMessage + 2 }, (_, i) => ({ filename: `o${i}.json`, content: '{}' }));
    const p = await parseMessage(await compose({ attachments }), OPTS);
    assert.equal(p.parts.length, MAIL_LIMITS.partsPerMessage);
    assert.equal(p.problems.length, 2);
    assert.match(p.problems[0]!, /troppi file d'ordine/);
  });

  void it('reads the order inside an Italian PEC envelope and ignores the provider\'s daticert.xml', async () => {
    const inner = await compose({ attachments: [{ filename: 'ordine.json', content: '{"pec":1}' }] });
    const raw = await compose({
      from: 'Per conto di: mario@pec.cliente.it <posta-certificata@pec.provider.it>', replyTo: 'mario@pec.cliente.it',
      subject: 'POSTA CERTIFICATA: Ordine', headers: { 'X-Trasporto': 'posta-certificata' },
      attachments: [
        { filename: 'daticert.xml', content: '<postacert tipo="posta-certificata"/>', contentType: 'application/xml' },
        { filename: 'postacert.eml', content: inner, contentType: 'message/rfc822' },
        { filename: 'smime.p7s', content: 'firma', contentType: 'application/pkcs7-signature' },
      ],
    });
    const p = await parseMessage(raw, OPTS);
    assert.deepEqual(p.parts.map((x) => [x.fileName, x.raw.toString()]), [['ordine.json', '{"pec":1}']]);
    assert.deepEqual(p.ignored.sort(), ['daticert.xml', 'smime.p7s']);
    assert.equal(p.replyTo, 'mario@pec.cliente.it', 'the reply goes to the sender, not to the PEC provider');
  });

  void it('keeps only the last segment of a file name, without control characters', () => {
    assert.equal(cleanFileName('C:\\dati\\ordine\u0007.csv'), 'ordine.csv');
    assert.equal(cleanFileName('../../etc/passwd.json'), 'passwd.json');
    assert.equal(cleanFileName(`${'a'.repeat(300)}.json`).length, 200);
  });
});

void describe('when not to reply', () => {
  const cases: [string, Options, string | undefined, RegExp][] = [
    ['a bounce (null sender)', {}, '', /null sender/],
    ['Auto-Submitted: auto-replied', { headers: { 'Auto-Submitted': 'auto-replied' } }, undefined, /Auto-Submitted/],
    ['Precedence: bulk', { headers: { Precedence: 'bulk' } }, undefined, /Precedence/],
    ['List-Id', { headers: { 'List-Id': '<ordini.lists.cliente.it>' } }, undefined, /mailing-list/],
    ['List-Unsubscribe', { headers: { 'List-Unsubscribe': '<https://cliente.it/u>' } }, undefined, /mailing-list/],
    ['X-Auto-Response-Suppress', { headers: { 'X-Auto-Response-Suppress': 'OOF, AutoReply' } }, undefined, /X-Auto-Response-Suppress/],
    ['a PEC receipt', { headers: { 'X-Ricevuta': 'avvenuta-consegna' } }, undefined, /PEC receipt/],
    ['mail from the service itself', { from: 'c002-xyz@ordini.test' }, undefined, /service itself/],
    ['mail from a robot', { from: 'MAILER-DAEMON@cliente.it' }, undefined, /robot/],
    ['a Return-Path of <> (IMAP)', { headers: { 'Return-Path': '<>' } }, undefined, /null sender/],
  ];
  for (const [what, mail, envelopeFrom, reason] of cases) {
    void it(`does not reply to ${what}, and still reads its orders`, async () => {
      const raw = await compose({ ...mail, attachments: [{ filename: 'o.json', content: '{}' }] });
      const p = await parseMessage(raw, { ...OPTS, envelopeFrom });
      assert.match(p.noReply ?? '', reason);
      assert.equal(p.parts.length, 1);
    });
  }

  void it('replies to Auto-Submitted: no, and to the Reply-To address', async () => {
    const raw = await compose({ replyTo: 'acquisti@cliente.it', headers: { 'Auto-Submitted': 'no' } });
    const p = await parseMessage(raw, { ...OPTS, envelopeFrom: 'mario@cliente.it' });
    assert.equal(p.noReply, undefined);
    assert.equal(p.replyTo, 'acquisti@cliente.it');
  });
});
