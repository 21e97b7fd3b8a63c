/**
 * What one upload is counted at in the memory budget shared by every customer's uploads (memory-budget.ts,
 * config.uploadMemoryBytes) while it is stored and judged. The figures are measured (each format's memoryCost).
 */
import { open } from 'node:fs/promises';
import { detectFormat, formatNamed } from '../intake/formats/index.ts';
import { MAX_ORDERS_PER_FILE } from '../intake/judge.ts';

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
 * What the file's format says it may take (the registry's memoryCost: a CSV file is read in pieces, the others
 * decoded whole). A file whose format cannot be told is counted as one decoded whole, the dearer way.
 */
export async function uploadMemoryCost(file: string, name: string, size: number): Promise<number> {
  const format = formatNamed(detectFormat({ raw: await head(file), fileName: name }) ?? 'json');
  return format.memoryCost(size, MAX_ORDERS_PER_FILE);
}
