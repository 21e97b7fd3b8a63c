import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { CsvOrderReader, decodeCsv, MAX_RECORD_CHARS, openOrders } from '../../../src/intake/formats/index.ts';
import type { DecodeInput } from '../../../src/intake/formats/index.ts';
import { throwsIntake, utf8 } from './helpers.ts';

const HEADER = 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura';
const rows = (...lines: string[]) => utf8(lines.join('\r\n') + '\r\n');

/** Every order of a file read in chunks of `chunkBytes`. */
function read(input: DecodeInput, chunkBytes: number): unknown[] {
  return [...CsvOrderReader.open(input, { chunkBytes }).orders()];
}

/** Reads the file in chunks of 1, 2, 3, 5, 7 and 64 bytes and checks each gives what reading it whole gives. */
function sameInEveryChunking(input: DecodeInput): unknown[] {
  const whole = read(input, 1 << 20);
  for (const size of [1, 2, 3, 5, 7, 64]) assert.deepEqual(read(input, size), whole, `chunks of ${size} bytes`);
  return whole;
}

void describe('CSV read in pieces', () => {
  void it('groups the rows of one order that are far apart, keeping first-appearance order', () => {
    const middle = Array.from({ length: 300 }, (_, i) => `C001;PO-${i + 2};2024-05-02;;A;${i + 1};PZ`);
    const raw = rows(HEADER, 'C001;PO-1;2024-05-02;;FIRST;1;PZ', ...middle, 'C001;PO-1;2099-01-01;;LAST;2;KG');
    const orders = sameInEveryChunking({ raw }) as Array<{ riferimento_ordine: string; data_ordine: string; righe: Array<{ codice_articolo: string }> }>;
    assert.equal(orders.length, 301);
    assert.equal(orders[0]!.riferimento_ordine, 'PO-1');
    assert.equal(orders[0]!.data_ordine, '2024-05-02', 'order fields come from its first row');
    assert.deepEqual(orders[0]!.righe.map((r) => r.codice_articolo), ['FIRST', 'LAST']);
    assert.deepEqual(orders.slice(1, 4).map((o) => o.riferimento_ordine), ['PO-2', 'PO-3', 'PO-4']);
  });

  void it('hands out an order as soon as its last row is read (a sorted file is never held whole)', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `C001;PO-${Math.floor(i / 2)};2024-05-02;;A;1;PZ`);
    const reader = CsvOrderReader.open({ raw: rows(HEADER, ...lines) }, { chunkBytes: 256 });
    assert.equal(reader.count, 1000);
    const it = reader.orders()[Symbol.iterator]();
    // The generator suspends after the first order: had it read the whole file first, this would show nothing,
    // so the check is on the shape of what came out and that the rest still follows in order.
    assert.equal((it.next().value as { riferimento_ordine: string }).riferimento_ordine, 'PO-0');
    let n = 1;
    for (let r = it.next(); !r.done; r = it.next()) assert.equal((r.value as { riferimento_ordine: string }).riferimento_ordine, `PO-${n++}`);
    assert.equal(n, 1000);
  });

  void it('reads quotes, doubled quotes and CRLF that span chunk boundaries', () => {
    const raw = rows(
      `${HEADER};note`,
      `C001;"PO ""A""; 1";2024-05-02;;A;"1,5";PZ;"${';'.repeat(300)}\r\nsecond line ""quoted"""`,
      'C001;"PO ""A""; 1";2024-05-02;;B;2;PZ;""',
      'C001;PO 12" x 18";2024-05-02;;C;3;PZ;',
    );
    assert.deepEqual(sameInEveryChunking({ raw }), [
      {
        codice_cliente: 'C001', riferimento_ordine: 'PO "A"; 1', data_ordine: '2024-05-02',
        note: `${';'.repeat(300)}\r\nsecond line "quoted"`,
        righe: [{ codice_articolo: 'A', quantita: 1.5, unita_misura: 'PZ' }, { codice_articolo: 'B', quantita: 2, unita_misura: 'PZ' }],
      },
      { codice_cliente: 'C001', riferimento_ordine: 'PO 12" x 18"', data_ordine: '2024-05-02', righe: [{ codice_articolo: 'C', quantita: 3, unita_misura: 'PZ' }] },
    ]);
  });

  void it('reads again with csv-parse a file whose only quote is far into it', () => {
    // The second pass splits a file without quotes itself (csv/unquoted.ts); one quote anywhere sends it to csv-parse.
    const many = Array.from({ length: 200 }, (_, i) => `C001;PO-${i % 7};2024-05-02;;A${i};1;PZ`);
    const raw = rows(HEADER, ...many, 'C001;"PO-1";2024-05-02;;"Z;\r\nZ";1;PZ');
    const orders = sameInEveryChunking({ raw }) as Array<{ riferimento_ordine: string; righe: Array<{ codice_articolo: string }> }>;
    assert.equal(orders.length, 7);
    assert.equal(orders[1]!.righe.at(-1)!.codice_articolo, 'Z;\r\nZ');
    const unquoted = sameInEveryChunking({ raw: utf8(`${HEADER}\n${many.join('\r\n')}\r\n`) }) as Array<{ righe: Array<{ unita_misura: string }> }>;
    // LF ends the header, so every CR is text (the last cell's): as csv-parse reads it.
    assert.equal(unquoted.length, 7);
    assert.equal(unquoted[0]!.righe[0]!.unita_misura, 'PZ\r');
  });

  void it('reads a file that ends without a line break, or with CR only line ends', () => {
    const last = utf8(`${HEADER}\nC001;PO-1;2024-05-02;;A;1;PZ\nC001;PO-1;2024-05-02;;B;2;PZ`);
    assert.equal((sameInEveryChunking({ raw: last })[0] as { righe: unknown[] }).righe.length, 2);
    const mac = utf8(`${HEADER}\rC001;PO-1;2024-05-02;;A;1;PZ\rC001;PO-2;2024-05-02;;B;2;PZ\r`);
    assert.equal(sameInEveryChunking({ raw: mac }).length, 2);
  });

  void it('decodes UTF-8 characters split between chunks, and falls back to Windows-1252 for the whole file', () => {
    const text = [HEADER, 'C001;ORD-€-città;2024-05-02;;BIGL-100;1.234,5;€/m²', 'C001;ORD-€-città;2024-05-02;;VOL-A4;0,75;PZ'].join('\r\n');
    const fromUtf8 = sameInEveryChunking({ raw: utf8(text) });
    // The only byte that is not UTF-8 is the last one: the whole file is still read as Windows-1252.
    const cp1252 = iconv.encode(text.replace('VOL-A4', 'VOL-à'), 'windows-1252');
    const fromCp1252 = sameInEveryChunking({ raw: cp1252 }) as Array<{ riferimento_ordine: string; righe: Array<{ codice_articolo: string }> }>;
    assert.equal(fromCp1252[0]!.riferimento_ordine, 'ORD-€-città');
    assert.equal(fromCp1252[0]!.righe[1]!.codice_articolo, 'VOL-à');
    assert.deepEqual((fromUtf8[0] as { righe: unknown[] }).righe[0], { codice_articolo: 'BIGL-100', quantita: 1234.5, unita_misura: '€/m²' });
    const bomUtf16 = iconv.encode(`${HEADER.replaceAll(';', '\t')}\r\nC001\tPO-€\t2024-05-02\t\tA\t2\tPZ\r\n`, 'utf-16le', { addBOM: true });
    assert.equal((sameInEveryChunking({ raw: bomUtf16 })[0] as { riferimento_ordine: string }).riferimento_ordine, 'PO-€');
    throwsIntake(() => read({ raw: cp1252, charset: 'utf-8' }, 3), 'NOT_PARSEABLE', /^CSV must be encoded in UTF-8: invalid byte 0x80 on line 2/);
  });

  void it('finds limits broken far into the file, naming the line, whatever the chunk size', () => {
    const good = Array.from({ length: 500 }, (_, i) => `C001;PO-${i};2024-05-02;;A;1;PZ`);
    for (const size of [1, 7, 4096]) {
      throwsIntake(
        () => read({ raw: rows(HEADER, ...good, `C001;PO-X;2024-05-02;;A;1;PZ${';'.repeat(300)}`) }, size),
        'NOT_PARSEABLE', /^CSV must not have more than 200 columns \(line 502 has more\)$/,
      );
      throwsIntake(
        () => read({ raw: rows(HEADER, ...good, 'C001;"PO-X;2024-05-02;;A;1;PZ', ...good) }, size),
        'NOT_PARSEABLE', /^CSV has a quote that is never closed, opened on line 502$/,
      );
      throwsIntake(
        () => read({ raw: rows(HEADER, ...good, `C001;"${'x'.repeat(MAX_RECORD_CHARS + 1)}";2024-05-02;;A;1;PZ`) }, size),
        'NOT_PARSEABLE', /^CSV has a quoted cell longer than 65536 characters, opened on line 502; is a closing quote missing\?$/,
      );
      throwsIntake(
        () => read({ raw: rows(HEADER, ...good, `C001;PO-1;2024-05-02;;${'A'.repeat(70_000)};1;PZ`) }, size),
        'NOT_PARSEABLE', /^CSV rows must not be longer than 65536 characters \(line 502\)$/,
      );
    }
  });

  void it('measures a quoted cell in characters as JavaScript counts them, not in bytes', () => {
    // 😀 is 4 bytes and 2 UTF-16 units. Just under the limit in units the cell is not a runaway quote; csv-parse,
    // which counts bytes, then refuses the row for its length, as it did when the file was decoded whole.
    const half = MAX_RECORD_CHARS / 2;
    const cell = (n: number) => rows(HEADER, `C001;"${'😀'.repeat(n)}";2024-05-02;;A;1;PZ`);
    throwsIntake(() => read({ raw: cell(half - 1) }, 5), 'NOT_PARSEABLE', /^CSV rows must not be longer than 65536 characters \(line 2\)$/);
    throwsIntake(() => read({ raw: cell(half + 1) }, 5), 'NOT_PARSEABLE', /quoted cell longer than 65536 characters, opened on line 2/);
    const few = read({ raw: cell(10) }, 3) as Array<{ riferimento_ordine: string }>;
    assert.equal(few[0]!.riferimento_ordine, '😀'.repeat(10));
  });

  void it('tells a fault of the whole file before the header\'s, as reading it at once did', () => {
    const raw = rows('codice_cliente;riferimento_ordine;data_ordine', `C001;PO-1;2024-05-02${';'.repeat(300)}`);
    throwsIntake(() => read({ raw }, 3), 'NOT_PARSEABLE', /more than 200 columns \(line 2 has more\)/);
    throwsIntake(() => decodeCsv({ raw: rows('codice_cliente;riferimento_ordine;data_ordine', 'C001;PO-1;2024-05-02') }), 'NOT_PARSEABLE', /missing: codice_articolo/);
  });

  void it('stops remembering orders beyond maxOrders but still checks the rest of the file', () => {
    const many = Array.from({ length: 50 }, (_, i) => `C001;PO-${i};2024-05-02;;A;1;PZ`);
    const reader = CsvOrderReader.open({ raw: rows(HEADER, ...many) }, { maxOrders: 10, chunkBytes: 16 });
    assert.equal(reader.count, 11);
    throwsIntake(
      () => CsvOrderReader.open({ raw: rows(HEADER, ...many, `x${';'.repeat(300)}`) }, { maxOrders: 10 }),
      'NOT_PARSEABLE', /line 52 has more/,
    );
  });

  void it('openYielding gives the event loop turns while reading, and reads the same', async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `C001;PO-${i % 150};2024-05-02;;A${i};1;PZ`);
    const input = { raw: rows(HEADER, ...lines) };
    let turns = 0;
    const reader = await CsvOrderReader.openYielding(input, {
      chunkBytes: 100, yieldEveryBytes: 1000, yieldNow: async () => void turns++,
    });
    assert.ok(turns >= input.raw.length / 1000 - 1, `${turns} turns for ${input.raw.length} bytes`);
    assert.equal(reader.count, 150);
    assert.deepEqual([...reader.orders()], read(input, 1 << 20));
    await assert.rejects(
      CsvOrderReader.openYielding({ raw: rows(HEADER, ...lines, `x${';'.repeat(300)}`) }, { chunkBytes: 100, yieldEveryBytes: 1000, yieldNow: async () => undefined }),
      /line 402 has more/,
    );
  });

  void it('openOrders: CSV by its reader, other formats whole, the same errors as decodeOrders', () => {
    const csv = openOrders({ raw: rows(HEADER, 'C001;PO-1;2024-05-02;;A;1;PZ', 'C001;PO-2;2024-05-02;;A;1;PZ'), fileName: 'x.csv' });
    assert.equal(csv.count, 2);
    assert.equal([...csv.candidates()].length, 2);
    const json = openOrders({ raw: utf8('[{"riferimento_ordine":"A"},{"riferimento_ordine":"B"}]') });
    assert.equal(json.count, 2);
    throwsIntake(() => openOrders({ raw: rows(HEADER), fileName: 'x.csv' }), 'NO_ORDERS', /^the file holds no order$/);
    throwsIntake(() => openOrders({ raw: Buffer.from('%PDF-1.4'), fileName: 'x.csv' }), 'UNSUPPORTED_MEDIA_TYPE');
    throwsIntake(() => openOrders({ raw: utf8(' \n'), fileName: 'x.csv' }), 'NOT_PARSEABLE', /^the file is empty$/);
  });
});
