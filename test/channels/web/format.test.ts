// How the pages word field paths, stage A messages, file names and CSV cells.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvCell } from '../../../src/channels/web/console/orders.ts';
import { dayStart } from '../../../src/channels/web/console/dashboard.ts';
import { fieldLabel, italianMessage, rawPreview, safeFileName } from '../../../src/channels/web/format.ts';

void describe('web formatting', () => {
  void it('names fields as a person reads them, with the line counted from 1', () => {
    assert.equal(fieldLabel('righe[0].codice_articolo'), 'riga 1, codice articolo');
    assert.equal(fieldLabel('righe.2.quantita'), 'riga 3, quantità');
    assert.equal(fieldLabel('data_consegna'), 'data di consegna');
  });

  void it('puts stage A messages in Italian and leaves unknown ones as they are', () => {
    assert.equal(italianMessage('righe.1.quantita must be a positive number'), 'Riga 2, quantità: deve essere maggiore di zero');
    assert.equal(italianMessage('data_ordine must be a valid ISO 8601 date string (YYYY-MM-DD)'), 'Data ordine: data non valida (formato AAAA-MM-GG)');
    assert.equal(italianMessage('righe must contain at least 1 elements'), 'Righe: serve almeno una riga');
    assert.equal(italianMessage('something else'), 'something else');
  });

  void it('makes download names safe: no directories, quotes, spaces or leading dots', () => {
    assert.equal(safeFileName('../../etc/"pass wd".html', 'x'), 'pass_wd_.html');
    assert.equal(safeFileName('C:\\ordini\\nov.csv', 'x'), 'nov.csv');
    assert.equal(safeFileName('..', 'fallback.txt'), 'fallback.txt');
    assert.equal(safeFileName(undefined, 'fallback.txt'), 'fallback.txt');
  });

  void it('quotes CSV cells and neutralises spreadsheet formulas', () => {
    assert.equal(csvCell('a"b'), '"a""b"');
    assert.equal(csvCell('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvCell('-1'), `"'-1"`);
    assert.equal(csvCell(undefined), '""');
  });

  void it('shows raw bytes as text with control characters visible, and says when a file is binary', () => {
    assert.deepEqual(rawPreview(Buffer.from('a\u001b[31mb\n')), { text: 'a\\x1b[31mb\n', cut: false, binary: false });
    assert.equal(rawPreview(Buffer.from([0x50, 0x4b, 0x00, 0x01])).binary, true);
  });

  void it('turns a local calendar day into the instant it starts in the service time zone', () => {
    assert.equal(dayStart('2026-07-01', 'Europe/Rome'), '2026-06-30T22:00:00.000Z');
    assert.equal(dayStart('2026-12-01', 'Europe/Rome'), '2026-11-30T23:00:00.000Z');
    assert.equal(dayStart('2026-12-01', 'Europe/Rome', 1), '2026-12-01T23:00:00.000Z');
    assert.equal(dayStart('01/12/2026', 'Europe/Rome'), undefined);
  });
});
