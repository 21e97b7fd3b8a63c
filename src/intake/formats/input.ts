/** What every decoder takes: the raw bytes and what the channel knows about them. */

export type { Format } from './registry.ts';

export interface DecodeInput {
  raw: Buffer;
  /** Media type as declared by the sender; parameters are tolerated (`text/csv; charset=windows-1252`). */
  mediaType?: string;
  /** File name as the sender gave it; only its extension is used. */
  fileName?: string;
  /** Declared charset; it wins over the document's own declaration and over guessing. */
  charset?: string;
}

/** The charset: declared on its own, or as a parameter of the media type. */
export function declaredCharset(input: Pick<DecodeInput, 'charset' | 'mediaType'>): string | undefined {
  if (input.charset?.trim()) return input.charset;
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(input.mediaType ?? '')?.[1];
}
