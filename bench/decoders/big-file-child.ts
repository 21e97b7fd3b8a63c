/**
 * One pass of a large order file through the intake, in a process of its own so its peak RSS is the pass's own.
 * mode `decode`: the bytes as the file channel hands them over (a local file, read in pieces: fileBytes), read as
 * judge() reads them (a first pass over the whole file, then orders one at a time) and stage A on every order,
 * none of them kept.
 * mode `intake`: the whole file channel path after the upload: a fresh SQLite store, intake.submit with the file as
 * Submission.rawFile (hashed in pieces, committed in pieces, decoded, validated, every order registered, outcome
 * recorded). Both bound the heap's growth as the service does while it judges a large file (src/heap-growth.ts).
 * Forked by the decoders benchmark: it sends {file, mode, dataDir, code}, gets a BigFileResult back.
 *
 * The service's modules are imported when the spec arrives, from src/ (this file run under tsx) or, with code
 * `dist`, from the compiled dist/ that `order-intake serve` runs: then the benchmark runs this file turned into
 * JavaScript with plain node (see decoders.ts), since tsx alone adds some 45 MiB to a process at rest (its loader
 * thread, every module compiled by esbuild with its source map) that the service does not have.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export interface BigFileSpec {
  file: string;
  mode: 'decode' | 'intake';
  /** Fresh folder for the SQLite store (mode intake). */
  dataDir: string;
  /** The service's code: src/ under tsx (default), or the compiled dist/ (run this file without tsx then). */
  code?: 'src' | 'dist';
  /** The checkout whose src/ or dist/ is run. */
  root: string;
}

/** The modules this pass uses, from src/ or dist/ (BigFileSpec.code). */
async function serviceModules(spec: BigFileSpec) {
  const at = (name: string) => (spec.code === 'dist' ? path.join(spec.root, 'dist', `${name}.js`) : path.join(spec.root, 'src', `${name}.ts`));
  return {
    ...await import(at('channels/files/spool')) as typeof import('../../src/channels/files/spool.ts'),
    ...await import(at('heap-growth')) as typeof import('../../src/heap-growth.ts'),
    ...await import(at('intake/formats/index')) as typeof import('../../src/intake/formats/index.ts'),
    ...await import(at('intake/intake')) as typeof import('../../src/intake/intake.ts'),
    ...await import(at('intake/validate')) as typeof import('../../src/intake/validate.ts'),
    ...await import(at('log')) as typeof import('../../src/log.ts'),
    ...await import(at('seed/demo')) as typeof import('../../src/seed/demo.ts'),
    ...await import(at('store/open')) as typeof import('../../src/store/open.ts'),
  };
}
type Modules = Awaited<ReturnType<typeof serviceModules>>;

export interface BigFileResult {
  mode: BigFileSpec['mode'];
  bytes: number;
  orders: number;
  accepted: number;
  /** Order lines that passed stage A (mode decode): every row of the file must be one. */
  lines?: number;
  /** From the file read to the last order validated (decode) or the outcome recorded (intake). */
  seconds: number;
  /** process.resourceUsage().maxRSS: the peak resident memory of this process, in MiB. */
  peakRssMiB: number;
  /** Resident memory before the file was read (Node, tsx and the loaded modules). */
  baselineRssMiB: number;
  /**
   * Mode decode: memory still held after each step once garbage is collected (heap + Buffers, MiB), so the peak
   * can be told apart from what is kept: the file, then after the first pass (one entry per order), then once
   * every order has been read and validated.
   */
  retainedMiB?: { file: number; planned: number; validated: number };
}

/** Heap and Buffer memory still reachable; needs --expose-gc (given by the benchmark), else what is there now. */
function retainedMiB(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.external + m.arrayBuffers) / 2 ** 20;
}

/** Decode + stage A, timed without the collections made to measure what each step keeps. */
async function decodePass(m: Modules, path: string, size: number): Promise<{ orders: number; accepted: number; lines: number; seconds: number; retainedMiB: BigFileResult['retainedMiB'] }> {
  const file = retainedMiB();
  const t0 = performance.now();
  const source = m.CsvOrderReader.open({ bytes: m.fileBytes(path, size), fileName: 'ordini.csv' });
  const t1 = performance.now();
  const planned = retainedMiB();
  const t2 = performance.now();
  let lines = 0;
  let orders = 0;
  let accepted = 0;
  // As judge() does, orders are validated as they come and not kept beyond their batch.
  for (const c of source.orders()) {
    orders++;
    const a = m.validateStructure(c);
    if (a.ok) {
      lines += a.order.righe.length;
      accepted++;
    }
  }
  const t3 = performance.now();
  const validated = retainedMiB();
  return { orders, accepted, lines, seconds: (t1 - t0 + t3 - t2) / 1000, retainedMiB: { file, planned, validated } };
}

async function intakePass(m: Modules, file: string, size: number, dataDir: string): Promise<{ orders: number; accepted: number }> {
  const store = await m.openStore({ dataDir });
  try {
    const demo = await m.seedDemoIfEmpty(store, 'ordini.localhost');
    if (!demo) throw new Error('the data folder was not fresh');
    // The heap's growth bounded while the file is judged, as the service does (largeWork; checkouts older than that
    // bounded it for the whole process at limitHeapGrowth()).
    const intake = m.createIntake({ store, timeZone: 'Europe/Rome', log: m.createLogger('warn'), largeWork: m.holdHeapGrowthLimit });
    const { outcome } = await intake.submit({
      principal: { customerId: demo.customer.id, customerCode: demo.customer.code },
      channel: 'sftp', fileName: 'ordini.csv', raw: Buffer.alloc(0), rawFile: { path: file, size, sha256: await m.hashFile(file) },
      meta: {}, singleOrder: false,
    });
    if (outcome.fileError) throw new Error(`the file was refused: ${outcome.fileError.message.join('; ')}`);
    const accepted = outcome.orders.filter((o) => o.esito === 'ok').length;
    const firstError = outcome.orders.find((o) => o.esito !== 'ok');
    if (firstError) throw new Error(`an order was refused: ${JSON.stringify(firstError)}`);
    const registered = await store.listOrders({ limit: 1 });
    if (registered.length === 0) throw new Error('no order registered');
    return { orders: outcome.orders.length, accepted };
  } finally {
    await store.close();
  }
}

async function run(spec: BigFileSpec): Promise<BigFileResult> {
  const m = await serviceModules(spec);
  m.limitHeapGrowth();
  const baselineRssMiB = process.memoryUsage().rss / 2 ** 20;
  const t0 = performance.now();
  const size = (await stat(spec.file)).size;
  const readSeconds = (performance.now() - t0) / 1000;
  let counts: { orders: number; accepted: number; lines?: number; seconds?: number; retainedMiB?: BigFileResult['retainedMiB'] };
  if (spec.mode === 'decode') {
    // As while the service judges a large file; the intake pass takes it the way the service does (largeWork).
    const release = m.holdHeapGrowthLimit?.() ?? (() => undefined);
    counts = await decodePass(m, spec.file, size).finally(release);
  } else counts = await intakePass(m, spec.file, size, spec.dataDir);
  const seconds = counts.seconds !== undefined ? readSeconds + counts.seconds : (performance.now() - t0) / 1000;
  return {
    mode: spec.mode,
    bytes: size,
    ...counts,
    seconds,
    peakRssMiB: process.resourceUsage().maxRSS / 1024,
    baselineRssMiB,
  };
}

process.once('message', (spec: BigFileSpec) => {
  run(spec).then(
    (result) => process.send!(result, () => process.exit(0)),
    (err: unknown) => process.send!({ error: String((err as Error)?.stack ?? err) }, () => process.exit(1)),
  );
});
