/**
 * Order candidates of a file, handed out one at a time so that a large file need not be held as a whole.
 * CSV files (the large ones: spreadsheet exports) are read in pieces (csv/stream.ts); an Excel workbook's sheet is
 * inflated and read in pieces (xlsx/); JSON and XML are decoded at once (no streaming parser is installed) and handed
 * out from the array.
 */
import { IntakeError } from '../../domain/errors.ts';
import type { DecodeInput } from './input.ts';
import { CsvOrderReader, type CsvInput } from './csv/stream.ts';
import { decodeOrders } from './decode.ts';
import { binaryKind, detectFormat } from './detect.ts';
import { formatNamed, formatOfMagic } from './registry.ts';
import type { OrderFormat } from './format.ts';
import { isBlank } from './text.ts';
import type { NumberContext } from './people-values.ts';

export interface OrderSource {
  /** How many candidates (maxOrders + 1 when there are more than maxOrders). */
  count: number;
  /** The candidates in file order; read them once. */
  candidates(): Iterable<unknown>;
  /** How the file writes its numbers, for a file whose numbers are people's writing (CSV). */
  numbers?: NumberContext;
}

export function arraySource(candidates: unknown[]): OrderSource {
  return { count: candidates.length, candidates: () => candidates };
}

/**
 * Like decodeOrders (same checks, same errors), but a CSV file is checked whole and its orders come later.
 * `maxOrders`: a CSV file stops remembering orders beyond it (the caller refuses such a file on its count).
 */
export function openOrders(input: DecodeInput, opts: { maxOrders?: number } = {}): OrderSource {
  if (!isCsv(input)) return arraySource(decodeOrders(input));
  return csvSource(CsvOrderReader.open(input, { maxOrders: opts.maxOrders }));
}

/**
 * Bytes of a CSV file read between two turns given to the event loop: some tens of milliseconds of work, so
 * the other channels of the process keep answering while a large file is read.
 */
export const YIELD_EVERY_BYTES = 2 * 1024 * 1024;

/**
 * openOrders, giving the event loop a turn (`yieldNow`) while a CSV file is read. The bytes may be in a local
 * file (CsvInput, bytes.ts): a CSV file is then read from it in pieces, twice, and never held whole; any other
 * file is read whole and decoded at once (JSON and XML have no streaming parser here: their memory is a multiple
 * of their size, which the file channels' memory budget counts, src/channels/files/limits.ts).
 */
export async function openOrdersYielding(input: DecodeInput | CsvInput, opts: { maxOrders?: number; yieldNow: () => Promise<void> }): Promise<OrderSource> {
  const binary = binaryFormat('bytes' in input ? input.bytes.head(8) : input.raw);
  if (binary?.read) {
    // A workbook is compressed: held whole it is a fraction of what its sheet inflates to, which is read in pieces.
    const { candidates, count } = await binary.read('bytes' in input ? wholeInput(input) : input, { maxOrders: opts.maxOrders });
    return { count, candidates: () => candidates };
  }
  const csv = 'bytes' in input ? isCsvFile(input) : isCsv(input);
  if (!csv) return arraySource(decodeOrders('bytes' in input ? wholeInput(input) : input));
  return csvSource(await CsvOrderReader.openYielding(input, { maxOrders: opts.maxOrders, yieldNow: opts.yieldNow, yieldEveryBytes: YIELD_EVERY_BYTES }));
}

/** The binary format (a workbook) whose magic bytes start the file, if any. */
function binaryFormat(head: Uint8Array): OrderFormat | undefined {
  const name = formatOfMagic(head);
  return name === undefined ? undefined : formatNamed(name);
}

/** Bytes looked at to tell a CSV file held in a file: detect.ts sniffs 8 KiB, binaryKind a few bytes. */
const HEAD_BYTES = 64 * 1024;

/** isCsv from the first bytes; a file whose first bytes are all blank is read whole (decodeOrders decides). */
function isCsvFile(input: CsvInput): boolean {
  const head = Buffer.from(input.bytes.head(HEAD_BYTES));
  if (isBlank(head)) return false;
  return isCsv({ ...input, raw: head });
}

function wholeInput(input: CsvInput): DecodeInput {
  const { bytes, ...rest } = input;
  return { ...rest, raw: Buffer.concat([...bytes.pieces(1024 * 1024)]) };
}

/** Binary and blank files, and every other format, take decodeOrders' own path and messages. */
function isCsv(input: DecodeInput): boolean {
  return binaryKind(input.raw) === undefined && !isBlank(input.raw) && detectFormat(input) === 'csv';
}

function csvSource(reader: CsvOrderReader): OrderSource {
  if (reader.count === 0) throw new IntakeError('NO_ORDERS', 'the file holds no order');
  return { count: reader.count, candidates: () => reader.orders(), numbers: reader.numbers };
}
