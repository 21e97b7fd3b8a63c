/**
 * Decoders: orders/s for JSON, XML and CSV orders of 10 lines through decodeOrders + stage A, in this process;
 * then a 1,000,000-line CSV file (100,000 orders of 10 lines) through the intake in a child process per pass,
 * for rows/s and peak memory: once decode + stage A only, once the whole path with a SQLite store, run as the service
 * runs it (the compiled dist/, plain node) and, for comparison with earlier figures, from src/ under tsx; and a
 * 100,000-row Excel workbook (10,000 orders of 10 lines) the same way on the compiled code (bench/decoders/xlsx-child.ts).
 */
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { decodeOrders } from '../../src/intake/formats/index.ts';
import { validateStructure } from '../../src/intake/validate.ts';
import { askOnce, ROOT } from '../lib/children.ts';
import { summariseProfiles } from '../profile/summarise.ts';
import { csvOrder, CSV_HEADER, csvRows, jsonOrder, xmlOrder } from '../lib/orders.ts';
import type { BigFileResult, BigFileSpec } from '../decoders/big-file-child.ts';
import type { XlsxResult, XlsxSpec } from '../decoders/xlsx-child.ts';
import { summarise } from '../lib/stats.ts';
import type { Benchmark, BenchContext, Metric } from '../lib/types.ts';
import ts from 'typescript';

const LINES_PER_ORDER = 10;
/** Distinct documents per format, cycled: enough that no cache sees the same bytes twice in a row, small in memory. */
const DOCS_PER_FORMAT = 1000;
const BIG_ORDERS = 100_000;
const BIG_ROWS = BIG_ORDERS * LINES_PER_ORDER;
/** A pass over the big file that takes longer than this is stuck (or the machine is far too slow to measure). */
const BIG_PASS_TIMEOUT_MS = 10 * 60_000;

const FORMATS = [
  { name: 'JSON', mediaType: 'application/json', make: jsonOrder },
  { name: 'XML', mediaType: 'application/xml', make: xmlOrder },
  { name: 'CSV', mediaType: 'text/csv', make: csvOrder },
] as const;

/** Decodes and validates documents in turn for `seconds`; orders per second. */
function measureFormat(docs: Buffer[], mediaType: string, seconds: number): number {
  const end = performance.now() + seconds * 1000;
  const start = performance.now();
  let orders = 0;
  let i = 0;
  // The clock is read every 64 documents: often enough to stop on time, rarely enough to cost nothing.
  while (i % 64 !== 0 || performance.now() < end) {
    const candidates = decodeOrders({ raw: docs[i % docs.length]!, mediaType });
    for (const c of candidates) {
      if (!validateStructure(c).ok) throw new Error(`a generated ${mediaType} order failed stage A`);
      orders++;
    }
    i++;
  }
  return orders / ((performance.now() - start) / 1000);
}

/** Writes the big CSV in chunks of 1,000 orders, so generating it needs no more memory than one chunk. */
function writeBigCsv(file: string): number {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, CSV_HEADER);
    for (let o = 0; o < BIG_ORDERS; o += 1000) {
      let chunk = '';
      for (let k = o; k < o + 1000; k++) chunk += csvRows(`BIG-${String(k).padStart(6, '0')}`, LINES_PER_ORDER);
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  return statSync(file).size;
}

const CHILD = 'bench/decoders/big-file-child.ts';

/**
 * The child as JavaScript, for plain node, and dist/ built from this checkout: the whole path as `order-intake serve`
 * runs it, without tsx's ~45 MiB (its loader thread, esbuild's compiled modules and source maps). TypeScript's own
 * transpiler erases the child's types; the service's modules it imports are dist/'s.
 */
function compiledChild(tmpDir: string, child = CHILD, build = true): string {
  if (build) execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  const js = ts.transpileModule(readFileSync(path.join(ROOT, child), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  }).outputText;
  const out = path.join(tmpDir, `${path.basename(child, '.ts')}.mjs`);
  writeFileSync(out, js);
  return out;
}

const XLSX_CHILD = 'bench/decoders/xlsx-child.ts';
const XLSX_ORDERS = 10_000;
const XLSX_ROWS = XLSX_ORDERS * LINES_PER_ORDER;

async function xlsxPass(spec: Omit<XlsxSpec, 'root'>, compiled: string): Promise<XlsxResult> {
  return askOnce<XlsxResult>(compiled, { ...spec, root: ROOT, code: 'dist' }, BIG_PASS_TIMEOUT_MS, [], { plain: true });
}

async function bigPass(spec: Omit<BigFileSpec, 'root'>, cpuProfDir?: string, compiled?: string): Promise<BigFileResult> {
  const execArgv = [...(spec.mode === 'decode' ? ['--expose-gc'] : []), ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : [])];
  const full: BigFileSpec = { ...spec, root: ROOT };
  if (spec.code === 'dist') return askOnce<BigFileResult>(compiled!, full, BIG_PASS_TIMEOUT_MS, execArgv, { plain: true });
  return askOnce<BigFileResult>(CHILD, full, BIG_PASS_TIMEOUT_MS, execArgv);
}

export const decodersBenchmark: Benchmark = {
  name: 'decoders',
  description: `JSON/XML/CSV orders of ${LINES_PER_ORDER} lines decoded + validated; a ${BIG_ROWS.toLocaleString('en-US')}-line CSV file through the intake`,
  byDefault: true,
  async run(ctx: BenchContext) {
    const docs = FORMATS.map((f) => Array.from({ length: DOCS_PER_FORMAT }, (_, i) => Buffer.from(f.make(`DEC-${i}`, LINES_PER_ORDER))));
    const perFormat = FORMATS.map(() => [] as number[]);
    const bigFile = path.join(ctx.tmpDir, 'ordini-1m.csv');
    ctx.progress(`decoders: writing the ${BIG_ROWS.toLocaleString('en-US')}-line CSV`);
    const bigBytes = writeBigCsv(bigFile);
    ctx.progress('decoders: building dist/ (the whole path is measured on the compiled code, as served)');
    const compiled = compiledChild(ctx.tmpDir);
    const compiledXlsx = compiledChild(ctx.tmpDir, XLSX_CHILD, false);
    const xlsxFile = path.join(ctx.tmpDir, 'ordini-100k.xlsx');
    ctx.progress(`decoders: writing the ${XLSX_ROWS.toLocaleString('en-US')}-row Excel workbook`);
    const xlsxBytes = (await xlsxPass({ file: xlsxFile, mode: 'write', dataDir: '', orders: XLSX_ORDERS, linesPerOrder: LINES_PER_ORDER }, compiledXlsx)).bytes;
    const notes: string[] = [];
    if (ctx.profile) {
      ctx.progress('decoders: profiling one decode + stage A pass of the big CSV');
      const profDir = path.join(ctx.tmpDir, 'cpuprofile');
      const res = await bigPass({ file: bigFile, mode: 'decode', dataDir: '' }, profDir);
      notes.push(`profile pass (not in the figures): ${(BIG_ROWS / res.seconds).toFixed(0)} rows/s under the profiler`,
        ...summariseProfiles(profDir, ROOT, path.join(ROOT, 'bench/results/decoders.cpuprofile')));
    }
    const decodeRows: number[] = [];
    const decodeRss: number[] = [];
    const intakeRows: number[] = [];
    const intakeRss: number[] = [];
    const tsxRss: number[] = [];
    const details: unknown[] = [];
    const xlsxRows: number[] = [];
    const xlsxRss: number[] = [];
    const xlsxStall: number[] = [];
    const xlsxIntakeRows: number[] = [];
    const xlsxIntakeRss: number[] = [];
    for (let run = 1; run <= ctx.runs; run++) {
      FORMATS.forEach((f, k) => {
        ctx.progress(`decoders run ${run}/${ctx.runs}: ${f.name}`);
        measureFormat(docs[k]!, f.mediaType, ctx.warmupSec);
        perFormat[k]!.push(measureFormat(docs[k]!, f.mediaType, ctx.durationSec));
      });
      ctx.progress(`decoders run ${run}/${ctx.runs}: big CSV, decode + stage A`);
      const dec = await bigPass({ file: bigFile, mode: 'decode', dataDir: '' });
      if (dec.lines !== BIG_ROWS || dec.accepted !== BIG_ORDERS) throw new Error(`big CSV decode found ${dec.accepted} valid orders and ${dec.lines} lines`);
      ctx.progress(`decoders run ${run}/${ctx.runs}: big CSV, whole intake path (SQLite), compiled code`);
      const dataDir = path.join(ctx.tmpDir, `store-${run}`);
      mkdirSync(dataDir);
      const full = await bigPass({ file: bigFile, mode: 'intake', dataDir, code: 'dist' }, undefined, compiled);
      if (full.accepted !== BIG_ORDERS) throw new Error(`big CSV intake accepted ${full.accepted} of ${BIG_ORDERS} orders`);
      ctx.progress(`decoders run ${run}/${ctx.runs}: big CSV, whole intake path (SQLite), src/ under tsx`);
      const tsxDir = path.join(ctx.tmpDir, `store-tsx-${run}`);
      mkdirSync(tsxDir);
      const underTsx = await bigPass({ file: bigFile, mode: 'intake', dataDir: tsxDir, code: 'src' });
      if (underTsx.accepted !== BIG_ORDERS) throw new Error(`big CSV intake under tsx accepted ${underTsx.accepted} of ${BIG_ORDERS} orders`);
      tsxRss.push(underTsx.peakRssMiB);
      decodeRows.push(BIG_ROWS / dec.seconds);
      decodeRss.push(dec.peakRssMiB);
      intakeRows.push(BIG_ROWS / full.seconds);
      intakeRss.push(full.peakRssMiB);
      ctx.progress(`decoders run ${run}/${ctx.runs}: Excel workbook, decode + stage A, then the whole intake path (SQLite), compiled code`);
      const xdec = await xlsxPass({ file: xlsxFile, mode: 'decode', dataDir: '' }, compiledXlsx);
      if (xdec.lines !== XLSX_ROWS || xdec.accepted !== XLSX_ORDERS) throw new Error(`Excel decode found ${xdec.accepted} valid orders and ${xdec.lines} lines`);
      const xDir = path.join(ctx.tmpDir, `store-xlsx-${run}`);
      mkdirSync(xDir);
      const xfull = await xlsxPass({ file: xlsxFile, mode: 'intake', dataDir: xDir }, compiledXlsx);
      if (xfull.accepted !== XLSX_ORDERS) throw new Error(`Excel intake accepted ${xfull.accepted} of ${XLSX_ORDERS} orders`);
      xlsxRows.push(XLSX_ROWS / xdec.seconds);
      xlsxRss.push(xdec.peakRssMiB);
      xlsxStall.push(xdec.maxEventLoopStallMs ?? NaN);
      xlsxIntakeRows.push(XLSX_ROWS / xfull.seconds);
      xlsxIntakeRss.push(xfull.peakRssMiB);
      details.push({ run, perFormat: perFormat.map((s) => s[s.length - 1]), decode: dec, intake: full, intakeUnderTsx: underTsx, xlsxDecode: xdec, xlsxIntake: xfull });
      ctx.progress(`decoders run ${run}: ${FORMATS.map((f, k) => `${f.name} ${perFormat[k]!.at(-1)!.toFixed(0)}/s`).join(', ')}; `
        + `big CSV decode ${(BIG_ROWS / dec.seconds).toFixed(0)} rows/s peak ${dec.peakRssMiB.toFixed(0)} MiB, `
        + `intake ${(BIG_ROWS / full.seconds).toFixed(0)} rows/s peak ${full.peakRssMiB.toFixed(0)} MiB (under tsx ${underTsx.peakRssMiB.toFixed(0)} MiB)`);
    }
    const metrics: Metric[] = [
      ...FORMATS.map((f, k): Metric => ({ name: `${f.name} order, ${LINES_PER_ORDER} lines`, unit: 'orders/s', better: 'higher', samples: perFormat[k]! })),
      { name: '1M-line CSV: decode + stage A', unit: 'rows/s', better: 'higher', samples: decodeRows, target: { value: 200_000, op: '>=' } },
      { name: '1M-line CSV: decode peak RSS', unit: 'MiB', better: 'lower', samples: decodeRss, target: { value: 256, op: '<=' } },
      { name: '1M-line CSV: whole intake (SQLite)', unit: 'rows/s', better: 'higher', samples: intakeRows },
      { name: '1M-line CSV: whole intake peak RSS', unit: 'MiB', better: 'lower', samples: intakeRss, target: { value: 256, op: '<=' } },
      { name: '1M-line CSV: whole intake peak RSS, src/ under tsx', unit: 'MiB', better: 'lower', samples: tsxRss },
      { name: '100k-row Excel: decode + stage A', unit: 'rows/s', better: 'higher', samples: xlsxRows, target: { value: 50_000, op: '>=' } },
      { name: '100k-row Excel: decode peak RSS', unit: 'MiB', better: 'lower', samples: xlsxRss, target: { value: 256, op: '<=' } },
      { name: '100k-row Excel: longest event loop stall while decoding', unit: 'ms', better: 'lower', samples: xlsxStall, target: { value: 50, op: '<=' } },
      { name: '100k-row Excel: whole intake (SQLite)', unit: 'rows/s', better: 'higher', samples: xlsxIntakeRows },
      { name: '100k-row Excel: whole intake peak RSS', unit: 'MiB', better: 'lower', samples: xlsxIntakeRss, target: { value: 256, op: '<=' } },
    ];
    notes.push(`the Excel workbook is ${(xlsxBytes / 2 ** 20).toFixed(1)} MiB (${XLSX_ORDERS.toLocaleString('en-US')} orders of ${LINES_PER_ORDER} lines), written as Excel writes one `
      + '(shared strings, serial dates with a date format, numbers); the sheet is inflated and read in pieces as it comes (xlsx/), its orders held until the sheet ends');
    notes.push(
      `the 1M-line file is ${(bigBytes / 2 ** 20).toFixed(1)} MiB, handed over as a local file as the FTP/SFTP channels do (never held whole); it is read in 64 KiB `
        + 'pieces twice (csv/stream.ts: a first pass checks the file with csv-parse and counts rows per order, the second hands out each '
        + 'order once its last row is read, splitting the rows itself when the file holds no quote: csv-unquoted.ts), and judged in batches of 1,000 orders, so the rest of the memory depends on the batch, not the file',
    );
    const baseline = details.length ? (details[0] as { decode: BigFileResult }).decode.baselineRssMiB : NaN;
    notes.push(`a child process at rest (node + tsx + the modules loaded) holds ${baseline.toFixed(0)} MiB of the decode peak`);
    notes.push('whole intake: measured on the compiled code (dist/, built by this benchmark, in plain node), as `order-intake serve` runs it; '
      + 'the same pass from src/ under tsx is given beside it (tsx adds ~45 MiB at rest: its loader thread, esbuild\'s compiled modules and their source maps), '
      + 'as the whole-path figures before 2026-11-26 were measured');
    const held = (details as { decode: BigFileResult }[]).map((d) => d.decode.retainedMiB).filter((r) => r !== undefined);
    if (held.length > 0) {
      const med = (f: (r: NonNullable<BigFileResult['retainedMiB']>) => number) => summarise(held.map(f)).median.toFixed(0);
      notes.push(`decode, memory still held after a full GC (heap + Buffers, medians): with the file read ${med((r) => r.file)} MiB, `
        + `after the first pass (one entry per order) ${med((r) => r.planned)} MiB, after every order was read and validated ${med((r) => r.validated)} MiB`);
    }
    return {
      settings: {
        linesPerOrder: LINES_PER_ORDER, documentsPerFormat: DOCS_PER_FORMAT, warmupSec: ctx.warmupSec, durationSec: ctx.durationSec,
        bigFile: { orders: BIG_ORDERS, rows: BIG_ROWS, bytes: bigBytes, delimiter: ';', decimalComma: 'every 4th quantity' },
        excelFile: { orders: XLSX_ORDERS, rows: XLSX_ROWS, bytes: xlsxBytes },
        bigFileIntakeStore: 'SQLite (synchronous=FULL), fresh per run, DEMO catalog',
        inProcess: 'formats measured in the benchmark process itself; the big file in a child per pass',
      },
      durability: 'decode: in memory, nothing stored. whole intake: SQLite WAL synchronous=FULL, raw file committed before processing',
      metrics,
      notes,
      details,
    };
  },
};
