import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { parserOptions } from '../../../src/intake/formats/csv/stream.ts';
import { unquotedRecords } from '../../../src/intake/formats/csv/unquoted.ts';
import { RECORD_LINE, type LinedRecord } from '../../../src/intake/formats/file-rows.ts';

/** The records of `text` read by unquotedRecords in pieces of `size` bytes, batches joined. */
function split(bytes: Buffer, delimiter: string, size: number): string[][] {
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
  return [...unquotedRecords(pieces, delimiter)].flat();
}

/** A small deterministic generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Everything that matters to the splitting: both delimiters of each kind, every line end, blanks that trim() removes
// (NBSP, BOM, tab), characters of 2, 3 and 4 bytes that chunks cut in the middle.
const ALPHABET = ['a', 'B', '1', ' ', ';', ';', ',', '\t', '\r', '\n', '\r\n', '\n', 'é', '€', '😀', '\u00a0', '\ufeff', '-'];

function text(next: () => number, length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return s;
}

void describe('CSV records without quotes', () => {
  void it('are csv-parse\'s records for generated texts, in pieces of every size', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const next = random(seed);
      const raw = Buffer.from(text(next, Math.floor(next() * 120)), 'utf8');
      for (const delimiter of [';', ',', '\t']) {
        const expected = parse(raw, parserOptions(delimiter)) as string[][];
        for (const size of [1, 2, 3, 5, 64]) {
          // Records and their line numbers (RECORD_LINE) alike.
          assert.deepEqual(split(raw, delimiter, size), expected, `seed ${seed}, delimiter ${JSON.stringify(delimiter)}, pieces of ${size}`);
        }
      }
    }
  });

  void it('keep the line end found first: a CR in a LF file and a LF in a CRLF file are text', () => {
    const cases = [
      'h;k\na;b\r\nc;d\re\n',
      'h;k\r\na;b\nc;d\r\ne;f\r',
      'h;k\ra;b\r\nc;d\n\re;f',
      '\r\n\r\nh;k\r\n;;\r\n \u00a0; \r\nlast;row',
      '\ufeffh;k\n',
      '',
      'only one line',
      'ends with CR\r',
    ];
    for (const t of cases) {
      const raw = Buffer.from(t, 'utf8');
      const expected = parse(raw, parserOptions(';')) as string[][];
      for (const size of [1, 2, 4, 1024]) assert.deepEqual(split(raw, ';', size), expected, `${JSON.stringify(t)} in pieces of ${size}`);
    }
    const records = split(Buffer.from('h;k\na;b\r\nc;d\re\n'), ';', 3) as LinedRecord[];
    assert.deepEqual(records.map((r) => [...r]), [['h', 'k'], ['a', 'b\r'], ['c', 'd\re']]);
    // Numbered as csv-parse numbers them: each CR that is text counts as a line too.
    assert.deepEqual(records.map((r) => r[RECORD_LINE]), [1, 3, 5]);
  });

  void it('number each record by its line in the text, blank lines counted, as csv-parse does', () => {
    const records = split(Buffer.from('h;k\r\n\r\na;b\r\n;;\r\nc;d\r\n'), ';', 4) as LinedRecord[];
    assert.deepEqual(records.map((r) => r[RECORD_LINE]), [1, 3, 5]);
  });
});
