/**
 * Bytes to text, in one place for the three formats, so that a BOM, a declared charset and the Windows-1252
 * files Italian Excel writes are handled the same way everywhere.
 *
 * Precedence (RFC 7303 for XML; the same rule serves JSON and CSV): a byte order mark, then the charset the
 * channel declared, then the encoding named inside the document (XML declaration), then UTF-8. Only when
 * nothing was declared may a format fall back to another encoding for bytes that are not UTF-8.
 */
import iconv from 'iconv-lite';
import { IntakeError } from '../../domain/errors.ts';

export interface TextOptions {
  /** The charset parameter the channel declared (e.g. from `Content-Type: text/csv; charset=windows-1252`). */
  charset?: string;
  /** The encoding the document names itself (the XML declaration). */
  documentCharset?: string;
  /** Used when nothing was declared and the bytes are not UTF-8 (CSV: windows-1252). */
  fallback?: string;
  /** How messages name the content, e.g. `JSON`. */
  label: string;
}

interface Bom {
  encoding: 'utf-8' | 'utf-16le' | 'utf-16be';
  length: number;
}

export function byteOrderMark(raw: Uint8Array): Bom | undefined {
  if (raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (raw[0] === 0xff && raw[1] === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (raw[0] === 0xfe && raw[1] === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/** `"Windows-1252"` → `windows-1252`; quotes and blanks around a header parameter are common. */
export function normalizeCharset(charset: string | undefined): string | undefined {
  const c = charset?.trim().replace(/^["']|["']$/g, '').trim().toLowerCase();
  return c ? c : undefined;
}

/** A view, not a copy: files may be 100 MiB. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function isUtf8Name(name: string): boolean {
  return name === 'utf-8' || name === 'utf8';
}

/** Decodes the whole file, or throws NOT_PARSEABLE naming the first bad byte. */
export function decodeText(raw: Uint8Array, opts: TextOptions): string {
  const bom = byteOrderMark(raw);
  if (bom) {
    const body = raw.subarray(bom.length);
    return bom.encoding === 'utf-8' ? strictUtf8(body, bom.length, opts.label) : iconv.decode(asBuffer(body), bom.encoding);
  }
  const declared = normalizeCharset(opts.charset) ?? normalizeCharset(opts.documentCharset);
  if (declared !== undefined && !isUtf8Name(declared)) {
    if (!iconv.encodingExists(declared)) {
      throw new IntakeError('NOT_PARSEABLE', `${opts.label} charset "${printable(declared)}" is not supported; use UTF-8`);
    }
    return iconv.decode(asBuffer(raw), declared);
  }
  if (declared === undefined && opts.fallback !== undefined) {
    try {
      return fatalUtf8.decode(raw);
    } catch {
      return iconv.decode(asBuffer(raw), opts.fallback);
    }
  }
  return strictUtf8(raw, 0, opts.label);
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

function strictUtf8(raw: Uint8Array, offset: number, label: string): string {
  try {
    return fatalUtf8.decode(raw);
  } catch {
    throw new IntakeError('NOT_PARSEABLE', invalidUtf8Message(raw, offset, label));
  }
}

/**
 * Points the sender at the first byte that is not UTF-8. The lenient decoding turns each bad sequence into
 * U+FFFD; a U+FFFD that the file really holds (bytes EF BF BD) is skipped. Everything before the first bad
 * sequence is valid, so its UTF-8 length is the byte offset. `raw` may be a piece of a file read in pieces: `offset`
 * is then where the piece starts and `linesBefore` the line breaks before it.
 */
export function invalidUtf8Message(raw: Uint8Array, offset: number, label: string, linesBefore = 0): string {
  const text = lenientUtf8.decode(raw);
  let bytePos = 0;
  let charPos = 0;
  for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) {
    bytePos += Buffer.byteLength(text.slice(charPos, i));
    charPos = i;
    if (raw[bytePos] === 0xef && raw[bytePos + 1] === 0xbf && raw[bytePos + 2] === 0xbd) continue;
    const line = linesBefore + countLines(text, i);
    const hex = (raw[bytePos] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return `${label} must be encoded in UTF-8: invalid byte 0x${hex} on line ${line} (byte ${offset + bytePos + 1})`;
  }
  return `${label} must be encoded in UTF-8`;
}

function countLines(text: string, end: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The first bytes as text, for format sniffing only: lenient, and Latin-1 when there is no BOM because the
 * markers looked for are ASCII and Latin-1 never fails.
 */
export function textPrefix(raw: Uint8Array, maxBytes: number): string {
  const bom = byteOrderMark(raw);
  const start = bom?.length ?? 0;
  const head = Buffer.from(raw.subarray(start, start + maxBytes));
  if (bom?.encoding === 'utf-16le' || bom?.encoding === 'utf-16be') return iconv.decode(head, bom.encoding);
  return head.toString('latin1');
}

/** True when the file holds nothing but a BOM and white space. */
export function isBlank(raw: Uint8Array): boolean {
  const bom = byteOrderMark(raw);
  const utf16 = bom !== undefined && bom.encoding !== 'utf-8';
  for (let i = bom?.length ?? 0; i < raw.length; i++) {
    const b = raw[i];
    if (b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d || (utf16 && b === 0x00)) continue;
    return false;
  }
  return true;
}

/** Keeps a sender-supplied name readable and short inside a message. */
export function printable(s: string, max = 40): string {
  const clean = s.replace(/[^\x20-\x7e]/g, '?');
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
