/**
 * Workbooks we write: the template customers download ("Scarica il modello Excel") and the example order of the
 * format. Sheet `ordini` has the header row in the human column names, the customer's code filled in, date-formatted
 * date columns, text-formatted code columns (so that Excel keeps `00123` as typed) and a drop-down of the units of
 * measure (data validation from the sheet `unita`); sheet `istruzioni` says in Italian how to fill it in.
 * Text is written as inline strings, so the workbook needs no shared strings part.
 */
import { zipFiles } from './zip-writer.ts';

export interface TemplateUnit {
  code: string;
  description: string;
}

export interface TemplateRow {
  codice_cliente: string;
  riferimento_ordine?: string;
  data_ordine?: string;
  data_consegna?: string;
  codice_articolo?: string;
  quantita?: number;
  unita_misura?: string;
}

/** Columns of the sheet: the field, its header as people read it, its kind, its width in characters. */
export const TEMPLATE_COLUMNS = [
  { field: 'codice_cliente', header: 'Codice cliente', kind: 'text', width: 16 },
  { field: 'riferimento_ordine', header: 'Riferimento ordine', kind: 'text', width: 20 },
  { field: 'data_ordine', header: 'Data ordine', kind: 'date', width: 13 },
  { field: 'data_consegna', header: 'Data consegna', kind: 'date', width: 14 },
  { field: 'codice_articolo', header: 'Codice articolo', kind: 'text', width: 18 },
  { field: 'quantita', header: 'Quantità', kind: 'number', width: 11 },
  { field: 'unita_misura', header: 'Unità di misura', kind: 'text', width: 16 },
] as const;

/** Rows of the template ready to fill (customer code written, formats and drop-down set). */
export const TEMPLATE_ROWS = 500;

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const col = (i: number) => String.fromCharCode(65 + i);

/** Style indexes of styles.xml below. */
const STYLE = { general: 0, date: 1, text: 2, header: 3, number: 4 } as const;

const STYLES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">
<numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/></numFmts>
<fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts>
<fills count="3"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill><fill><patternFill patternType="solid"><fgColor rgb="FFDDEBF7"/></patternFill></fill></fills>
<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>
<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>
<cellXfs count="5">
<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>
<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="49" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>
<xf numFmtId="49" fontId="1" fillId="2" borderId="0" xfId="0" applyFont="1" applyFill="1" applyNumberFormat="1"/>
<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>
</cellXfs>
<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>
</styleSheet>`;

function inline(ref: string, text: string, style: number): string {
  return `<c r="${ref}" s="${style}" t="inlineStr"><is><t xml:space="preserve">${esc(text)}</t></is></c>`;
}

/** ISO date → serial number of the 1900 date system. */
function serial(iso: string): number {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  return Math.round((Date.UTC(y, m - 1, d) - Date.UTC(1899, 11, 30)) / 86_400_000);
}

function styleOf(kind: string): number {
  return kind === 'date' ? STYLE.date : kind === 'text' ? STYLE.text : STYLE.number;
}

function ordersSheet(rows: TemplateRow[], units: TemplateUnit[], filled: number): string {
  const cols = TEMPLATE_COLUMNS.map((c, i) => `<col min="${i + 1}" max="${i + 1}" width="${c.width}" style="${styleOf(c.kind)}" customWidth="1"/>`).join('');
  const header = `<row r="1">${TEMPLATE_COLUMNS.map((c, i) => inline(`${col(i)}1`, c.header, STYLE.header)).join('')}</row>`;
  const body: string[] = [];
  for (let r = 0; r < filled; r++) {
    const n = r + 2;
    const data = rows[r] as Record<string, string | number | undefined> | undefined;
    const cells = TEMPLATE_COLUMNS.map((c, i) => {
      const ref = `${col(i)}${n}`;
      const v = data?.[c.field];
      if (v === undefined || v === '') return `<c r="${ref}" s="${styleOf(c.kind)}"/>`;
      if (c.kind === 'date') return `<c r="${ref}" s="${STYLE.date}"><v>${serial(String(v))}</v></c>`;
      if (c.kind === 'number') return `<c r="${ref}" s="${STYLE.number}"><v>${Number(v)}</v></c>`;
      return inline(ref, String(v), STYLE.text);
    });
    body.push(`<row r="${n}">${cells.join('')}</row>`);
  }
  const unitCol = col(TEMPLATE_COLUMNS.findIndex((c) => c.field === 'unita_misura'));
  const validation = units.length === 0 ? '' : `<dataValidations count="1"><dataValidation type="list" allowBlank="1" showErrorMessage="1" errorTitle="Unità di misura" error="Scelga un'unità di misura dall'elenco (foglio unita)." sqref="${unitCol}2:${unitCol}${filled + 1}"><formula1>unita!$A$2:$A$${units.length + 1}</formula1></dataValidation></dataValidations>`;
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<sheetViews><sheetView workbookViewId="0" tabSelected="1"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/></sheetView></sheetViews>
<sheetFormatPr defaultRowHeight="15"/>
<cols>${cols}</cols>
<sheetData>${header}${body.join('')}</sheetData>
${validation}
</worksheet>`;
}

function textSheet(lines: string[][], widths: number[]): string {
  const cols = widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('');
  const rows = lines.map((cells, r) => `<row r="${r + 1}">${cells.map((t, i) => (t === '' ? '' : inline(`${col(i)}${r + 1}`, t, r === 0 ? STYLE.header : STYLE.text))).join('')}</row>`).join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cols>${cols}</cols><sheetData>${rows}</sheetData></worksheet>`;
}

export function instructions(customerCode: string): string[][] {
  return [
    ['Come compilare il foglio «ordini»'],
    [''],
    ['Una riga per ogni riga d\'ordine. Le righe con lo stesso codice cliente e lo stesso riferimento ordine formano un solo ordine.'],
    [`Codice cliente: è già scritto (${customerCode}); lo lasci così.`],
    ['Riferimento ordine: il vostro numero o codice dell\'ordine, uguale su tutte le sue righe. Se lo stesso riferimento arriva di nuovo con lo stesso contenuto, l\'ordine non viene registrato due volte.'],
    ['Data ordine: obbligatoria, per esempio 28/11/2026. Data consegna: facoltativa.'],
    ['Codice articolo: il codice del nostro catalogo, scritto come lo vede (gli zeri iniziali contano: 00123).'],
    ['Quantità: un numero maggiore di zero; i decimali si scrivono con la virgola (2,5).'],
    ['Unità di misura: la scelga dall\'elenco a discesa (le unità sono nel foglio «unita»).'],
    [''],
    ['Le righe vuote vengono ignorate. Non cambi i nomi delle colonne della prima riga; può aggiungere colonne di note, che vengono ignorate.'],
    ['Salvi il file in formato Excel (.xlsx) e lo invii per e-mail, lo carichi sul portale oppure nella cartella /ordini/ via FTP o SFTP.'],
    ['Se un valore non va bene, la risposta indica la cella: per esempio «foglio ordini, riga 7, colonna Quantità».'],
  ];
}

/** The workbook: `rows` written in (the example), else the customer's code on TEMPLATE_ROWS rows to fill. */
export function orderWorkbook(opts: { customerCode: string; units: TemplateUnit[]; rows?: TemplateRow[] }): Buffer {
  const rows = opts.rows ?? Array.from({ length: TEMPLATE_ROWS }, () => ({ codice_cliente: opts.customerCode }));
  const units = opts.units;
  const sheets = [
    { name: 'ordini', xml: ordersSheet(rows, units, rows.length) },
    { name: 'istruzioni', xml: textSheet(instructions(opts.customerCode), [120]) },
    { name: 'unita', xml: textSheet([['Codice', 'Descrizione'], ...units.map((u) => [u.code, u.description])], [12, 40]) },
  ];
  const contentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">
<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>
<Default Extension="xml" ContentType="application/xml"/>
<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>
<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>
${sheets.map((_s, i) => `<Override PartName="/xl/worksheets/sheet${i + 1}.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join('\n')}
</Types>`;
  const rootRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;
  const workbook = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">
<workbookPr/><bookViews><workbookView activeTab="0"/></bookViews>
<sheets>${sheets.map((s, i) => `<sheet name="${s.name}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`).join('')}</sheets>
</workbook>`;
  const workbookRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
${sheets.map((_s, i) => `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`).join('\n')}
<Relationship Id="rId${sheets.length + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
</Relationships>`;
  return zipFiles([
    { name: '[Content_Types].xml', data: contentTypes },
    { name: '_rels/.rels', data: rootRels },
    { name: 'xl/workbook.xml', data: workbook },
    { name: 'xl/_rels/workbook.xml.rels', data: workbookRels },
    { name: 'xl/styles.xml', data: STYLES },
    ...sheets.map((s, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: s.xml })),
  ]);
}
