import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import iconv from 'iconv-lite';
import { decodeCsv, MAX_COLUMNS } from '../../../src/intake/formats/index.ts';
import { throwsIntake, utf8 } from './helpers.ts';

const HEADER = 'codice_cliente;riferimento_ordine;data_ordine;data_consegna;codice_articolo;quantita;unita_misura';
const csv = (...lines: string[]): { raw: Buffer } => ({ raw: utf8(lines.join('\r\n') + '\r\n') });

const PO1 = {
  codice_cliente: 'C001',
  riferimento_ordine: 'PO-1',
  data_ordine: '2024-05-02',
  data_consegna: '2024-05-20',
  righe: [
    { codice_articolo: 'BIGL-100', quantita: 500, unita_misura: 'PZ' },
    { codice_articolo: 'VOL-A4', quantita: 1.5, unita_misura: 'KG' },
  ],
};

void describe('CSV decoder', () => {
  void it('reads semicolon CSV: one row per line, order fields repeated', () => {
    const orders = decodeCsv(csv(
      HEADER,
      'C001;PO-1;2024-05-02;2024-05-20;BIGL-100;500;PZ',
      'C001;PO-1;2024-05-02;2024-05-20;VOL-A4;1,5;KG',
    ));
    assert.deepEqual(orders, [PO1]);
  });

  void it('reads comma CSV with a quoted decimal comma', () => {
    const orders = decodeCsv(csv(
      HEADER.replaceAll(';', ','),
      'C001,PO-1,2024-05-02,2024-05-20,BIGL-100,500,PZ',
      'C001,PO-1,2024-05-02,2024-05-20,VOL-A4,"1,5",KG',
    ));
    assert.deepEqual(orders, [PO1]);
  });

  void it('reads tab-separated values, with LF line ends', () => {
    const raw = utf8([
      HEADER.replaceAll(';', '\t'),
      'C001\tPO-1\t2024-05-02\t2024-05-20\tBIGL-100\t500\tPZ',
      'C001\tPO-1\t2024-05-02\t2024-05-20\tVOL-A4\t1.5\tKG',
    ].join('\n'));
    assert.deepEqual(decodeCsv({ raw }), [PO1]);
  });

  void it('reads old Mac line ends (CR only)', () => {
    const raw = utf8([HEADER, 'C001;PO-1;2024-05-02;;A;1;PZ', 'C001;PO-1;2024-05-02;;B;2;PZ'].join('\r'));
    assert.equal((decodeCsv({ raw })[0] as { righe: unknown[] }).righe.length, 2);
    throwsIntake(() => decodeCsv({ raw: utf8(`${HEADER}\r\r${'x;'.repeat(250)}`) }), 'NOT_PARSEABLE', /\(line 3 has more\)/);
  });

  void it('groups interleaved rows of two orders, in first-appearance order, fields from the first row', () => {
    const orders = decodeCsv(csv(
      HEADER,
      'C001;PO-2;2024-05-03;;A;1;PZ',
      'C001;PO-1;2024-05-02;2024-05-20;B;2;PZ',
      'C001;PO-2;2099-01-01;2099-01-02;C;3;PZ',
      'C001;PO-1;2024-05-02;2024-05-20;D;4;PZ',
    ));
    assert.deepEqual(orders, [
      {
        codice_cliente: 'C001', riferimento_ordine: 'PO-2', data_ordine: '2024-05-03',
        righe: [{ codice_articolo: 'A', quantita: 1, unita_misura: 'PZ' }, { codice_articolo: 'C', quantita: 3, unita_misura: 'PZ' }],
      },
      {
        codice_cliente: 'C001', riferimento_ordine: 'PO-1', data_ordine: '2024-05-02', data_consegna: '2024-05-20',
        righe: [{ codice_articolo: 'B', quantita: 2, unita_misura: 'PZ' }, { codice_articolo: 'D', quantita: 4, unita_misura: 'PZ' }],
      },
    ]);
  });

  void it('keeps orders of different customers with the same reference apart', () => {
    const orders = decodeCsv(csv(HEADER, 'C001;PO-1;2024-05-02;;A;1;PZ', 'C002;PO-1;2024-05-02;;A;1;PZ'));
    assert.equal(orders.length, 2);
  });

  void it('takes columns in any order and case, trimmed, ignores extra columns, data_consegna optional, reads the note', () => {
    const orders = decodeCsv(csv(
      ' Quantita ;DESCRIZIONE;Unita_Misura;codice_articolo;Data_Ordine;RIFERIMENTO_ORDINE;Codice_Cliente;note',
      '500;Biglietti da visita;PZ;BIGL-100;2024-05-02;PO-1;C001;urgente',
    ));
    assert.deepEqual(orders, [{
      codice_cliente: 'C001', riferimento_ordine: 'PO-1', data_ordine: '2024-05-02', note: 'urgente',
      righe: [{ codice_articolo: 'BIGL-100', quantita: 500, unita_misura: 'PZ' }],
    }]);
  });

  void it('reads a quoted header', () => {
    const orders = decodeCsv(csv(
      HEADER.split(';').map((c) => `"${c}"`).join(';'),
      '"C001";"PO-1";"2024-05-02";"2024-05-20";"BIGL-100";"500";"PZ"',
      '"C001";"PO-1";"2024-05-02";"2024-05-20";"VOL-A4";"1,5";"KG"',
    ));
    assert.deepEqual(orders, [PO1]);
  });

  void it('reads Windows-1252 from Italian Excel: € and à, decimal comma, thousands dots', () => {
    const text = [
      'codice_cliente;riferimento_ordine;data_ordine;descrizione;codice_articolo;quantita;unita_misura',
      'C001;ORD-€-città;2024-05-02;Biglietti da visita à 5 €;BIGL-100;1.234,5;PZ',
      'C001;ORD-€-città;2024-05-02;Caffè;VOL-A4;0,75;€/m²',
    ].join('\r\n');
    const raw = iconv.encode(text, 'windows-1252');
    assert.ok(raw.includes(0x80), 'the euro sign is the single byte 0x80 in windows-1252');
    assert.deepEqual(decodeCsv({ raw }), [{
      codice_cliente: 'C001', riferimento_ordine: 'ORD-€-città', data_ordine: '2024-05-02',
      righe: [
        { codice_articolo: 'BIGL-100', quantita: 1234.5, unita_misura: 'PZ' },
        { codice_articolo: 'VOL-A4', quantita: 0.75, unita_misura: '€/m²' },
      ],
    }]);
  });

  void it('strips a UTF-8 BOM from the first column name', () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(`${HEADER}\nC001;PO-1;2024-05-02;;A;1;PZ\n`)]);
    const [order] = decodeCsv({ raw }) as Array<Record<string, unknown>>;
    assert.equal(order?.codice_cliente, 'C001');
  });

  void it('reads UTF-16LE with BOM (Excel "Unicode text", tab-separated)', () => {
    const raw = iconv.encode(`${HEADER.replaceAll(';', '\t')}\r\nC001\tPO-€\t2024-05-02\t\tA\t2\tPZ\r\n`, 'utf-16le', { addBOM: true });
    const [order] = decodeCsv({ raw }) as Array<Record<string, unknown>>;
    assert.equal(order?.riferimento_ordine, 'PO-€');
  });

  void it('lets a declared charset win over guessing', () => {
    const latin1 = iconv.encode(`${HEADER}\nC001;Però;2024-05-02;;A;1;PZ\n`, 'latin1');
    const [order] = decodeCsv({ raw: latin1, mediaType: 'text/csv; charset=ISO-8859-1' }) as Array<Record<string, unknown>>;
    assert.equal(order?.riferimento_ordine, 'Però');
    throwsIntake(() => decodeCsv({ raw: latin1, charset: 'utf-8' }), 'NOT_PARSEABLE', /CSV must be encoded in UTF-8: invalid byte 0xF2 on line 2/);
  });

  void it('keeps empty cells as "" (data_consegna left out), reads short rows as empty cells', () => {
    const orders = decodeCsv(csv(HEADER, ';PO-1;2024-05-02;;A;;', 'C002;PO-2;2024-05-02'));
    assert.deepEqual(orders, [
      { codice_cliente: '', riferimento_ordine: 'PO-1', data_ordine: '2024-05-02', righe: [{ codice_articolo: 'A', quantita: '', unita_misura: '' }] },
      { codice_cliente: 'C002', riferimento_ordine: 'PO-2', data_ordine: '2024-05-02', righe: [{ codice_articolo: '', quantita: '', unita_misura: '' }] },
    ]);
  });

  void it('skips blank lines and rows of empty cells', () => {
    const orders = decodeCsv({ raw: utf8(`\n\n${HEADER}\n\nC001;PO-1;2024-05-02;;A;1;PZ\n;;;;;;\n ; ;;;;;\n\n`) });
    assert.equal(orders.length, 1);
  });

  void it('finds the header below blank and delimiter-only lines, numbering lines from the top', () => {
    const orders = decodeCsv({ raw: utf8(`  \n;;;\n${HEADER}\nC001;PO-1;2024-05-02;;A;1;PZ\n`) });
    assert.equal(orders.length, 1);
    throwsIntake(() => decodeCsv({ raw: utf8(`\n\n${HEADER}${';x'.repeat(300)}\n`) }), 'NOT_PARSEABLE', /\(line 3 has more\)/);
  });

  void it('gives no candidates for a header alone', () => {
    assert.deepEqual(decodeCsv(csv(HEADER)), []);
  });

  void it('converts quantita only when it is a number, leaving the rest as text', () => {
    const orders = decodeCsv(csv(HEADER, ...['12', '1.234,5', '1.000', 'dodici', '-2', '1,5 kg', '0,250'].map((q) => `C;P;2024-05-02;;A;${q};PZ`)));
    const quantities = (orders[0] as { righe: Array<{ quantita: unknown }> }).righe.map((r) => r.quantita);
    assert.deepEqual(quantities, [12, 1234.5, 1000, 'dodici', -2, '1,5 kg', 0.25]);
  });

  void it('names the missing columns', () => {
    throwsIntake(
      () => decodeCsv(csv('codice_cliente;riferimento_ordine;data_ordine;codice_articolo;unita_misura', 'C;P;D;A;PZ')),
      'NOT_PARSEABLE',
      /^CSV header must name the columns codice_cliente, riferimento_ordine, data_ordine, codice_articolo, quantita, unita_misura \(data_consegna and note optional\); missing: quantita$/,
    );
    throwsIntake(() => decodeCsv(csv('C001;PO-1;2024-05-02;A;1;PZ')), 'NOT_PARSEABLE', /missing: codice_cliente, riferimento_ordine/);
  });

  void it('refuses a column named twice', () => {
    throwsIntake(() => decodeCsv(csv(`${HEADER};Quantita`)), 'NOT_PARSEABLE', /names the column quantita more than once/);
  });

  void it('refuses a header with 100,000 columns', () => {
    const header = HEADER + ';x'.repeat(100_000);
    throwsIntake(() => decodeCsv(csv(header, 'C001;PO-1;2024-05-02;;A;1;PZ')), 'NOT_PARSEABLE', /^CSV must not have more than 200 columns \(line 1 has more\)$/);
    throwsIntake(() => decodeCsv(csv('x;'.repeat(100_000))), 'NOT_PARSEABLE', /more than 200 columns/);
  });

  void it('refuses a data row with 100,000 columns, naming its line', () => {
    throwsIntake(
      () => decodeCsv(csv(HEADER, 'C001;PO-1;2024-05-02;;A;1;PZ', 'C001;PO-1;2024-05-02;;A;1;PZ' + ';'.repeat(100_000))),
      'NOT_PARSEABLE',
      /^CSV must not have more than 200 columns \(line 3 has more\)$/,
    );
  });

  void it('accepts exactly the maximum number of columns', () => {
    const header = HEADER + ';x'.repeat(MAX_COLUMNS - 7);
    assert.equal(decodeCsv(csv(header, 'C001;PO-1;2024-05-02;;A;1;PZ' + ';'.repeat(MAX_COLUMNS - 7))).length, 1);
  });

  void it('refuses an unclosed quote that swallows the rest of the file', () => {
    const rest = Array.from({ length: 5000 }, (_, i) => `C001;PO-1;2024-05-02;;A${i};1;PZ`);
    throwsIntake(
      () => decodeCsv(csv(HEADER, 'C001;"PO-1;2024-05-02;;A;1;PZ', ...rest)),
      'NOT_PARSEABLE',
      /^CSV has a quoted cell longer than 65536 characters, opened on line 2; is a closing quote missing\?$/,
    );
    throwsIntake(
      () => decodeCsv(csv(HEADER, 'C001;PO-1;2024-05-02;;A;1;PZ', 'C001;"PO-1;2024-05-02;;A;1;PZ', 'C001;PO-1;2024-05-02;;A;1;PZ')),
      'NOT_PARSEABLE',
      /^CSV has a quote that is never closed, opened on line 3$/,
    );
  });

  void it('refuses one huge unquoted cell', () => {
    throwsIntake(
      () => decodeCsv(csv(HEADER, `C001;PO-1;2024-05-02;;${'A'.repeat(70_000)};1;PZ`)),
      'NOT_PARSEABLE',
      /^CSV rows must not be longer than 65536 characters \(line 2\)$/,
    );
  });

  void it('reads quoted cells holding delimiters, line breaks and doubled quotes, counting columns outside them only', () => {
    const orders = decodeCsv(csv(
      `${HEADER};note`,
      `C001;"PO ""A""; 1";2024-05-02;;A;1;PZ;"${';'.repeat(300)}\r\nsecond line, still the note"`,
      'C001;"PO ""A""; 1";2024-05-02;;B;2;PZ;',
    ));
    assert.deepEqual(orders, [{
      codice_cliente: 'C001', riferimento_ordine: 'PO "A"; 1', data_ordine: '2024-05-02',
      note: `${';'.repeat(300)}\r\nsecond line, still the note`,
      righe: [{ codice_articolo: 'A', quantita: 1, unita_misura: 'PZ' }, { codice_articolo: 'B', quantita: 2, unita_misura: 'PZ' }],
    }]);
    throwsIntake(
      () => decodeCsv(csv(HEADER, '"multi\nline";PO-1;2024-05-02;;A;1;PZ', `C001;PO-1${';'.repeat(300)}`)),
      'NOT_PARSEABLE',
      /\(line 4 has more\)/,
    );
  });

  void it('takes a quote inside an unquoted cell literally', () => {
    const [order] = decodeCsv(csv(HEADER, 'C001;PO 12" x 18";2024-05-02;;A;1;PZ')) as Array<Record<string, unknown>>;
    assert.equal(order?.riferimento_ordine, 'PO 12" x 18"');
  });
});
