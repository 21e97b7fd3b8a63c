/**
 * What an order format declares (one folder under src/intake/formats/ each, listed in registry.ts): how senders
 * label it, how it is recognised, how it is decoded, what it costs in memory, and how it names itself to people.
 * Every channel asks the registry rather than keeping its own list, so a format added there is taken everywhere.
 */
import type { DecodeInput } from './input.ts';

/** An order as an example file holds it (docs, the contract test that sends every format through every channel). */
export interface ExampleOrder {
  codice_cliente: string;
  riferimento_ordine: string;
  data_ordine: string;
  righe: { codice_articolo: string; quantita: number; unita_misura: string }[];
}

export interface OrderFormat<N extends string = string> {
  readonly name: N;
  /** How people and API clients call it in a list of formats ("CSV"); the same in Italian and English. */
  readonly label: string;
  /** Media types that name this format exactly, the one to declare first. */
  readonly mediaTypes: readonly string[];
  /**
   * Labels some senders put on such files that name other things too (Windows calls a .csv file
   * `application/vnd.ms-excel`): a hint when a file is read, never a type a channel offers or trusts on its own.
   */
  readonly looseMediaTypes: readonly string[];
  /** An RFC 6839 structured syntax suffix taken as this format (`+json`), if any. */
  readonly suffix?: string;
  /** File name extensions, lower case without the dot, the usual one first. */
  readonly extensions: readonly string[];
  /** Whether the start of a file's text (BOM and leading white space removed) is this format. */
  sniff(head: string): boolean;
  /**
   * A binary format: whether a file's first bytes are its magic (a ZIP's `PK\x03\x04`). Asked before anything else,
   * and before the refusal of other binary files (detect.ts binaryKind).
   */
  magic?(head: Uint8Array): boolean;
  /**
   * A format read asynchronously, in pieces, giving the event loop turns (a workbook is inflated part by part): the
   * file channels read it so (openOrdersYielding); its `decode` then refuses the file on synchronous paths.
   * `maxOrders`: stop remembering orders beyond it (`count` is then maxOrders + 1).
   */
  read?(input: DecodeInput, opts: { maxOrders?: number }): Promise<{ candidates: unknown[]; count: number }>;
  /** Bytes → order candidates, not yet validated; a file that cannot be read at all throws IntakeError. */
  decode(input: DecodeInput): unknown[];
  /**
   * Bytes of memory an upload of `size` bytes may take while it is stored and judged, counted against the file
   * channels' budget (INTAKE_UPLOAD_MEMORY_BYTES). `maxOrders`: the most orders one file may hold.
   */
  memoryCost(size: number, maxOrders: number): number;
  /** The order as a file of this format (bytes for a binary format). */
  example(order: ExampleOrder): string | Buffer;
}

/**
 * A format decoded whole (no streaming parser): the raw bytes, their text and the parsed document. Measured 8.6 × the
 * size for a 30 MiB file when CSV went that way too (3.9 for larger orders): the worse case counts.
 */
export const WHOLE_FILE_FACTOR = 8;
