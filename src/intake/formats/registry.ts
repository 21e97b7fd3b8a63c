/**
 * The order formats, in one list: every channel, the OpenAPI document, error messages and reply texts ask here which
 * media types, extensions and names there are. Adding a format is a folder beside this file (its decoder and its
 * OrderFormat entry) and one line in FORMATS; docs/development/formats.md walks through it, and
 * test/channels/formats-contract.test.ts sends every format through every file channel.
 */
import type { OrderFormat } from './format.ts';
import { csvFormat } from './csv/index.ts';
import { jsonFormat } from './json/index.ts';
import { xmlFormat } from './xml/index.ts';
import { xlsxFormat } from './xlsx/index.ts';

/** In the order content sniffing tries them, and lists name them. */
export const FORMATS = [jsonFormat, xmlFormat, csvFormat, xlsxFormat] as const;

export type Format = (typeof FORMATS)[number]['name'];

const BY_NAME = new Map<string, OrderFormat<Format>>(FORMATS.map((f) => [f.name, f]));
const BY_TYPE = new Map<string, Format>(FORMATS.flatMap((f) => f.mediaTypes.map((t) => [t, f.name] as const)));
const BY_LOOSE_TYPE = new Map<string, Format>(FORMATS.flatMap((f) => f.looseMediaTypes.map((t) => [t, f.name] as const)));
const BY_EXTENSION = new Map<string, Format>(FORMATS.flatMap((f) => f.extensions.map((e) => [e, f.name] as const)));

export function formatNamed(name: Format): OrderFormat<Format> {
  return BY_NAME.get(name)!;
}

/** `Text/CSV; charset=UTF-8` → `text/csv`. */
export function baseMediaType(mediaType: string | undefined): string | undefined {
  const base = mediaType?.split(';', 1)[0]?.trim().toLowerCase();
  return base ? base : undefined;
}

/**
 * The format a media type names: exactly, or by its structured syntax suffix (`application/ld+json`). `loose`:
 * also the labels that only hint at a format (Windows' label for .csv files), for reading a file, never for
 * deciding whether a channel takes a request.
 */
export function formatOfMediaType(mediaType: string | undefined, opts: { loose?: boolean } = {}): Format | undefined {
  const base = baseMediaType(mediaType);
  if (base === undefined) return undefined;
  const known = BY_TYPE.get(base) ?? (opts.loose ? BY_LOOSE_TYPE.get(base) : undefined);
  if (known) return known;
  return FORMATS.find((f) => f.suffix !== undefined && base.endsWith(f.suffix))?.name;
}

/** The lower-case extension of a file name, if it has one. */
export function extensionOf(fileName: string | undefined): string | undefined {
  return /\.([a-z0-9]{1,10})$/i.exec(fileName?.trim() ?? '')?.[1]?.toLowerCase();
}

export function formatOfFileName(fileName: string | undefined): Format | undefined {
  const ext = extensionOf(fileName);
  return ext === undefined ? undefined : BY_EXTENSION.get(ext);
}

/** The binary format whose magic bytes start the file. */
export function formatOfMagic(head: Uint8Array): Format | undefined {
  return FORMATS.find((f: OrderFormat<Format>) => f.magic?.(head) === true)?.name;
}

/** The format whose sniffer recognises the start of a file's text (BOM and leading white space removed). */
export function formatOfContent(head: string): Format | undefined {
  return FORMATS.find((f) => f.sniff(head))?.name;
}

/** Every media type that names a format exactly (what REST and the OpenAPI document offer). */
export const ORDER_MEDIA_TYPES: readonly string[] = FORMATS.flatMap((f) => f.mediaTypes);

/** The usual extension of a format (`csv`). */
export function usualExtension(name: Format): string {
  return formatNamed(name).extensions[0]!;
}

/** `a, b o c`: items as a list in a sentence. */
function sentence(items: string[], or: string): string {
  const last = items.pop()!;
  return items.length ? `${items.join(', ')} ${or} ${last}` : last;
}

/** The formats' names as a list in a sentence: `JSON, XML o CSV` (it), `JSON, XML or CSV` (en). */
export function formatList(lang: 'it' | 'en', extra: readonly string[] = []): string {
  return sentence([...FORMATS.map((f) => f.label), ...extra], lang === 'it' ? 'o' : 'or');
}

/** The media types to declare, one per format, as a list in an English sentence (REST's 415). */
export function declaredTypesList(): string {
  return sentence(FORMATS.map((f) => f.mediaTypes[0]!), 'or');
}
