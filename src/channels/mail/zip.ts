/**
 * Order files inside a ZIP attachment (yauzl). Nothing in a ZIP header is trusted: inflated bytes are counted as
 * they come, and inflating stops at the first limit (entry size, total size, ratio), so a zip bomb costs at most
 * those bytes of memory and the matching CPU. Encrypted entries and nested archives are reported, not opened.
 */
import yauzl from 'yauzl';
import type { Readable } from 'node:stream';
import { MAIL_LIMITS } from './limits.ts';

export interface ZipLimits {
  /** Largest inflated entry, and largest inflated total of one archive (config.maxFileBytes). */
  maxBytes: number;
  /** Order files taken at most (what the message has left of MAIL_LIMITS.partsPerMessage). */
  maxFiles: number;
}

export interface ZipContent {
  files: { name: string; raw: Buffer }[];
  /** Entries that are not order files, by name. */
  ignored: string[];
  /** Italian sentences for the reply: entries that could not be read, and why. */
  problems: string[];
}

export class ZipRefused extends Error {}

/** Entries that are an operating system's leftovers, never a customer's file. */
const LEFTOVER = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$|desktop\.ini$|\._)/i;

async function inflate(stream: Readable, max: number, what: string, onBytes: (n: number) => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      size += chunk.length;
      onBytes(chunk.length);
      if (size > max) throw new ZipRefused(what);
      chunks.push(chunk);
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, size);
}

/**
 * The order files of an archive (`isOrderName` decides which entries are). Throws ZipRefused (message in Italian)
 * when the archive as a whole cannot be used: unreadable, too many entries, or a limit reached.
 */
export async function readZip(raw: Buffer, limits: ZipLimits, isOrderName: (name: string) => boolean): Promise<ZipContent> {
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(raw, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false });
  } catch {
    throw new ZipRefused("l'archivio ZIP è danneggiato o non è un file ZIP");
  }
  const out: ZipContent = { files: [], ignored: [], problems: [] };
  let total = 0;
  try {
    if (zip.entryCount > MAIL_LIMITS.zipEntries) {
      throw new ZipRefused(`l'archivio contiene ${zip.entryCount} voci: al massimo ${MAIL_LIMITS.zipEntries}`);
    }
    for await (const entry of zip.eachEntry()) {
      const name = entry.fileName;
      if (name.endsWith('/') || LEFTOVER.test(name)) continue;
      if (!isOrderName(name)) {
        out.ignored.push(name);
        continue;
      }
      if (entry.isEncrypted()) {
        out.problems.push(`${name}: il file è protetto da password e non può essere letto`);
        continue;
      }
      if (!entry.canDecodeFileData()) {
        out.problems.push(`${name}: il metodo di compressione non è supportato (usare il formato ZIP standard)`);
        continue;
      }
      if (out.files.length >= limits.maxFiles) {
        throw new ZipRefused(`l'archivio contiene troppi file d'ordine: al massimo ${limits.maxFiles} per messaggio`);
      }
      // Headers are checked first so that an honest oversized archive is refused without inflating anything.
      const maxEntry = Math.min(limits.maxBytes, Math.max(1, entry.compressedSize) * MAIL_LIMITS.zipRatio);
      if (entry.uncompressedSize > limits.maxBytes || total + entry.uncompressedSize > limits.maxBytes) {
        throw new ZipRefused(`l'archivio decompresso supera ${limits.maxBytes} byte`);
      }
      if (entry.uncompressedSize > maxEntry) {
        throw new ZipRefused(`${name}: rapporto di compressione sospetto (oltre ${MAIL_LIMITS.zipRatio}:1), archivio rifiutato`);
      }
      let stream: Readable;
      try {
        stream = await zip.openReadStreamPromise(entry);
      } catch {
        out.problems.push(`${name}: il file nell'archivio è danneggiato`);
        continue;
      }
      try {
        const data = await inflate(stream, maxEntry, name, (n) => {
          total += n;
        });
        if (total > limits.maxBytes) throw new ZipRefused(`l'archivio decompresso supera ${limits.maxBytes} byte`);
        out.files.push({ name, raw: data });
      } catch (e) {
        if (e instanceof ZipRefused) {
          throw new ZipRefused(`${name}: il contenuto decompresso supera i limiti (${MAIL_LIMITS.zipRatio}:1 o ${limits.maxBytes} byte), archivio rifiutato`);
        }
        out.problems.push(`${name}: il file nell'archivio è danneggiato`);
      }
    }
  } catch (e) {
    if (e instanceof ZipRefused) throw e;
    throw new ZipRefused("l'archivio ZIP è danneggiato");
  } finally {
    zip.close();
  }
  return out;
}
