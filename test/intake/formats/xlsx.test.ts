import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { openOrdersYielding } from '../../../src/intake/formats/index.ts';
import { orderWorkbook, readXlsx, serialDate, headerKey, xlsxFormat } from '../../../src/intake/formats/xlsx/index.ts';
import { cellRef, cellWords, sheetPlacesOf } from '../../../src/intake/formats/xlsx/places.ts';
import { zipFiles } from '../../../src/intake/formats/xlsx/zip-writer.ts';
import { unreadReason } from '../../../src/intake/formats/people-values.ts';
import { assertIntakeError } from './helpers.ts';
import { IntakeError } from '../../../src/domain/errors.ts';
import { fileErrorItalian } from '../../../src/render/people-errors.ts';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
import type { ErrorCode } from '../../../src/domain/errors.ts';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/xlsx/${name}`, import.meta.url));

/** What LibreOffice's files hold (test/fixtures/xlsx/*.fods, converted by make.sh). */
const LIBREOFFICE_ORDERS = [
  {
    codice_cliente: 'C001', riferimento_ordine: 'PO-100', data_ordine: '2026-11-20', data_consegna: '2026-11-28',
    righe: [{ codice_articolo: '00123', quantita: 500, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 2.5, unita_misura: 'PZ' }],
  },
  {
    codice_cliente: 'C001', riferimento_ordine: 'PO-101', data_ordine: '2026-11-21',
    righe: [{ codice_articolo: '00045', quantita: 1500, unita_misura: 'PZ' }, { codice_articolo: 'BV-STD', quantita: 0, unita_misura: 'PZ' }],
  },
];

async function rejects(p: Promise<unknown>, code: ErrorCode, message: RegExp): Promise<void> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  assertIntakeError(caught, code, message);
}

const CT_MAIN = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml';

/** A workbook from hand-written parts: one sheet `ordini`, and whatever a test puts in or overrides. */
function workbook(sheetData: string, parts: Record<string, string | Buffer> = {}, opts: { workbookPr?: string; sheetHead?: string } = {}): Buffer {
  const base: Record<string, string | Buffer> = {
    '[Content_Types].xml': `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="${CT_MAIN}"/></Types>`,
    'xl/workbook.xml': `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">${opts.workbookPr ?? ''}<sheets><sheet name="ordini" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    'xl/_rels/workbook.xml.rels': '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
    'xl/worksheets/sheet1.xml': `<?xml version="1.0"?>${opts.sheetHead ?? ''}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetData}</sheetData></worksheet>`,
  };
  return zipFiles(Object.entries({ ...base, ...parts }).map(([name, data]) => ({ name, data })));
}

const str = (ref: string, t: string) => `<c r="${ref}" t="inlineStr"><is><t>${t}</t></is></c>`;
const num = (ref: string, v: number | string, s?: number) => `<c r="${ref}"${s !== undefined ? ` s="${s}"` : ''}><v>${v}</v></c>`;
const HEADER_ROW = `<row r="1">${str('A1', 'codice_cliente')}${str('B1', 'riferimento_ordine')}${str('C1', 'data_ordine')}${str('D1', 'codice_articolo')}${str('E1', 'quantita')}${str('F1', 'unita_misura')}</row>`;
const dataRow = (r: number, ref = 'R1', q: string = num(`E${r}`, 5)) => `<row r="${r}">${str(`A${r}`, 'C001')}${str(`B${r}`, ref)}${str(`C${r}`, '2026-11-20')}${str(`D${r}`, 'A')}${q}${str(`F${r}`, 'PZ')}</row>`;

void describe('Excel workbooks written by LibreOffice', () => {
  void it('reads the layout below title rows, on the sheet named Ordini, with human headers, formats and formulas', async () => {
    const { candidates, count } = await readXlsx(fixture('ordini-libreoffice.xlsx'));
    assert.equal(count, 2);
    assert.deepEqual(JSON.parse(JSON.stringify(candidates)), LIBREOFFICE_ORDERS);
  });

  void it('reads the dates of a workbook in the 1904 date system as the same days', async () => {
    assert.match(readFileSync(new URL('../../fixtures/xlsx/ordini-1904.xlsx', import.meta.url)).toString('latin1'), /PK/);
    const { candidates } = await readXlsx(fixture('ordini-1904.xlsx'));
    assert.deepEqual(JSON.parse(JSON.stringify(candidates)), LIBREOFFICE_ORDERS);
  });

  void it('reads a CSV imported into LibreOffice with text and date columns', async () => {
    const { candidates } = await readXlsx(fixture('ordini-csv.xlsx'));
    assert.deepEqual(JSON.parse(JSON.stringify(candidates)), [{
      codice_cliente: 'C001', riferimento_ordine: 'PO-200', data_ordine: '2026-11-20',
      righe: [{ codice_articolo: '00123', quantita: 500, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 2.5, unita_misura: 'PZ' }],
    }]);
  });

  void it('reads our template once LibreOffice has filled it in and saved it again', async () => {
    const { candidates } = await readXlsx(fixture('modello-compilato-libreoffice.xlsx'));
    assert.deepEqual(JSON.parse(JSON.stringify(candidates)), [{
      codice_cliente: 'C001', riferimento_ordine: 'PO-300', data_ordine: '2026-11-20', data_consegna: '2026-12-01',
      righe: [{ codice_articolo: '00123', quantita: 250, unita_misura: 'PZ' }, { codice_articolo: 'VOL-A4', quantita: 1.5, unita_misura: 'KG' }],
    }]);
  });

  void it('keeps where each value came from: cell references and words for people', async () => {
    const { candidates } = await readXlsx(fixture('ordini-libreoffice.xlsx'));
    const places = sheetPlacesOf(candidates[1])!;
    assert.deepEqual(places.righe, [8, 9]);
    assert.equal(cellRef(places, 'righe[1].quantita'), 'Ordini!F9');
    assert.equal(cellRef(places, 'data_ordine'), 'Ordini!C8');
    assert.equal(cellWords(places, 'righe[0].unita_misura'), 'foglio Ordini, riga 8, colonna U.M.');
    assert.equal(cellWords(places, 'righe[1].quantita'), 'foglio Ordini, riga 9, colonna Quantità');
    // Candidates serialise without their places.
    assert.doesNotMatch(JSON.stringify(candidates), /foglio|Ordini!/);
  });
});

void describe('Excel workbooks written by our writer', () => {
  void it('reads the format example back (inline strings, date serials, numbers)', async () => {
    const order = { codice_cliente: 'C001', riferimento_ordine: 'R1', data_ordine: '2026-11-20', righe: [{ codice_articolo: '00123', quantita: 500, unita_misura: 'PZ' }, { codice_articolo: 'B', quantita: 2.5, unita_misura: 'KG' }] };
    const { candidates } = await readXlsx(xlsxFormat.example(order) as Buffer);
    assert.deepEqual(JSON.parse(JSON.stringify(candidates)), [order]);
  });

  void it('finds no order in an empty template: the customer code written down its rows is not an order', async () => {
    await rejects(readXlsx(orderWorkbook({ customerCode: 'C001', units: [{ code: 'PZ', description: 'Pezzi' }] })), 'NO_ORDERS', /no order/);
  });
});

void describe('Excel cells as Excel stores them', () => {
  void it('reads shared strings (rich text runs joined, phonetic hints left out), inline strings, booleans and errors', async () => {
    const sst = '<sst><si><t>C001</t></si><si><r><t>R</t></r><r><t>-9</t></r><rPh><t>ignored</t></rPh></si><si><t>P&amp;Z</t></si></sst>';
    const sheet = `${HEADER_ROW}<row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="s"><v>1</v></c>${str('C2', '20/11/2026')}<c r="D2" t="b"><v>1</v></c><c r="E2" t="e"><v>#DIV/0!</v></c><c r="F2" t="s"><v>2</v></c></row>`;
    const { candidates } = await readXlsx(workbook(sheet, { 'xl/sharedStrings.xml': sst }));
    const o = candidates[0] as { righe: Record<string, unknown>[] } & Record<string, unknown>;
    assert.equal(o.riferimento_ordine, 'R-9');
    assert.equal(o.data_ordine, '2026-11-20');
    assert.deepEqual(JSON.parse(JSON.stringify(o.righe[0])), { codice_articolo: 'VERO', quantita: '#DIV/0!', unita_misura: 'P&Z' });
    assert.match(unreadReason(o.righe[0]!, 'quantita')!, /«#DIV\/0!» non è un numero/);
  });

  void it('reads formulas by their cached value, and numbers as Excel shows them (15 digits)', async () => {
    const sheet = `${HEADER_ROW}${dataRow(2, 'R1', `<c r="E2"><f>0.1+0.2</f><v>0.30000000000000004</v></c>`)}${dataRow(3, 'R1', `<c r="E3" t="str"><f>TEXT(3,"0")</f><v>3</v></c>`)}`;
    const { candidates } = await readXlsx(workbook(sheet));
    assert.deepEqual((candidates[0] as { righe: { quantita: unknown }[] }).righe.map((r) => r.quantita), [0.3, 3]);
  });

  void it('reads text quantities as CSV does: Italian commas, and refuses what is ambiguous among decimal points', async () => {
    const it1 = await readXlsx(workbook(`${HEADER_ROW}${dataRow(2, 'R1', str('E2', '1.500'))}${dataRow(3, 'R1', str('E3', '2,5'))}`));
    assert.deepEqual((it1.candidates[0] as { righe: { quantita: unknown }[] }).righe.map((r) => r.quantita), [1500, 2.5]);
    const mixed = await readXlsx(workbook(`${HEADER_ROW}${dataRow(2, 'R1', str('E2', '1.500'))}${dataRow(3, 'R1', str('E3', '2.5'))}`));
    const line = (mixed.candidates[0] as { righe: Record<string, unknown>[] }).righe[0]!;
    assert.equal(line.quantita, '1.500');
    assert.match(unreadReason(line, 'quantita')!, /ambiguo/);
  });

  void it('reads serial dates in both date systems, text dates in Italian or ISO form, and refuses a two-digit year', async () => {
    assert.equal(serialDate(46346, false), '2026-11-20');
    assert.equal(serialDate(46346 - 1462, true), '2026-11-20');
    assert.equal(serialDate(59, false), '1900-02-28');
    assert.equal(serialDate(61, false), '1900-03-01');
    assert.equal(serialDate(0, false), undefined);
    const sheet = (c: string) => `${HEADER_ROW}<row r="2">${str('A2', 'C001')}${str('B2', 'R')}${c}${str('D2', 'A')}${num('E2', 1)}${str('F2', 'PZ')}</row>`;
    const date = async (c: string, pr = '') => {
      const o = (await readXlsx(workbook(sheet(c), {}, { workbookPr: pr }))).candidates[0] as Record<string, unknown>;
      return [o.data_ordine, unreadReason(o, 'data_ordine')];
    };
    assert.deepEqual(await date(num('C2', 46346, 0)), ['2026-11-20', undefined]);
    assert.deepEqual(await date(num('C2', 46346 - 1462, 0), '<workbookPr date1904="1"/>'), ['2026-11-20', undefined]);
    assert.deepEqual(await date(str('C2', '20/11/2026')), ['2026-11-20', undefined]);
    assert.deepEqual(await date(str('C2', '2026-11-20')), ['2026-11-20', undefined]);
    const [text, why] = await date(str('C2', '20/11/26'));
    assert.equal(text, '20/11/26');
    assert.match(String(why), /quattro cifre/);
  });

  void it('reads a code held as a number with a zero-padded format as displayed', async () => {
    const styles = '<styleSheet><numFmts count="1"><numFmt numFmtId="164" formatCode="00000"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>';
    const sheet = `${HEADER_ROW}<row r="2">${str('A2', 'C001')}${num('B2', 77)}${str('C2', '2026-11-20')}${num('D2', 123, 1)}${num('E2', 1)}${str('F2', 'PZ')}</row>`;
    const rels = '<Relationships><Relationship Id="rId1" Type="x/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId3" Type="x/styles" Target="/xl/styles.xml"/></Relationships>';
    const o = (await readXlsx(workbook(sheet, { 'xl/styles.xml': styles, 'xl/_rels/workbook.xml.rels': rels }))).candidates[0] as { riferimento_ordine: string; righe: { codice_articolo: string }[] };
    assert.equal(o.righe[0]!.codice_articolo, '00123');
    assert.equal(o.riferimento_ordine, '77');
  });

  void it('finds human headers in any case, accents and punctuation, ignores empty rows and extra columns, groups rows by order', async () => {
    assert.equal(headerKey('Unità di misura'), 'unitadimisura');
    assert.equal(headerKey(' U.M. '), 'um');
    const header = `<row r="3">${str('A3', 'CODICE CLIENTE')}${str('B3', 'Numero')}${str('C3', 'Data Ordine')}${str('D3', 'Note interne')}${str('E3', 'Codice Articolo')}${str('F3', 'Pezzi')}${str('G3', 'Unita di Misura')}</row>`;
    const row = (r: number, ref: string, art: string) => `<row r="${r}">${str(`A${r}`, 'C001')}${str(`B${r}`, ref)}${str(`C${r}`, '2026-11-20')}${str(`D${r}`, 'x')}${str(`E${r}`, art)}${num(`F${r}`, 2)}${str(`G${r}`, 'PZ')}</row>`;
    const sheet = `<row r="1">${str('A1', 'Ordine di novembre')}</row>${header}${row(4, 'P1', 'A')}<row r="5"></row>${row(6, 'P2', 'B')}${row(9, 'P1', 'C')}`;
    // "Numero" and "Pezzi" are not names of the layout: the header lacks riferimento_ordine and quantita.
    await rejects(readXlsx(workbook(sheet)), 'NOT_PARSEABLE', /must name the columns .* \(row 3\); missing: riferimento_ordine, quantita/);
    const good = sheet.replace('Numero', 'Rif. ordine').replace('Pezzi', 'Q.tà');
    const { candidates } = await readXlsx(workbook(good));
    assert.deepEqual(candidates.map((c) => (c as { riferimento_ordine: string; righe: { codice_articolo: string }[] }).righe.map((r) => r.codice_articolo)), [['A', 'C'], ['B']]);
    assert.deepEqual(sheetPlacesOf(candidates[0])!.righe, [4, 9]);
  });

  void it('maps the lifecycle columns azione and motivo through', async () => {
    const header = `<row r="1">${str('A1', 'codice_cliente')}${str('B1', 'riferimento_ordine')}${str('C1', 'Azione')}${str('D1', 'Motivo')}${str('E1', 'data_ordine')}${str('F1', 'codice_articolo')}${str('G1', 'quantita')}${str('H1', 'unita_misura')}</row>`;
    const sheet = `${header}<row r="2">${str('A2', 'C001')}${str('B2', 'R1')}${str('C2', 'annulla')}${str('D2', 'cliente ha cambiato idea')}</row>`;
    const o = (await readXlsx(workbook(sheet))).candidates[0] as Record<string, unknown>;
    assert.equal(o.azione, 'annulla');
    assert.equal(o.motivo, 'cliente ha cambiato idea');
  });
});

void describe('Excel workbooks refused with a clear message', () => {
  const open = (raw: Buffer, fileName = 'ordine.xlsx') => openOrdersYielding({ raw, fileName }, { yieldNow: async () => undefined });

  void it('refuses an old .xls and a password-protected workbook (both Compound File Binary): save as .xlsx', async () => {
    await rejects(open(fixture('ordini-libreoffice.xls'), 'ordini.xls'), 'UNSUPPORTED_MEDIA_TYPE', /old Excel workbook \(\.xls\), a password-protected workbook.*save a workbook as \.xlsx without a password/);
    await rejects(open(fixture('ordini-libreoffice.xls'), 'ordini.xlsx'), 'UNSUPPORTED_MEDIA_TYPE', /password-protected/);
  });

  void it('refuses an OpenDocument spreadsheet, another ZIP, and a Word document by what they are', async () => {
    await rejects(open(fixture('ordini-libreoffice.ods'), 'ordini.ods'), 'UNSUPPORTED_MEDIA_TYPE', /OpenDocument spreadsheet \(\.ods\); save it as an Excel workbook/);
    await rejects(open(zipFiles([{ name: 'ordine.csv', data: 'x' }]), 'ordini.zip'), 'UNSUPPORTED_MEDIA_TYPE', /ZIP archive, not an Excel workbook/);
    await rejects(open(zipFiles([{ name: '[Content_Types].xml', data: '<Types/>' }, { name: 'word/document.xml', data: '<w/>' }]), 'a.docx'), 'UNSUPPORTED_MEDIA_TYPE', /Word document/);
  });

  void it('refuses a zip bomb: a part that inflates far beyond its size stops at the ratio limit', async () => {
    const t0 = Date.now();
    const huge = `<sst>${`<si><t>${'0'.repeat(100)}</t></si>`.repeat(200_000)}</sst>`;
    await rejects(open(workbook(HEADER_ROW + dataRow(2), { 'xl/sharedStrings.xml': huge })), 'NOT_PARSEABLE', /decompresses more than 250 times its size/);
    assert.ok(Date.now() - t0 < 5000);
  });

  void it('refuses an archive of more parts than any workbook has, before reading any', async () => {
    const parts = Object.fromEntries(Array.from({ length: 1000 }, (_x, i) => [`xl/media/image${i}.png`, 'x']));
    await rejects(open(workbook(HEADER_ROW + dataRow(2), parts)), 'NOT_PARSEABLE', /more than 1000 parts/);
  });

  void it('refuses a damaged archive', async () => {
    const good = workbook(HEADER_ROW + dataRow(2));
    await rejects(open(good.subarray(0, good.length - 30)), 'NOT_PARSEABLE', /damaged ZIP archive/);
  });

  void it('refuses DOCTYPE and entities inside the workbook, whatever the part', async () => {
    const doctype = '<!DOCTYPE worksheet [<!ENTITY x SYSTEM "file:///etc/passwd">]>';
    await rejects(open(workbook(HEADER_ROW + dataRow(2), {}, { sheetHead: doctype })), 'NOT_PARSEABLE', /DOCTYPE declaration, which is not accepted/);
    await rejects(open(workbook(HEADER_ROW + `<row r="2">${str('A2', '&x;')}</row>`)), 'NOT_PARSEABLE', /entity &x;/);
    await rejects(open(workbook(HEADER_ROW, { 'xl/sharedStrings.xml': '<!DOCTYPE sst><sst/>' })), 'NOT_PARSEABLE', /sharedStrings.xml has a DOCTYPE/);
  });

  void it('refuses a workbook with external links', async () => {
    await rejects(open(workbook(HEADER_ROW + dataRow(2), { 'xl/externalLinks/externalLink1.xml': '<externalLink/>' })), 'NOT_PARSEABLE', /links other workbooks/);
  });

  void it('refuses a sheet without the layout, or with more rows than allowed', async () => {
    await rejects(open(workbook(`<row r="1">${str('A1', 'Listino prezzi')}</row><row r="2">${str('A2', 'articolo')}${str('B2', 'prezzo')}</row>`)), 'NOT_PARSEABLE', /no header row naming the columns/);
    const rows = Array.from({ length: 6 }, (_x, i) => dataRow(i + 2, `R${i}`)).join('');
    await rejects(readXlsx(workbook(HEADER_ROW + rows), { maxRows: 5 }), 'NOT_PARSEABLE', /more than 5 rows of orders; split it/);
    const { count } = await readXlsx(workbook(HEADER_ROW + rows), { maxOrders: 2 });
    assert.equal(count, 3);
  });

  void it('reads a workbook whatever its label: Outlook calls it application/vnd.ms-excel (a CSV label)', async () => {
    const src = await openOrdersYielding({ raw: workbook(HEADER_ROW + dataRow(2)), mediaType: 'application/vnd.ms-excel', fileName: 'ordine.csv' }, { yieldNow: async () => undefined });
    assert.equal(src.count, 1);
  });

  void it('reads an .xlsm for its values only (macros are never read)', async () => {
    const ct = `<?xml version="1.0"?><Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.ms-excel.sheet.macroEnabled.main+xml"/></Types>`;
    const src = await open(workbook(HEADER_ROW + dataRow(2), { '[Content_Types].xml': ct, 'xl/vbaProject.bin': Buffer.from('not even looked at') }), 'ordine.xlsm');
    assert.equal(src.count, 1);
  });

  void it('says every refusal of a workbook in Italian, with its details, for replies and outcome files', async () => {
    const rows = Array.from({ length: 3 }, (_x, i) => dataRow(i + 2, `R${i}`)).join('');
    const cases: [Buffer, string][] = [
      [fixture('ordini-libreoffice.xls'), 'a.xls'],
      [fixture('ordini-libreoffice.ods'), 'a.ods'],
      [zipFiles([{ name: 'ordine.csv', data: 'x' }]), 'a.zip'],
      [workbook(HEADER_ROW + dataRow(2), {}, { sheetHead: '<!DOCTYPE worksheet>' }), 'a.xlsx'],
      [workbook(HEADER_ROW + `<row r="2">${str('A2', '&x;')}</row>`), 'a.xlsx'],
      [workbook(HEADER_ROW + dataRow(2), { 'xl/externalLinks/externalLink1.xml': '<externalLink/>' }), 'a.xlsx'],
      [workbook(`<row r="1">${str('A1', 'Listino')}</row>`), 'a.xlsx'],
      [workbook(`<row r="1">${str('A1', 'codice_cliente')}${str('B1', 'riferimento_ordine')}${str('C1', 'data_ordine')}</row>`), 'a.xlsx'],
      [workbook(HEADER_ROW + dataRow(2), { 'xl/sharedStrings.xml': `<sst>${`<si><t>${'0'.repeat(100)}</t></si>`.repeat(200_000)}</sst>` }), 'a.xlsx'],
      [workbook(HEADER_ROW + rows).subarray(0, 200), 'a.xlsx'],
      [Buffer.from('codice_cliente;riferimento_ordine\n'), 'a.xlsx'],
    ];
    for (const [raw, fileName] of cases) {
      let error: unknown;
      try {
        await openOrdersYielding({ raw, fileName, ...(fileName === 'a.xlsx' && raw[0] !== 0x50 ? { mediaType: XLSX_TYPE } : {}) }, { yieldNow: async () => undefined });
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof IntakeError, `${fileName} was read`);
      const [it] = fileErrorItalian(error.code, error.messages);
      assert.ok(it);
      assert.doesNotMatch(it, /\b(the|must|cannot|workbook|sheet|refused)\b/, `English left in "${it}" (from ${error.messages[0]})`);
      assert.doesNotMatch(it, /^Il file non è leggibile$|^Il formato del file non è accettato/, `no Italian sentence for: ${error.messages[0]}`);
    }
  });
});
