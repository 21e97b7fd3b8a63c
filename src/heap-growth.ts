/**
 * How far V8 lets the JavaScript heap grow past what the last full collection found alive, while a large file is
 * being stored or judged.
 *
 * Left to itself, V8 grows the heap by up to 4 times its live size when collecting is cheap: judging a large upload
 * promotes each batch of 1,000 orders before it dies, and with 40-60 MiB alive the heap reached 165-195 MiB before
 * a full collection (the 1,000,000-line CSV peaked at 438 MiB, of which ~120 MiB was that garbage). At 30 % the same
 * run peaks ~115 MiB lower (performance-history.md); the price is more frequent full collections, which at this heap's
 * size take milliseconds and mostly run beside the program (concurrent marking).
 *
 * That price was paid by every request when the flag was set for the whole life of the process: small requests make
 * garbage fast and the heap, held close to its live size, was collected far more often (REST lost ~10 % of its
 * throughput). So it is on only while large work is in flight (what counts as large: the intake's LARGE_WORK_BYTES): V8 reads the flag each time it computes the heap's
 * next limit (at every collection), so setting it at the first large file and clearing it after the last is enough.
 * The flag is the process's (worker threads too: the SQLite write thread copies and stores the file), so the count
 * of holders is the process's as well, not one per intake. The limit in force is the one computed at the last
 * collection, with the flag off: up to 4 times what was alive. So the first holder also collects at once (a full
 * collection of the service's ~35 MB heap, tens of ms), which sets the bounded limit from then on; without it the
 * 48 MiB upload of test/channels/files/upload-memory.test.ts grew the service by 137-180 MiB instead of 113-123 (one run each, loaded machine).
 */
import v8 from 'node:v8';
import vm from 'node:vm';

export const HEAP_GROWING_PERCENT = 30;

let enabled = false;
let holders = 0;
let gc: (() => void) | undefined;

/** A full collection now. `--expose-gc` set at run time reaches new contexts only: the function is taken from one. */
function collect(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}

/** Bound the heap's growth while large work is in flight (the `serve` command turns this on). */
export function limitHeapGrowth(): void {
  enabled = true;
}

/**
 * Marks large work under way until the returned function is called (once; later calls do nothing). The limit is on
 * while at least one holder is; without limitHeapGrowth() this does nothing.
 */
export function holdHeapGrowthLimit(): () => void {
  if (!enabled) return () => undefined;
  // 0 is V8's own default: its dynamic growing factor.
  if (holders++ === 0) {
    v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    collect();
  }
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    if (--holders === 0) v8.setFlagsFromString('--heap-growing-percent=0');
  };
}

/** Holders now (tests). */
export function heapGrowthHolders(): number {
  return holders;
}
