// Each line of a CSV order remembers its row in the file (from 1, the header counted, blank rows counted), whichever
// way the file is read: whole, or in pieces by csv-parse (quotes) or by the unquoted splitter.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CsvOrderReader, fileRowsOf } from '../../../src/intake/formats/index.ts';

const CSV = [
  'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura',
  '',
  'C001;R1;2026-01-01;A;1;PZ',
  'C001;R2;2026-01-01;B;x;PZ',
  ';;;;;',
  'C001;R1;2026-01-01;C;2;PZ',
].join('\r\n') + '\r\n';

function rows(text: string, chunkBytes?: number): (number[] | undefined)[] {
  const reader = CsvOrderReader.open({ raw: Buffer.from(text), fileName: 'a.csv' }, chunkBytes ? { chunkBytes } : {});
  return [...reader.orders()].map(fileRowsOf);
}

void describe('CSV file rows', () => {
  void it('are the rows a spreadsheet shows, for the file read whole or in pieces, quoted or not', () => {
    for (const text of [CSV, CSV.replace('B;x', '"B";x'), CSV.replace(/\r\n/g, '\n')]) {
      for (const size of [undefined, 5, 16]) assert.deepEqual(rows(text, size), [[3, 6], [4]], `${JSON.stringify(text)} in pieces of ${size}`);
    }
  });

  void it('are kept for a file of several pieces whose records all end in the last one (one quoted cell across them)', () => {
    const text = `${CSV.split('\r\n')[0]}\r\nC001;R9;2026-01-01;"${'x'.repeat(40)}";1;PZ\r\n`;
    assert.equal(text.length, 153);
    assert.deepEqual(rows(text, 80), [[2]], "the header and the row both end in the second piece");
  });

  void it('stay out of the candidate\'s own fields (JSON and equality see the order only)', () => {
    const [first] = [...CsvOrderReader.open({ raw: Buffer.from(CSV), fileName: 'a.csv' }).orders()];
    assert.deepEqual(Object.keys(first as object), ['codice_cliente', 'riferimento_ordine', 'data_ordine', 'righe']);
  });
});
