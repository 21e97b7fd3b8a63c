// How the pages word order errors, file names and CSV cells.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { csvCell } from '../../../src/channels/web/console/orders.ts';
import { dayStart } from '../../../src/channels/web/console/dashboard.ts';
import iconv from 'iconv-lite';
import {
  actionLabel, actorLabel, dateLabel, dateTimeFormatter, detailValue, eventLabel, isPartial, orderErrors, productionLabel, RAW_PREVIEW_BYTES, rawPreview, roleLabel,
  safeFileName, stateLabel, submissionState,
} from '../../../src/channels/web/format.ts';

void describe('web formatting', () => {
  void it('words an order\'s errors in Italian, placed by the CSV row when the outcome has one', () => {
    const o = { index: 0, esito: 'errore' as const, code: 'VALIDATION' as const, righe_file: [2, 5], message: ['righe.1.quantita must be a positive number'] };
    assert.deepEqual(orderErrors(o), [{ where: 'Riga 5 del file', text: 'La quantità deve essere maggiore di zero' }]);
    assert.deepEqual(orderErrors({ ...o, index: 2, righe_file: undefined }), [{ where: 'Ordine 3, riga 2', text: 'La quantità deve essere maggiore di zero' }]);
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

  void it('shows a raw file decoded as the intake reads it: Windows-1252 with its accents, UTF-8 cut at a whole character', () => {
    assert.equal(rawPreview(iconv.encode('C001;PERÒ-1;città\r\n', 'windows-1252')).text, 'C001;PERÒ-1;città\r\n');
    assert.equal(rawPreview(iconv.encode('perché', 'iso-8859-15'), 'ISO-8859-15').text, 'perché');
    assert.equal(rawPreview(Buffer.from('perché € 😀', 'utf8')).text, 'perché € 😀');
    const long = Buffer.concat([Buffer.alloc(RAW_PREVIEW_BYTES - 1, 'a'), Buffer.from('è', 'utf8')]);
    const shown = rawPreview(long);
    assert.equal(shown.cut, true);
    assert.equal(shown.text, 'a'.repeat(RAW_PREVIEW_BYTES - 1), 'the half character is left out, the rest still read as UTF-8');
  });

  void it('turns a local calendar day into the instant it starts in the service time zone', () => {
    assert.equal(dayStart('2026-07-01', 'Europe/Rome'), '2026-06-30T22:00:00.000Z');
    assert.equal(dayStart('2026-12-01', 'Europe/Rome'), '2026-11-30T23:00:00.000Z');
    assert.equal(dayStart('2026-12-01', 'Europe/Rome', 1), '2026-12-01T23:00:00.000Z');
    assert.equal(dayStart('01/12/2026', 'Europe/Rome'), undefined);
  });

  void it('calls a refused file with some accepted orders "Parzialmente accettato", apart from a refused one', () => {
    assert.deepEqual(stateLabel({ state: 'processed', esito: 'errore', partial: true }), { text: 'Parzialmente accettato', kind: 'part' });
    assert.deepEqual(stateLabel({ state: 'processed', esito: 'errore' }), { text: 'Rifiutato', kind: 'err' });
    assert.deepEqual(stateLabel({ state: 'processed', esito: 'ok' }), { text: 'Accettato', kind: 'ok' });
    const orders = [{ index: 0, esito: 'ok' as const }, { index: 1, esito: 'errore' as const }];
    assert.equal(isPartial({ esito: 'errore', orders }), true);
    assert.equal(isPartial({ esito: 'errore', orders: orders.slice(1) }), false);
    assert.equal(isPartial(undefined), false);
    assert.equal(submissionState({ state: 'processed', outcome: { submissionId: 'x', esito: 'errore', orders } }).text, 'Parzialmente accettato');
    assert.equal(submissionState({ state: 'received' }).text, 'In elaborazione');
  });

  void it('names production states, roles, actors and audit actions in Italian', () => {
    assert.deepEqual(['in_lavorazione', 'spedito', 'consegnato', 'annullato', undefined].map((s) => productionLabel(s as never).text),
      ['In lavorazione', 'Spedito', 'Consegnato', 'Annullato', 'In attesa di lavorazione']);
    assert.deepEqual(['admin', 'operator', 'viewer'].map(roleLabel), ['amministratore', 'operatore', 'sola lettura']);
    assert.equal(actionLabel('invio.correggi_registra'), 'Correzione registrata');
    assert.equal(actorLabel('cli'), 'riga di comando');
    assert.equal(actorLabel('cliente:C001'), 'cliente C001');
    assert.equal(detailValue('role', 'operator'), 'operatore');
    assert.equal(detailValue('esito', 'errore'), 'rifiutato');
    assert.equal(detailValue('address', null), '—');
    assert.equal(eventLabel('ordine.stato_aggiornato'), 'Stato di produzione aggiornato');
  });

  void it('shows dates as 28/11/2026 and instants as 28/11/2026 14:05 in the service time zone', () => {
    assert.equal(dateLabel('2026-11-28'), '28/11/2026');
    assert.equal(dateLabel(undefined), '');
    assert.equal(dateLabel('not a date'), 'not a date');
    assert.equal(dateTimeFormatter('Europe/Rome')('2026-11-28T13:05:00.000Z'), '28/11/2026 14:05');
    assert.equal(dateTimeFormatter('America/Los_Angeles')('2026-11-28T13:05:00.000Z'), '28/11/2026 05:05');
  });
});
