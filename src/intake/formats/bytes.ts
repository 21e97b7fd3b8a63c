/**
 * A file's bytes, either in memory (REST and SOAP bodies, e-mail attachments) or in a local file (an FTP/SFTP
 * upload in the spool, issue 19 item 11): the CSV reader takes them in pieces from either, so that a large upload
 * is never held whole in memory.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';

export interface Bytes {
  readonly length: number;
  /** The first `n` bytes (fewer when the file is shorter). */
  head(n: number): Uint8Array;
  /** The bytes from `from` on, in consecutive pieces of at most `size`; each piece is its own (may be kept). */
  pieces(size: number, from?: number): Iterable<Uint8Array>;
}

export function bufferBytes(raw: Uint8Array): Bytes {
  return {
    length: raw.length,
    head: (n) => raw.subarray(0, n),
    *pieces(size, from = 0) {
      for (let at = from; at < raw.length; at += size) yield raw.subarray(at, at + size);
    },
  };
}

/**
 * Bytes of a local file of `length` bytes that nobody changes while it is read (a spool file once its upload has
 * ended). Read with synchronous calls: the CSV reader's passes are synchronous, and a read of a piece from a file
 * just written (in the page cache) takes microseconds; callers give the event loop turns between pieces.
 */
export function fileBytes(file: string, length: number): Bytes {
  function read(at: number, n: number, fd: number): Uint8Array {
    const buf = Buffer.allocUnsafe(Math.min(n, length - at));
    let done = 0;
    while (done < buf.length) {
      const got = readSync(fd, buf, done, buf.length - done, at + done);
      if (got === 0) throw new Error(`${file}: shorter than the ${length} bytes expected`);
      done += got;
    }
    return buf;
  }
  return {
    length,
    head(n) {
      const fd = openSync(file, 'r');
      try {
        return read(0, Math.min(n, length), fd);
      } finally {
        closeSync(fd);
      }
    },
    *pieces(size, from = 0) {
      if (from >= length) return;
      const fd = openSync(file, 'r');
      try {
        for (let at = from; at < length; at += size) yield read(at, size, fd);
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** Bytes read at a time to check the encoding of a file: large enough that per-piece costs vanish. */
const CHECK_BYTES = 1024 * 1024;

/**
 * Where the first byte that is not UTF-8 is, or undefined when every byte is; read in pieces. A sequence cut by the
 * end of a piece is carried into the next (a UTF-8 sequence is at most 4 bytes, so at most 3 are carried).
 */
export function firstInvalidUtf8(bytes: Bytes, from = 0, pieceBytes = CHECK_BYTES): { piece: Uint8Array; pieceAt: number; linesBefore: number } | undefined {
  let carry: Uint8Array | undefined;
  let at = from;
  let lines = 0;
  for (const p of bytes.pieces(pieceBytes, from)) {
    const piece = carry ? Buffer.concat([carry, p]) : p;
    const pieceAt = at - (carry?.length ?? 0);
    at += p.length;
    const last = at >= bytes.length;
    const cut = last ? piece.length : completeLength(piece);
    const whole = piece.subarray(0, cut);
    if (!isUtf8(whole)) return { piece, pieceAt, linesBefore: lines };
    for (let i = whole.indexOf(0x0a); i !== -1; i = whole.indexOf(0x0a, i + 1)) lines++;
    carry = cut < piece.length ? piece.slice(cut) : undefined;
  }
  return undefined;
}

/** The length of `b` without a UTF-8 sequence begun at its end but not finished there. */
function completeLength(b: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, b.length); back++) {
    const byte = b[b.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? b.length - back : b.length;
  }
  return b.length;
}
