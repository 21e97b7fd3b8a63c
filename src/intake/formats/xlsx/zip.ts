/**
 * The ZIP container of a workbook, opened with yauzl and trusted in nothing: entries are counted, and each part is
 * inflated in pieces with its bytes counted as they come (never the sizes its headers claim), stopping at the first
 * limit: per part, for the whole workbook, and a ratio of inflated to compressed bytes. A zip bomb (a gigabyte of
 * shared strings compressed to a megabyte) so costs at most those bytes of CPU, and no memory beyond one piece.
 */
import yauzl from 'yauzl';
import type { Readable } from 'node:stream';
import { IntakeError } from '../../../domain/errors.ts';

export const XLSX_ZIP_LIMITS = {
  /**
   * Entries in the archive. A workbook of a few sheets has 10-30 (parts, relationships, themes, printer settings); a
   * thousand covers many sheets and images, and keeps a central directory of millions of entries from being walked.
   */
  entries: 1000,
  /**
   * Inflated bytes of all the parts read. A 100,000-row sheet of the order layout is ~30 MB of XML; this leaves room
   * for wide sheets while a bomb stops here.
   */
  totalBytes: 512 * 1024 * 1024,
  /**
   * Inflated : compressed bytes of one part, checked once the part passes ratioFrom. Sheet XML of real orders
   * compresses 10-30:1 (a sheet of one repeated row reaches ~150:1); zip bombs are at 1000:1 and more.
   */
  ratio: 250,
  ratioFrom: 4 * 1024 * 1024,
} as const;

/** Thrown by a reader that has read enough (a preview): the part's reading stops there, without an error. */
export class StopReading extends Error {}

export interface ZipPart {
  name: string;
  compressedSize: number;
}

export class WorkbookZip {
  private constructor(private readonly zip: yauzl.ZipFile, private readonly entries: Map<string, yauzl.Entry>) {}

  #inflated = 0;

  /** Opens the archive and reads its directory. Throws IntakeError for what is not a readable ZIP. */
  static async open(raw: Buffer): Promise<WorkbookZip> {
    let zip: yauzl.ZipFile;
    try {
      zip = await yauzl.fromBufferPromise(raw, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false });
    } catch {
      throw new IntakeError('NOT_PARSEABLE', 'the file is a damaged ZIP archive (an .xlsx workbook is one) and cannot be read');
    }
    if (zip.entryCount > XLSX_ZIP_LIMITS.entries) {
      zip.close();
      throw new IntakeError('NOT_PARSEABLE', `the Excel workbook cannot be read: it has more than ${XLSX_ZIP_LIMITS.entries} parts`);
    }
    const entries = new Map<string, yauzl.Entry>();
    try {
      for await (const entry of zip.eachEntry()) {
        // Part names are case-insensitive (OPC); a leading slash is sometimes written.
        entries.set(entry.fileName.replace(/^\//, '').toLowerCase(), entry);
      }
    } catch {
      zip.close();
      throw new IntakeError('NOT_PARSEABLE', 'the file is a damaged ZIP archive (an .xlsx workbook is one) and cannot be read');
    }
    return new WorkbookZip(zip, entries);
  }

  has(name: string): boolean {
    return this.entries.has(name.toLowerCase());
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * Hands the part's inflated bytes to `onPiece` as they come; `yieldNow` is awaited between pieces now and then,
   * so that a large part does not hold the event loop. False when the archive has no such part.
   */
  async read(name: string, onPiece: (piece: Buffer) => void): Promise<boolean> {
    const entry = this.entries.get(name.toLowerCase());
    if (!entry) return false;
    if (entry.isEncrypted()) throw new IntakeError('NOT_PARSEABLE', 'the Excel workbook is protected by a password; save it without a password');
    if (!entry.canDecodeFileData()) throw new IntakeError('NOT_PARSEABLE', `the Excel workbook cannot be read: ${name} is compressed with a method that is not supported`);
    let stream: Readable;
    try {
      stream = await this.zip.openReadStreamPromise(entry);
    } catch {
      throw damaged(name);
    }
    const compressed = Math.max(1, entry.compressedSize);
    let size = 0;
    try {
      for await (const piece of stream as AsyncIterable<Buffer>) {
        size += piece.length;
        this.#inflated += piece.length;
        if (this.#inflated > XLSX_ZIP_LIMITS.totalBytes) throw bomb(`more than ${XLSX_ZIP_LIMITS.totalBytes} bytes once decompressed`);
        if (size > XLSX_ZIP_LIMITS.ratioFrom && size / compressed > XLSX_ZIP_LIMITS.ratio) {
          throw bomb(`a part (${name}) that decompresses more than ${XLSX_ZIP_LIMITS.ratio} times its size`);
        }
        onPiece(piece);
      }
    } catch (e) {
      if (e instanceof IntakeError || e instanceof StopReading) throw e;
      throw damaged(name);
    } finally {
      stream.destroy();
    }
    return true;
  }

  close(): void {
    this.zip.close();
  }
}

function damaged(name: string): IntakeError {
  return new IntakeError('NOT_PARSEABLE', `the Excel workbook is damaged: ${name} cannot be decompressed`);
}

function bomb(what: string): IntakeError {
  return new IntakeError('NOT_PARSEABLE', `the Excel workbook is refused: it holds ${what}`);
}
