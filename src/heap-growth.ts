/**
 * How far V8 lets the JavaScript heap grow past what the last full collection found alive, for the whole process.
 *
 * Left to itself, V8 grows the heap by up to 4 times its live size when collecting is cheap: judging a large upload
 * promotes each batch of 1,000 orders before it dies, and with 40-60 MiB alive the heap reached 165-195 MiB before
 * a full collection (the 1,000,000-line CSV peaked at 438 MiB, of which ~120 MiB was that garbage). At 30 % the same
 * run peaks ~115 MiB lower (bench/README.md); the price is more frequent full collections, which at this heap's
 * size take milliseconds and mostly run beside the program (concurrent marking). Read by V8 at every collection,
 * so setting it at start is enough; it applies to worker threads too (the SQLite write thread).
 */
import v8 from 'node:v8';

export const HEAP_GROWING_PERCENT = 30;

export function limitHeapGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
