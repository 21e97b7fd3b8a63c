// Bytes in a local file (an upload in the spool) read in pieces as the bytes in memory are (issue 19 item 11): the
// same orders and the same errors, with characters cut by the end of a piece.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { bufferBytes, CsvOrderReader, decodeCsv, fileBytes } from '../../../src/intake/formats/index.ts';
import { firstInvalidUtf8 } from '../../../src/intake/formats/bytes.ts';
import { invalidUtf8Message } from '../../../src/intake/formats/text.ts';
import { throwsIntake } from './helpers.ts';

const HEADER = 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura';
const dir = mkdtempSync(path.join(tmpdir(), 'bytes-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function onDisk(raw: Buffer) {
  const file = path.join(dir, `f${n++}.csv`);
  writeFileSync(file, raw);
  return fileBytes(file, raw.length);
}

/** The orders read from the file in pieces of `chunkBytes`, and what reading the same bytes from memory gives. */
function both(raw: Buffer, chunkBytes: number, charset?: string) {
  const fromFile = [...CsvOrderReader.open({ bytes: onDisk(raw), charset }, { chunkBytes }).orders()];
  return { fromFile, inMemory: decodeCsv({ raw, charset }) };
}

void describe('bytes read from a file in pieces', () => {
  void it('gives the orders reading the bytes in memory gives, for UTF-8 (with and without BOM), Windows-1252 and UTF-16', () => {
    const lines = Array.from({ length: 200 }, (_, i) => `C001;PO-${Math.floor(i / 2)};2024-05-02;;ARTÈ-€-${i};1;PZ`);
    const text = [HEADER, ...lines].join('\r\n') + '\r\n';
    for (const [raw, charset] of [
      [Buffer.from(text), undefined],
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), undefined],
      [iconv.encode(text.replaceAll('€', 'E'), 'windows-1252'), undefined],
      [iconv.encode(text, 'utf-16le', { addBOM: true }), undefined],
      [iconv.encode(text.replaceAll('€', 'E'), 'iso-8859-1'), 'ISO-8859-1'],
    ] as const) {
      for (const size of [3, 7, 1000]) {
        const { fromFile, inMemory } = both(raw, size, charset);
        assert.equal(fromFile.length, 100);
        assert.deepEqual(fromFile, inMemory, `chunks of ${size}, ${charset ?? 'detected'}`);
      }
    }
  });

  void it('carries a UTF-8 character cut by the end of a piece into the next when checking the encoding', () => {
    const raw = Buffer.from('aè€😀b\n'.repeat(50));
    for (const piece of [1, 2, 3, 4, 5, 7]) assert.equal(firstInvalidUtf8(bufferBytes(raw), 0, piece), undefined, `pieces of ${piece}`);
    const bad = Buffer.concat([raw, Buffer.from([0xe2, 0x28, 0xa1]), raw]);
    for (const piece of [1, 3, 64, 1 << 20]) assert.ok(firstInvalidUtf8(bufferBytes(bad), 0, piece), `pieces of ${piece}`);
  });

  void it('names the line and byte of a bad UTF-8 byte as reading the file at once does', () => {
    const good = Array.from({ length: 3000 }, (_, i) => `C001;PO-${i};2024-05-02;;A;1;PZ`);
    const raw = Buffer.concat([Buffer.from([HEADER, ...good].join('\n') + '\n'), Buffer.from('C001;PO-X;2024-05-02;;\xf2;1;PZ\n', 'latin1')]);
    const message = /CSV must be encoded in UTF-8: invalid byte 0xF2 on line 3002 \(byte \d+\)/;
    throwsIntake(() => decodeCsv({ raw, charset: 'utf-8' }), 'NOT_PARSEABLE', message);
    throwsIntake(() => CsvOrderReader.open({ bytes: onDisk(raw), charset: 'utf-8' }), 'NOT_PARSEABLE', message);
    let inMemory = '';
    let fromFile = '';
    try { decodeCsv({ raw, charset: 'utf-8' }); } catch (e) { inMemory = (e as Error).message; }
    try { CsvOrderReader.open({ bytes: onDisk(raw), charset: 'utf-8' }); } catch (e) { fromFile = (e as Error).message; }
    assert.equal(fromFile, inMemory);
    // The same message when the bad byte is found pieces into the file (lines and bytes counted across pieces).
    for (const piece of [100, 4099]) {
      const bad = firstInvalidUtf8(bufferBytes(raw), 0, piece)!;
      assert.equal(invalidUtf8Message(bad.piece, bad.pieceAt, 'CSV', bad.linesBefore), inMemory.replace(/^.*?: CSV/, 'CSV'), `pieces of ${piece}`);
    }
  });
});
