// The one Italian wording of errors for people: every stage A message validate.ts can give, and the decoders' file
// errors, are said in Italian; positions are file rows for CSV and "ordine N, riga M" otherwise.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import { decodeOrders } from '../../src/intake/formats/index.ts';
import { validateStructure } from '../../src/intake/validate.ts';
import { errorLine, fileErrorItalian, orderErrorsItalian, orderRows, stageAItalian } from '../../src/render/people-errors.ts';

/** Words of the English messages that must never reach a person. */
const ENGLISH = /\b(must|should|valid|string|number|elements|object|array|contain|header|line|column|file is|encoded)\b/;

const line = { codice_articolo: 'A1', quantita: 1, unita_misura: 'PZ' };
const good = { codice_cliente: 'C001', riferimento_ordine: 'R1', data_ordine: '2026-03-01', righe: [line] };
/** Candidates that give every stage A message validate.ts has. */
const BAD: unknown[] = [
  'not an object',
  {},
  { ...good, codice_cliente: 12, riferimento_ordine: '   ' },
  { ...good, codice_cliente: 'C\u0000', riferimento_ordine: 'R\ud83c' },
  { ...good, riferimento_ordine: 'x'.repeat(65) },
  { ...good, data_ordine: '2026-02-30', data_consegna: '01/03/2026' },
  { ...good, righe: 'x' },
  { ...good, righe: [] },
  { ...good, righe: new Array(100_001).fill(line) },
  { ...good, righe: [line, 'x', { codice_articolo: '', quantita: '1.000', unita_misura: 3 }, { ...line, quantita: -1 }] },
  { ...good, azione: 'sostituisci', motivo: 7 },
];

void describe('people-errors', () => {
  void it('says every stage A message in Italian, naming the field in words', () => {
    const seen = new Set<string>();
    for (const c of BAD) {
      const a = validateStructure(c);
      assert.equal(a.ok, false);
      if (a.ok) continue;
      for (const m of a.messages) {
        const it = stageAItalian(m);
        assert.ok(it, `no Italian for: ${m}`);
        assert.doesNotMatch(it.text, ENGLISH, `English left in "${it.text}" (from ${m})`);
        seen.add(m.replace(/^\S+ /, ''));
      }
    }
    // Every rule of validate.ts was met at least once (a new rule needs a candidate here and a sentence there).
    assert.ok(seen.size >= 12, [...seen].join('\n'));
    assert.deepEqual(stageAItalian("data_ordine must be a valid ISO 8601 date string (YYYY-MM-DD)"),
      { where: '', text: "La data dell'ordine non è una data valida: va scritta come AAAA-MM-GG (per esempio 2026-03-15)" });
    assert.equal(stageAItalian('righe.0.codice_articolo should not be empty')?.text, 'Manca il codice articolo');
    // The free texts (note, a change's reason) keep line breaks and tabs, so their rule says so.
    assert.equal(stageAItalian('motivo must not contain control characters other than line breaks and tabs')?.text,
      'Il motivo contiene caratteri di controllo, che non sono ammessi (solo a capo e tabulazione)');
    assert.equal(stageAItalian('note must be shorter than or equal to 1000 characters')?.text, 'Il testo delle note può avere al massimo 1000 caratteri');
    assert.equal(stageAItalian('azione must be one of the following values: nuovo, modifica, annulla')?.text,
      "L'azione deve essere uno di questi valori: nuovo, modifica, annulla");
  });

  void it('places a line by its CSV file row, or by order and line counted from 1', () => {
    const o = { index: 1, esito: 'errore' as const, message: ['righe.1.quantita must be a number conforming to the specified constraints'] };
    assert.deepEqual(orderErrorsItalian({ ...o, righe_file: [3, 7] }).map(errorLine), ['Riga 7 del file: la quantità deve essere un numero']);
    assert.deepEqual(orderErrorsItalian(o).map(errorLine), ['Ordine 2, riga 2: la quantità deve essere un numero']);
    const b = { index: 0, esito: 'errore' as const, righe_file: [2], errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "X"' }] };
    assert.deepEqual(orderErrorsItalian(b).map(errorLine), ['Riga 2 del file: articolo sconosciuto: "X"']);
    assert.equal(orderRows([2, 3, 4, 9]), 'righe 2-4 e 9 del file');
    assert.equal(orderRows([5]), 'riga 5 del file');
  });

  void it('tells a refused customer code once, in Italian', () => {
    const o = {
      index: 0, esito: 'errore' as const, code: 'FORBIDDEN_CUSTOMER' as const,
      message: ['codice_cliente "C999" does not belong to the authenticated customer'],
      errori: [{ campo: 'codice_cliente', messaggio: 'Il codice cliente "C999" non corrisponde al cliente autenticato' }],
    };
    assert.deepEqual(orderErrorsItalian(o).map(errorLine), ['Il codice cliente "C999" non corrisponde al cliente autenticato']);
  });

  void it('says the decoders\' file errors in Italian, with their details', () => {
    const files: [string, string | Buffer][] = [
      ['a.csv', 'codice_cliente;quantita\nC001;1\n'],
      ['a.csv', 'codice_cliente;codice_cliente;riferimento_ordine\n'],
      ['a.json', '{"codice_cliente": }'],
      ['a.json', '[1]'],
      ['a.json', '{"ordini": 3}'],
      ['a.xml', '<?xml version="1.0"?><!DOCTYPE x><ordine/>'],
      ['a.xml', '<ordine><a></ordine>'],
      ['a.xml', '<fattura/>'],
      ['a.json', '   '],
      ['a.pdf', Buffer.from('%PDF-1.4 xxx')],
      ['a.json', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])],
    ];
    for (const [fileName, body] of files) {
      let error: unknown;
      try {
        decodeOrders({ raw: Buffer.from(body), fileName });
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof IntakeError, `${fileName}: ${String(body)} was read`);
      const [it] = fileErrorItalian(error.code, error.messages);
      assert.ok(it);
      assert.doesNotMatch(it, ENGLISH, `English left in "${it}" (from ${error.messages[0]})`);
      assert.notEqual(it, 'Il file non è leggibile', `no Italian sentence for: ${error.messages[0]}`);
    }
    assert.deepEqual(fileErrorItalian('NOT_PARSEABLE', ['CSV header must name the columns codice_cliente, quantita (data_consegna and note optional); missing: quantita']),
      ["La riga d'intestazione del CSV deve nominare le colonne codice_cliente, quantita (data_consegna e note sono facoltative); mancano: quantita"]);
  });
});
