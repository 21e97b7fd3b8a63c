/**
 * An order whose code holds half of a UTF-16 surrogate pair (a JSON escape "\ud83c" left by an exporter that cut a
 * string inside an emoji, or UTF-16 text with a broken pair) is refused at stage A, as a NUL is, and the other orders
 * of the file are registered: on PostgreSQL the outcome quoting it could not be stored, which left the whole file
 * unprocessed, retried for ever, its sender never told.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { order, type TestCustomer } from '../../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';
import { curl, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness | undefined;
let c1: TestCustomer;
let drop: (() => Promise<void>) | undefined;

before(async () => {
  if (PG_SKIP) return;
  const schema = await createSchema(testDatabaseUrl!, 'files_surrogate');
  drop = () => schema.drop();
  h = await startFiles({ INTAKE_DATABASE_URL: schema.url });
  c1 = await h.t.customer('C001');
});
after(async () => {
  await h?.close();
  await drop?.();
});

test('half a surrogate pair in a JSON or UTF-16 XML file refuses that order only, with an outcome file, on PostgreSQL', { skip: PG_SKIP }, async () => {
  const bad = '{"codice_cliente":"C001","riferimento_ordine":"EMOJI-\\ud83c","data_ordine":"2026-11-20","data_consegna":"2026-12-01",'
    + '"righe":[{"codice_articolo":"BV-STD","quantita":1,"unita_misura":"PZ"}]}';
  const good = JSON.stringify(order('C001', 'EMOJI-OK'));
  const json = await curl(['-T', '-', `sftp://127.0.0.1:${h!.sftpPort}/ordini/mezza.json`], c1.ftpUser, c1.ftpPassword, Buffer.from(`[${bad},${good}]`));
  assert.equal(json.code, 0, json.stderr);
  // A UTF-16 XML file whose first reference ends in half a pair (broken UTF-16).
  const xmlOrder = (ref: string) => `<ordine><codice_cliente>C001</codice_cliente><riferimento_ordine>${ref}</riferimento_ordine>`
    + '<data_ordine>2026-11-20</data_ordine><righe><riga><codice_articolo>BV-STD</codice_articolo><quantita>1</quantita>'
    + '<unita_misura>PZ</unita_misura></riga></righe></ordine>';
  const xml = `<?xml version="1.0" encoding="UTF-16"?><ordini>${xmlOrder('XML-\ud83c')}${xmlOrder('XML-OK')}</ordini>`;
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
  const up = await curl(['-T', '-', `sftp://127.0.0.1:${h!.sftpPort}/ordini/mezza.xml`], c1.ftpUser, c1.ftpPassword, utf16);
  assert.equal(up.code, 0, up.stderr);

  // Not JSON at all where a value should be: V8 names the unexpected token, here half of 🚚.
  const syntax = await curl(['-T', '-', `sftp://127.0.0.1:${h!.sftpPort}/ordini/camion.json`], c1.ftpUser, c1.ftpPassword,
    Buffer.from('{"codice_cliente": "C001", "riferimento_ordine": 🚚}'));
  assert.equal(syntax.code, 0, syntax.stderr);
  const unreadable = await h!.processed('C001', 'camion.json', 20_000);
  assert.equal(unreadable.outcome?.fileError?.code, 'NOT_PARSEABLE');
  assert.match(unreadable.outcome?.fileError?.message.join() ?? '', /^body must be valid JSON \(Unexpected token/);

  for (const [file, ok] of [['mezza.json', 'EMOJI-OK'], ['mezza.xml', 'XML-OK']] as const) {
    const s = await h!.processed('C001', file, 20_000);
    assert.deepEqual(s.outcome?.orders.map((o) => o.esito), ['errore', 'ok'], file);
    assert.deepEqual(s.outcome?.orders[0]?.message, ['riferimento_ordine must not contain half of a UTF-16 surrogate pair'], file);
    assert.equal(s.outcome?.orders[1]?.riferimento_ordine, ok);
    const text = await curl([`sftp://127.0.0.1:${h!.sftpPort}/ordini/esiti/${file}.esito.txt`], c1.ftpUser, c1.ftpPassword);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /Ordine 1 \(senza riferimento leggibile\): NON registrato/);
    assert.match(text.stdout, new RegExp(`riferimento ${ok}\\): registrato con numero`));
  }
});
