// Excel workbooks on the channels, beyond the format contract: the JSON shapes of REST name the cell of each error
// (`cella` in shape B, `celle` beside shape A's messages), an FTP/SFTP outcome file says "foglio ordini, riga N,
// colonna X", an old .xls is refused in Italian, and the lifecycle columns `azione`/`motivo` change and cancel an
// order sent as a workbook. Real server on port 0; curl for REST, basic-ftp and ssh2 for the file channels.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { orderWorkbook } from '../../src/intake/formats/xlsx/template.ts';
import { zipFiles } from '../../src/intake/formats/xlsx/zip-writer.ts';
import { startTestService, waitFor, type TestCustomer, type TestService } from '../helpers/service.ts';
import { ftpClient, ftpDownload, p, run, ssh2Sftp } from './files/helpers.ts';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A one-order workbook from our writer; `rows` are the lines (row 2 on). */
function book(ref: string, rows: { codice_articolo: string; quantita: number; unita_misura: string }[]): Buffer {
  return orderWorkbook({ customerCode: 'C001', units: [], rows: rows.map((r) => ({ codice_cliente: 'C001', riferimento_ordine: ref, data_ordine: '2026-11-20', ...r })) });
}

/** A workbook with lifecycle columns: azione and motivo after the reference (hand-written sheet, inline strings). */
function lifecycleBook(ref: string, azione: string, motivo: string, quantita?: number): Buffer {
  const s = (r: string, t: string) => `<c r="${r}" t="inlineStr"><is><t>${t}</t></is></c>`;
  const header = `<row r="1">${s('A1', 'Codice cliente')}${s('B1', 'Riferimento ordine')}${s('C1', 'Azione')}${s('D1', 'Motivo')}${s('E1', 'Data ordine')}${s('F1', 'Codice articolo')}${s('G1', 'Quantità')}${s('H1', 'U.M.')}</row>`;
  const line = quantita === undefined ? '' : `${s('E2', '20/11/2026')}${s('F2', 'BV-STD')}<c r="G2"><v>${quantita}</v></c>${s('H2', 'PZ')}`;
  const row = `<row r="2">${s('A2', 'C001')}${s('B2', ref)}${s('C2', azione)}${s('D2', motivo)}${line}</row>`;
  return zipFiles([
    { name: '[Content_Types].xml', data: '<Types><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>' },
    { name: 'xl/workbook.xml', data: '<workbook xmlns:r="r"><sheets><sheet name="ordini" sheetId="1" r:id="rId1"/></sheets></workbook>' },
    { name: 'xl/_rels/workbook.xml.rels', data: '<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>' },
    { name: 'xl/worksheets/sheet1.xml', data: `<worksheet><sheetData>${header}${row}</sheetData></worksheet>` },
  ]);
}

void describe('Excel workbooks on the channels', () => {
  let t: TestService;
  let c: TestCustomer;

  before(async () => {
    t = await startTestService({ INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_FTP_PASV_RANGE: '32000-32999' });
    c = await t.customer('C001');
  });
  after(async () => {
    await t?.close();
  });

  /** POST /api/v1/ordini with curl, the workbook as the body. */
  async function post(body: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
    const r = await run('curl', ['-sS', '-w', '\n%{http_code}', '-X', 'POST', '-H', `x-api-key: ${c.apiKey}`, '-H', `content-type: ${XLSX}`, '--data-binary', '@-', `${t.url}/api/v1/ordini`], body);
    const lines = r.stdout.trimEnd().split('\n');
    return { status: Number(lines.pop()), body: JSON.parse(lines.join('\n')) as Record<string, unknown> };
  }

  void it('REST: a business error carries the cell beside its field, a structure error the cells of its fields', async () => {
    const unknown = await post(book('XC-1', [{ codice_articolo: 'BV-STD', quantita: 5, unita_misura: 'PZ' }, { codice_articolo: 'NON-ESISTE', quantita: 5, unita_misura: 'PZ' }]));
    assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
    assert.deepEqual(unknown.body.errori, [{ campo: 'righe[1].codice_articolo', messaggio: 'Articolo sconosciuto: "NON-ESISTE"', cella: 'ordini!E3' }]);
    const zero = await post(book('XC-2', [{ codice_articolo: 'BV-STD', quantita: 0, unita_misura: 'PZ' }]));
    assert.equal(zero.status, 400, JSON.stringify(zero.body));
    assert.deepEqual(zero.body.message, ['righe.0.quantita must be a positive number']);
    assert.deepEqual(zero.body.celle, [{ campo: 'righe[0].quantita', cella: 'ordini!F2' }]);
  });

  void it('REST: an old .xls is refused as such (415), never a 5xx', async () => {
    const xls = readFileSync(new URL('../fixtures/xlsx/ordini-libreoffice.xls', import.meta.url));
    const r = await post(xls);
    assert.equal(r.status, 415, JSON.stringify(r.body));
    assert.match(JSON.stringify(r.body.message), /old Excel workbook \(\.xls\)/);
  });

  void it('FTP: the outcome file of a refused workbook names the sheet, row and column', async () => {
    const ftp = await ftpClient(t.service.ports.ftp!, c.ftpUser, c.ftpPassword);
    try {
      const raw = book('XC-FTP', [{ codice_articolo: 'BV-STD', quantita: 5, unita_misura: 'PZ' }, { codice_articolo: 'BV-STD', quantita: 5, unita_misura: 'NON' }]);
      await ftp.uploadFrom(Readable.from([raw]), '/ordini/ordini-excel.xlsx');
      const text = await waitFor(async () => {
        const names = (await ftp.list('/ordini/esiti')).map((f) => f.name);
        return names.includes('ordini-excel.xlsx.esito.txt') ? (await ftpDownload(ftp, '/ordini/esiti/ordini-excel.xlsx.esito.txt')).toString('utf8') : undefined;
      }, 15_000, 'the outcome file');
      assert.match(text, /Ordine 1 \(riferimento XC-FTP, foglio ordini, righe 2-3\): NON registrato/);
      assert.match(text, /- Foglio ordini, riga 3, colonna Unità di misura: unità di misura sconosciuta/i);
      const json = JSON.parse((await ftpDownload(ftp, '/ordini/esiti/ordini-excel.xlsx.esito.json')).toString('utf8')) as { ordini: { errori: { cella?: string }[] }[] };
      assert.equal(json.ordini[0]!.errori[0]!.cella, 'ordini!G3');
    } finally {
      ftp.close();
    }
  });

  void it('the lifecycle columns: a workbook changes an order, another cancels it (SFTP)', async () => {
    const first = await post(book('XL-LIFE', [{ codice_articolo: 'BV-STD', quantita: 100, unita_misura: 'PZ' }]));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const changed = await post(lifecycleBook('XL-LIFE', 'Modifica', 'più biglietti', 250));
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal(changed.body.versione, 2);
    const customerId = (await t.service.store.getCustomerByCode('C001'))!.id;
    const now = await t.service.store.getOrderByRef(customerId, 'XL-LIFE');
    assert.deepEqual(now!.righe.map((r) => r.quantita), [250]);

    const { sftp, conn } = await ssh2Sftp(t.service.ports.sftp!, c.ftpUser, c.ftpPassword);
    try {
      await p((cb) => sftp.writeFile('/ordini/annulla.xlsx', lifecycleBook('XL-LIFE', 'annulla', 'ordine doppio'), cb));
      const id = first.body.id_ordine as string;
      const view = await waitFor(async () => {
        const res = await fetch(`${t.url}/api/v1/ordini/${id}`, { headers: { 'x-api-key': c.apiKey } });
        const body = (await res.json()) as Record<string, unknown>;
        return body.stato === 'annullato' ? body : undefined;
      }, 15_000, 'the order cancelled by the workbook');
      assert.equal(view.id_ordine, id);
    } finally {
      conn.end();
    }
  });
});
