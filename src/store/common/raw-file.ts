/** Reading a submission's bytes from the local file a channel names (Submission.rawFile), for a store that takes them whole. */
import { readFile } from 'node:fs/promises';
import type { RawFile } from '../../domain/types.ts';

/** The file's bytes; fails if it is not the size the channel hashed (what is stored must be what was hashed). */
export async function readRawFile(f: RawFile): Promise<Buffer> {
  const raw = await readFile(f.path);
  if (raw.length !== f.size) throw new Error(`${f.path}: holds ${raw.length} bytes, ${f.size} were expected`);
  return raw;
}
