// The reply e-mail tells a person, in Italian, what is wrong and where: the row of the CSV file, or "ordine N, riga M"
// for JSON; no English stage A text, and another customer's code said once. The esito.json attachment (for programs)
// keeps the shape A messages as they are. Messages sent with nodemailer to the real SMTP channel, the reply read at
// the test relay.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ParsedMail } from 'mailparser';
import iconv from 'iconv-lite';
import { readFileSync } from 'node:fs';
import type { TestCustomer } from '../../helpers/service.ts';
import { received, startMail, startSink, type Captured, type MailHarness, type Sink } from './helpers.ts';

/** Stage A and decoder wording that must not reach a person. */
const ENGLISH = /must be|should not|must contain|ISO 8601|conforming|does not belong|CSV header|\brighe\.\d|righe\[\d/;

function esitoJson(p: ParsedMail): { file: { ordini: { message?: string[] }[]; errore_file?: { message: string[] } }[] } {
  const a = p.attachments.find((x) => x.filename === 'esito.json');
  assert.ok(a, 'the reply carries esito.json');
  return JSON.parse(a.content.toString('utf8')) as ReturnType<typeof esitoJson>;
}

void describe('reply e-mail errors in Italian', () => {
  let h: MailHarness;
  let sink: Sink;
  let c1: TestCustomer;

  before(async () => {
    sink = await startSink();
    h = await startMail({ env: { INTAKE_SMTP_RELAY: sink.url } });
    c1 = await h.t.customer('C001');
  });
  after(async () => {
    await h?.close();
    await sink?.close();
  });

  const replyTo = (subject: string) => (m: Captured) => m.parsed.subject?.startsWith(`Re: ${subject} [`) ?? false;

  void it('a CSV (Windows-1252, as Excel writes it) with errors: each placed by its row in the file', async () => {
    const csv = [
      'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura',
      'C001;PERÒ-OK;2026-11-20;BV-STD;500;PZ',
      'C001;PERÒ-1;2026-11-20;BV-STD;500;PZ',
      '',
      'C001;PERÒ-2;31/02/2026;BV-STD;100;PZ',
      'C001;PERÒ-1;2026-11-20;VOL-A4;molti;PZ',
      'C001;PERÒ-3;2026-11-20;NON-ESISTE;1;PZ',
      'C002;ALTRUI-1;2026-11-20;BV-STD;1;PZ',
    ].join('\r\n') + '\r\n';
    await h.send({ to: c1.mailbox, subject: 'Ordini CSV', attachments: [{ filename: 'ordini.csv', content: iconv.encode(csv, 'windows-1252'), contentType: 'text/csv' }] });
    const r = await received(sink, replyTo('Ordini CSV'));
    const text = r.parsed.text ?? '';
    assert.match(text, /Ordine 2 \(riferimento PERÒ-1, righe 3 e 6 del file\): NON registrato\n {2}- Riga 6 del file, quantità: «molti» non è un numero\n/);
    // Dates as people write them are read (20/11/2026); a day the calendar lacks is said with the text.
    assert.match(text, /Ordine 3 \(riferimento PERÒ-2, riga 5 del file\): NON registrato\n {2}- Data dell'ordine: «31\/02\/2026» non è una data del calendario/);
    assert.match(text, /- Riga 7 del file: articolo sconosciuto: "NON-ESISTE"/);
    assert.equal(text.match(/ALTRUI-1/g)?.length, 1, text);
    assert.equal(text.match(/Il codice cliente "C002" non corrisponde al cliente autenticato/g)?.length, 1, text);
    assert.doesNotMatch(text, ENGLISH);
    assert.doesNotMatch(r.parsed.html || '', ENGLISH);
    // Programs read the attachment: shape A there, as REST and SOAP give it.
    const [file] = esitoJson(r.parsed).file;
    assert.deepEqual(file?.ordini[1]?.message, ['righe.1.quantita must be a number conforming to the specified constraints']);
  });

  void it('an Excel workbook written by LibreOffice: each error names its cell, in words and in esito.json', async () => {
    const xlsx = readFileSync(new URL('../../fixtures/xlsx/ordini-libreoffice.xlsx', import.meta.url));
    const xls = readFileSync(new URL('../../fixtures/xlsx/ordini-libreoffice.xls', import.meta.url));
    await h.send({ to: c1.mailbox, subject: 'Ordini Excel', attachments: [{ filename: 'ordini.xlsx', content: xlsx }, { filename: 'vecchio.xls', content: xls, contentType: 'application/vnd.ms-excel' }] });
    const r = await received(sink, replyTo('Ordini Excel'));
    const text = r.parsed.text ?? '';
    assert.match(text, /Ordine 1 \(riferimento PO-100, foglio Ordini, righe 5-6\): NON registrato\n {2}- Foglio Ordini, riga 5, colonna Codice articolo: articolo sconosciuto: "00123"/);
    assert.match(text, /Ordine 2 \(riferimento PO-101, foglio Ordini, righe 8-9\): NON registrato\n {2}- Foglio Ordini, riga 9, colonna Quantità: la quantità deve essere maggiore di zero/);
    // An old .xls beside it is not ignored in silence: the reply says how to save it.
    assert.match(text, /vecchio\.xls: è una cartella di lavoro Excel di vecchio formato \(\.xls\), che non è accettata: la salvi come \.xlsx/);
    assert.doesNotMatch(text, ENGLISH);
    const [file] = esitoJson(r.parsed).file as unknown as { ordini: { celle?: unknown; errori?: { campo: string; cella?: string }[] }[] }[];
    assert.deepEqual(file?.ordini[1]?.celle, [{ campo: 'righe[1].quantita', cella: 'Ordini!F9' }]);
    assert.equal(file?.ordini[0]?.errori?.find((e) => e.campo === 'righe[0].codice_articolo')?.cella, 'Ordini!E5');
  });

  void it('a JSON file: lines placed as "ordine N, riga M"; a file that cannot be read, said in Italian', async () => {
    const json = JSON.stringify([
      { codice_cliente: 'C001', riferimento_ordine: 'J-1', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }] },
      { codice_cliente: 'C001', riferimento_ordine: 'J-2', data_ordine: '2026-11-20', righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }, { codice_articolo: '', quantita: 0, unita_misura: 'PZ' }] },
    ]);
    await h.send({
      to: c1.mailbox, subject: 'Ordini JSON',
      attachments: [
        { filename: 'ordini.json', content: json, contentType: 'application/json' },
        { filename: 'intestazione.csv', content: 'codice_cliente;riferimento_ordine;quantita\nC001;X;1\n', contentType: 'text/csv' },
      ],
    });
    const r = await received(sink, replyTo('Ordini JSON'));
    const text = r.parsed.text ?? '';
    assert.match(text, /- Ordine 2, riga 2: manca il codice articolo\n {2}- Ordine 2, riga 2: la quantità deve essere maggiore di zero\n/);
    assert.match(text, /- La riga d'intestazione del CSV deve nominare le colonne .*; mancano: data_ordine, codice_articolo, unita_misura/);
    assert.doesNotMatch(text, ENGLISH);
    assert.match(esitoJson(r.parsed).file[1]?.errore_file?.message[0] ?? '', /^CSV header must name the columns/);
  });
});
