/**
 * What one upload is counted at in the memory budget shared by every customer's uploads (memory-budget.ts,
 * config.uploadMemoryBytes) while it is stored and judged. The figures are measured (see UPLOAD_MEMORY).
 */
import { open } from 'node:fs/promises';
import { detectFormat } from '../../intake/formats/index.ts';
import { MAX_ORDERS_PER_FILE } from '../../intake/judge.ts';
import { UPLOAD_MEMORY } from './limits.ts';

/** Enough of the file to tell its format (detect.ts sniffs 8 KiB). */
const HEAD_BYTES = 8192;

async function head(file: string): Promise<Buffer> {
  const h = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await h.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await h.close();
  }
}

/**
 * A CSV file is stored and read in pieces (src/intake/formats/csv-stream.ts): it costs a little fixed, twice its
 * size in garbage, and its orders (at most MAX_ORDERS_PER_FILE, of at least csvMinOrderBytes each: the count is
 * not known before the file is read, so the most it can hold counts). Any other file (JSON, XML) is decoded whole:
 * a multiple of its size.
 */
export async function uploadMemoryCost(file: string, name: string, size: number): Promise<number> {
  const format = detectFormat({ raw: await head(file), fileName: name });
  if (format !== 'csv') return size * UPLOAD_MEMORY.wholeFileFactor;
  const orders = Math.min(MAX_ORDERS_PER_FILE, Math.ceil(size / UPLOAD_MEMORY.csvMinOrderBytes));
  return UPLOAD_MEMORY.csvFixedBytes + size * UPLOAD_MEMORY.csvSizeFactor + orders * UPLOAD_MEMORY.csvPerOrderBytes;
}
