/**
 * Which decoder reads a file: the declared media type first, then the file name's extension, then the content.
 * Senders mislabel files all the time (e-mail clients send CSV as application/vnd.ms-excel, FTP has no media
 * type at all), so generic labels fall through to the next clue instead of deciding.
 */
import type { DecodeInput, Format } from './input.ts';
import { baseMediaType, extensionOf, formatOfContent, formatOfFileName, formatOfMagic, formatOfMediaType } from './registry.ts';
import { printable, textPrefix } from './text.ts';


/** Labels that say nothing about the content. */
const GENERIC_MEDIA_TYPES: ReadonlySet<string> = new Set(['text/plain', 'application/octet-stream', 'binary/octet-stream']);

/** Extensions of files that are surely not orders in one of our formats (when the content agrees). */
const FOREIGN_EXTENSIONS: ReadonlySet<string> = new Set([
  'pdf', 'doc', 'docx', 'odt', 'rtf', 'xls', 'ods', 'zip', '7z', 'rar', 'gz',
  'png', 'jpg', 'jpeg', 'gif', 'tif', 'tiff', 'bmp', 'heic',
]);

/** Enough of the file to see its first line even with a wide header. */
const SNIFF_BYTES = 8192;

/** The format whose sniffer (registry.ts) recognises the file's first text, after a BOM and white space. */
export function sniffFormat(raw: Uint8Array): Format | undefined {
  return formatOfContent(textPrefix(raw, SNIFF_BYTES).trimStart());
}

/**
 * A binary format's magic bytes first (a workbook is one whatever its label: Outlook calls it application/vnd.ms-excel,
 * which is CSV's loose label), then the declared media type (loose labels too: a file is being read), then the file
 * name's extension, then the content.
 */
export function detectFormat(input: DecodeInput): Format | undefined {
  return formatOfMagic(input.raw) ?? formatOfMediaType(input.mediaType, { loose: true }) ?? formatOfFileName(input.fileName) ?? sniffFormat(input.raw);
}

/**
 * What the sender declared, when it is something we do not take (application/pdf, image/png, report.xlsx):
 * that deserves "unsupported media type" rather than "cannot be read". Undefined for generic or no labels.
 */
export function declaredForeign(input: DecodeInput): string | undefined {
  const base = baseMediaType(input.mediaType);
  if (base !== undefined && !GENERIC_MEDIA_TYPES.has(base) && formatOfMediaType(base, { loose: true }) === undefined) {
    return `media type ${printable(base)}`;
  }
  const ext = extensionOf(input.fileName);
  return ext !== undefined && FOREIGN_EXTENSIONS.has(ext) ? `a .${ext} file` : undefined;
}

const MAGIC: ReadonlyArray<[bytes: number[], kind: string]> = [
  [[0x25, 0x50, 0x44, 0x46, 0x2d], 'a PDF document'],
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive (an .xlsx or .docx file is one)'],
  // Compound File Binary: old Excel (.xls) and Word files, and every password-protected Office file (.xlsx too).
  [[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], 'an old Excel workbook (.xls), a password-protected workbook or another old-format Office document (.doc); save a workbook as .xlsx without a password'],
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x47, 0x49, 0x46, 0x38], 'a GIF image'],
  [[0x1f, 0x8b], 'a gzip archive'],
];

/**
 * Names the kind of a binary file by its first bytes. None of these can start a JSON, XML or CSV order, so
 * telling the sender what they sent beats a parse error (the usual case: an old .xls workbook). A workbook (ZIP) is
 * read by its format before this is asked, on the paths that read workbooks (orders.ts).
 */
export function binaryKind(raw: Uint8Array): string | undefined {
  for (const [bytes, kind] of MAGIC) {
    if (bytes.every((b, i) => raw[i] === b)) return kind;
  }
  return undefined;
}
