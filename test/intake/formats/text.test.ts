import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { decodeText, isBlank, normalizeCharset } from '../../../src/intake/formats/text.ts';
import { throwsIntake, utf8 } from './helpers.ts';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

void describe('text decoding', () => {
  void it('decodes UTF-8 and strips its BOM', () => {
    assert.equal(decodeText(utf8('Caffè €'), { label: 'X' }), 'Caffè €');
    assert.equal(decodeText(Buffer.concat([BOM, utf8('Caffè')]), { label: 'X' }), 'Caffè');
  });

  void it('decodes UTF-16 by its BOM, whatever was declared', () => {
    const le = iconv.encode('Però €', 'utf-16le', { addBOM: true });
    const be = iconv.encode('Però €', 'utf-16be', { addBOM: true });
    assert.equal(decodeText(le, { label: 'X', charset: 'windows-1252' }), 'Però €');
    assert.equal(decodeText(be, { label: 'X' }), 'Però €');
  });

  void it('uses a declared charset before the document\'s own and before guessing', () => {
    const bytes = iconv.encode('Però €', 'windows-1252');
    assert.equal(decodeText(bytes, { label: 'X', charset: ' "Windows-1252" ' }), 'Però €');
    assert.equal(decodeText(bytes, { label: 'X', documentCharset: 'cp1252' }), 'Però €');
    assert.equal(decodeText(utf8('Però'), { label: 'X', charset: 'UTF-8', documentCharset: 'latin1' }), 'Però');
  });

  void it('falls back only when nothing was declared', () => {
    const bytes = iconv.encode('Però €', 'windows-1252');
    assert.equal(decodeText(bytes, { label: 'CSV', fallback: 'windows-1252' }), 'Però €');
    assert.equal(decodeText(utf8('Però €'), { label: 'CSV', fallback: 'windows-1252' }), 'Però €', 'valid UTF-8 stays UTF-8');
    throwsIntake(() => decodeText(bytes, { label: 'CSV', fallback: 'windows-1252', charset: 'utf8' }), 'NOT_PARSEABLE', /CSV must be encoded in UTF-8/);
  });

  void it('points at the first invalid byte, skipping a real U+FFFD before it', () => {
    const raw = Buffer.concat([utf8('a\uFFFDb\nline two '), Buffer.from([0xc3, 0x28]), utf8(' end')]);
    throwsIntake(() => decodeText(raw, { label: 'JSON' }), 'NOT_PARSEABLE', /^JSON must be encoded in UTF-8: invalid byte 0xC3 on line 2 \(byte 16\)$/);
    const withBom = Buffer.concat([BOM, Buffer.from([0xff])]);
    throwsIntake(() => decodeText(withBom, { label: 'XML' }), 'NOT_PARSEABLE', /invalid byte 0xFF on line 1 \(byte 4\)/);
    throwsIntake(() => decodeText(Buffer.from([0x41, 0xe2, 0x82]), { label: 'XML' }), 'NOT_PARSEABLE', /invalid byte 0xE2 on line 1 \(byte 2\)/);
  });

  void it('refuses a charset it does not know, keeping the name printable', () => {
    throwsIntake(() => decodeText(utf8('x'), { label: 'CSV', charset: 'x-klingon\u0000' }), 'NOT_PARSEABLE', /^CSV charset "x-klingon\?" is not supported; use UTF-8$/);
  });

  void it('normalizes charset names', () => {
    assert.equal(normalizeCharset(' "UTF-8" '), 'utf-8');
    assert.equal(normalizeCharset('  '), undefined);
    assert.equal(normalizeCharset(undefined), undefined);
  });

  void it('tells blank files from others', () => {
    assert.equal(isBlank(Buffer.alloc(0)), true);
    assert.equal(isBlank(Buffer.concat([BOM, utf8(' \r\n\t ')])), true);
    assert.equal(isBlank(iconv.encode('  \n', 'utf-16le', { addBOM: true })), true);
    assert.equal(isBlank(utf8(' x ')), false);
    assert.equal(isBlank(Buffer.from([0, 0])), false);
  });
});
