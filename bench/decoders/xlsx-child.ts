/**
 * One pass of a 100,000-row Excel workbook (10,000 orders of 10 lines) through the intake, in a process of its own so
 * that its peak RSS is the pass's own. The workbook is written the way Excel writes one: text in shared strings,
 * dates as serial numbers with a date format, numbers as numbers.
 * mode `decode`: the workbook read as judge() reads it (openOrdersYielding) and stage A on every order; the longest
 * time the event loop waited for a turn meanwhile (a timer every 5 ms, its lateness measured).
 * mode `intake`: the whole file channel path after the upload: a fresh SQLite store, intake.submit with the file as
 * Submission.rawFile (channel sftp), every order registered, outcome recorded.
 * Forked by the decoders benchmark: it sends {file, mode, dataDir, code, root}, gets an XlsxResult back.
 */
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface XlsxSpec {
  file: string;
  mode: 'decode' | 'intake' | 'write';
  dataDir: string;
  code?: 'src' | 'dist';
  root: string;
  orders?: number;
  linesPerOrder?: number;
}

export interface XlsxResult {
  mode: XlsxSpec['mode'];
  bytes: number;
  orders: number;
  accepted: number;
  lines?: number;
  seconds: number;
  peakRssMiB: number;
  baselineRssMiB: number;
  /** Mode decode: the longest wait of a 5 ms timer while the workbook was read (ms). */
  maxEventLoopStallMs?: number;
}

async function serviceModules(spec: XlsxSpec) {
  const at = (name: string) => (spec.code === 'dist' ? path.join(spec.root, 'dist', `${name}.js`) : path.join(spec.root, 'src', `${name}.ts`));
  return {
    ...await import(at('channels/files/spool')) as typeof import('../../src/channels/files/spool.ts'),
    ...await import(at('heap-growth')) as typeof import('../../src/heap-growth.ts'),
    ...await import(at('intake/formats/index')) as typeof import('../../src/intake/formats/index.ts'),
    ...await import(at('intake/formats/xlsx/zip-writer')) as typeof import('../../src/intake/formats/xlsx/zip-writer.ts'),
    ...await import(at('intake/intake')) as typeof import('../../src/intake/intake.ts'),
    ...await import(at('intake/validate')) as typeof import('../../src/intake/validate.ts'),
    ...await import(at('log')) as typeof import('../../src/log.ts'),
    ...await import(at('seed/demo')) as typeof import('../../src/seed/demo.ts'),
    ...await import(at('store/open')) as typeof import('../../src/store/open.ts'),
  };
}
type Modules = Awaited<ReturnType<typeof serviceModules>>;

/** The workbook, as Excel writes one: shared strings, a date style, numbers. */
function workbook(m: Modules, orders: number, lines: number): Buffer {
  const strings: string[] = [];
  const index = new Map<string, number>();
  const s = (t: string) => {
    let i = index.get(t);
    if (i === undefined) {
      i = strings.length;
      strings.push(t);
      index.set(t, i);
    }
    return i;
  };
  const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const headers = ['Codice cliente', 'Riferimento ordine', 'Data ordine', 'Data consegna', 'Codice articolo', 'Quantità', 'Unità di misura'];
  const rows: string[] = [`<row r="1">${headers.map((h, i) => `<c r="${String.fromCharCode(65 + i)}1" t="s"><v>${s(h)}</v></c>`).join('')}</row>`];
  const customer = s(m.DEMO_CUSTOMER.code);
  let r = 2;
  for (let o = 0; o < orders; o++) {
    const ref = s(`XL-${String(o).padStart(6, '0')}`);
    for (let i = 0; i < lines; i++, r++) {
      const a = m.DEMO_ARTICLES[i % m.DEMO_ARTICLES.length]!;
      const q = i % 4 === 3 ? `${100 + ((i * 37) % 900)}.5` : String(100 + ((i * 37) % 900));
      rows.push(`<row r="${r}"><c r="A${r}" t="s"><v>${customer}</v></c><c r="B${r}" t="s"><v>${ref}</v></c><c r="C${r}" s="1"><v>46037</v></c>`
        + `<c r="D${r}" s="1"><v>46055</v></c><c r="E${r}" t="s"><v>${s(a.codice_articolo)}</v></c><c r="F${r}"><v>${q}</v></c><c r="G${r}" t="s"><v>${s(a.unita_misura)}</v></c></row>`);
    }
  }
  const ns = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
  return m.zipFiles([
    { name: '[Content_Types].xml', data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>' },
    { name: 'xl/workbook.xml', data: `<?xml version="1.0"?><workbook ${ns} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="ordini" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', data: '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>' },
    { name: 'xl/styles.xml', data: `<?xml version="1.0"?><styleSheet ${ns}><numFmts count="1"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>` },
    { name: 'xl/sharedStrings.xml', data: `<?xml version="1.0"?><sst ${ns} count="${strings.length}" uniqueCount="${strings.length}">${strings.map((t) => `<si><t>${esc(t)}</t></si>`).join('')}</sst>` },
    { name: 'xl/worksheets/sheet1.xml', data: `<?xml version="1.0"?><worksheet ${ns}><sheetData>${rows.join('')}</sheetData></worksheet>` },
  ]);
}

async function decodePass(m: Modules, file: string, size: number): Promise<{ orders: number; accepted: number; lines: number; seconds: number; maxEventLoopStallMs: number }> {
  let worst = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 5);
    last = now;
  }, 5);
  const t0 = performance.now();
  try {
    const source = await m.openOrdersYielding({ bytes: m.fileBytes(file, size), fileName: 'ordini.xlsx' }, { yieldNow: () => new Promise((r) => setImmediate(r)) });
    let orders = 0;
    let accepted = 0;
    let lines = 0;
    let k = 0;
    for (const c of source.candidates()) {
      orders++;
      const a = m.validateStructure(c);
      if (a.ok) {
        accepted++;
        lines += a.order.righe.length;
      }
      // judge() validates in batches of 1,000 orders with turns between them.
      if (++k % 1000 === 0) await new Promise((r) => setImmediate(r));
    }
    return { orders, accepted, lines, seconds: (performance.now() - t0) / 1000, maxEventLoopStallMs: worst };
  } finally {
    clearInterval(tick);
  }
}

async function intakePass(m: Modules, file: string, size: number, dataDir: string): Promise<{ orders: number; accepted: number }> {
  const store = await m.openStore({ dataDir });
  try {
    const demo = await m.seedDemoIfEmpty(store, 'ordini.localhost');
    if (!demo) throw new Error('the data folder was not fresh');
    const intake = m.createIntake({ store, timeZone: 'Europe/Rome', log: m.createLogger('warn'), largeWork: m.holdHeapGrowthLimit });
    const { outcome } = await intake.submit({
      principal: { customerId: demo.customer.id, customerCode: demo.customer.code },
      channel: 'sftp', fileName: 'ordini.xlsx', raw: Buffer.alloc(0), rawFile: { path: file, size, sha256: await m.hashFile(file) },
      meta: {}, singleOrder: false,
    });
    if (outcome.fileError) throw new Error(`the file was refused: ${outcome.fileError.message.join('; ')}`);
    const firstError = outcome.orders.find((o) => o.esito !== 'ok');
    if (firstError) throw new Error(`an order was refused: ${JSON.stringify(firstError)}`);
    return { orders: outcome.orders.length, accepted: outcome.orders.length };
  } finally {
    await store.close();
  }
}

async function run(spec: XlsxSpec): Promise<XlsxResult> {
  const m = await serviceModules(spec);
  if (spec.mode === 'write') {
    const raw = workbook(m, spec.orders ?? 10_000, spec.linesPerOrder ?? 10);
    await writeFile(spec.file, raw);
    return { mode: 'write', bytes: raw.length, orders: 0, accepted: 0, seconds: 0, peakRssMiB: 0, baselineRssMiB: 0 };
  }
  m.limitHeapGrowth();
  const baselineRssMiB = process.memoryUsage().rss / 2 ** 20;
  const size = (await stat(spec.file)).size;
  const t0 = performance.now();
  let counts: { orders: number; accepted: number; lines?: number; seconds?: number; maxEventLoopStallMs?: number };
  if (spec.mode === 'decode') {
    const release = m.holdHeapGrowthLimit?.() ?? (() => undefined);
    counts = await decodePass(m, spec.file, size).finally(release);
  } else counts = await intakePass(m, spec.file, size, spec.dataDir);
  return {
    mode: spec.mode, bytes: size, ...counts, seconds: counts.seconds ?? (performance.now() - t0) / 1000,
    peakRssMiB: process.resourceUsage().maxRSS / 1024, baselineRssMiB,
  };
}

process.once('message', (spec: XlsxSpec) => {
  run(spec).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => process.send!({ error: String((err as Error)?.stack ?? err) }, () => process.exit(1)),
  );
});
