/**
 * Which text encoding an article file uses, decided from its first bytes, and the streaming decoders.
 *
 * A stream cannot be read twice, so the choice is made on a sniff of the first 64 KiB:
 * - a UTF-8 BOM, or non-ASCII bytes that are all valid UTF-8: UTF-8 ('utf8');
 * - any byte sequence that is not valid UTF-8: Windows-1252, what Italian Excel writes ('windows-1252');
 * - only ASCII: undecided ('ascii'). The file is read as UTF-8 (identical to Windows-1252 for ASCII), and the
 *   caller starts over as Windows-1252 if a later byte turns out not to be UTF-8 (see NotUtf8Error).
 */
import { open } from 'node:fs/promises';
import { Transform, type TransformCallback } from 'node:stream';
import iconv from 'iconv-lite';

export type SniffedEncoding = 'utf8' | 'windows-1252' | 'ascii';

/** Bytes examined before choosing: enough for hundreds of catalog lines, small enough to read up front. */
export const SNIFF_BYTES = 64 * 1024;

export async function sniffFile(file: string): Promise<{ head: Buffer; encoding: SniffedEncoding }> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await fh.read(buf, 0, SNIFF_BYTES, 0);
    const head = buf.subarray(0, bytesRead);
    return { head, encoding: sniff(head) };
  } finally {
    await fh.close();
  }
}

export function sniff(head: Buffer): SniffedEncoding {
  if (head.length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf8';
  if (head.every((b) => b < 0x80)) return 'ascii';
  try {
    // stream: true tolerates a character cut in two by the end of the sniffed block.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return 'utf8';
  } catch {
    return 'windows-1252';
  }
}

/** The file claimed (or seemed) to be UTF-8 and a later block is not. `line` is where that block starts. */
export class NotUtf8Error extends Error {
  constructor(readonly line: number) {
    super(`the file is not valid UTF-8 from about line ${line}`);
    this.name = 'NotUtf8Error';
  }
}

/** Strict UTF-8 decoding (BOM dropped): invalid bytes fail the stream instead of turning into U+FFFD. */
export class StrictUtf8Decoder extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private line = 1;

  constructor() {
    super({ decodeStrings: true });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      done(new NotUtf8Error(this.line));
      return;
    }
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.line++;
    done(null, text);
  }

  override _flush(done: TransformCallback): void {
    try {
      done(null, this.decoder.decode());
    } catch {
      done(new NotUtf8Error(this.line));
    }
  }
}

export function decoderFor(encoding: SniffedEncoding): NodeJS.ReadWriteStream {
  return encoding === 'windows-1252' ? iconv.decodeStream('win1252') : new StrictUtf8Decoder();
}

/** The first line of the sniffed block as text, for delimiter detection. */
export function firstLine(head: Buffer, encoding: SniffedEncoding): string {
  const text = encoding === 'windows-1252' ? iconv.decode(head, 'win1252') : head.toString('utf8');
  const line = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/, 1)[0];
  return line ?? '';
}
