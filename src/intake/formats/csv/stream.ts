/**
 * CSV order files read in pieces, so that memory depends on the size of an order, not of the file.
 *
 * Rows of one order may be anywhere in the file (the layout allows it), so the file is read twice:
 * - `CsvOrderReader.open` (first pass) checks the whole file — charset, header, shape limits, csv-parse — and
 *   counts the rows of every (codice_cliente, riferimento_ordine). Every reason to refuse the file as a whole is
 *   found here, before any order is handed out, exactly as when the file was read at once.
 * - `orders()` (second pass) builds each order from its rows and hands it out once its last row is read, in the
 *   order orders first appear. A file without any quote is split by csv/unquoted.ts here, csv-parse's records
 *   at a fraction of its cost; a file with one is parsed by csv-parse again. A sorted file (what spreadsheets export) holds one order at a time; rows of one
 *   order far apart keep the orders in between until it completes.
 *
 * The bytes come from a Buffer cut in chunks (the stored file). csv-parse's own incremental parser reads them,
 * the same one its synchronous API runs over a whole file, so records, messages and line numbers are the same.
 * A file of one chunk (most files) goes through that synchronous API in one call, and its records are kept for
 * the second pass: reading small files costs what it did before.
 */
import { CsvError, Parser, type Options } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { IntakeError } from '../../../domain/errors.ts';
import { declaredCharset, type DecodeInput } from '../input.ts';
import { ORDER_FIELDS, OPTIONAL_ORDER_FIELDS } from '../fields.ts';
import { markUnread, noteNumber, numberContext, readDate, readNumber, type NumberContext } from '../people-values.ts';
import { columnsOf, detectDelimiter, findHeaderLine, MAX_COLUMNS, MAX_RECORD_CHARS, type Columns, type HeaderLine } from './header.ts';
import { ShapeScanner } from './shape.ts';
import { bufferBytes, firstInvalidUtf8, type Bytes } from '../bytes.ts';
import { QUOTE_BYTE, unquotedRecords } from './unquoted.ts';
import { byteOrderMark, decodeText, invalidUtf8Message, normalizeCharset } from '../text.ts';
import { RECORD_LINE, withRows, type LinedRecord } from '../file-rows.ts';

/** Bytes handed to the parser at a time: large enough that per-chunk costs vanish, small next to any limit. */
export const CSV_CHUNK_BYTES = 64 * 1024;

export interface CsvReadOptions {
  /** Chunk size (tests feed files in tiny chunks to cross every boundary). */
  chunkBytes?: number;
  /**
   * Stop remembering new orders beyond this many (the rest of the file is still checked); `count` is then
   * maxOrders + 1. Bounds the first pass's memory for a file of millions of one-row orders.
   */
  maxOrders?: number;
}

/** Where the text comes from: a function so that each pass reads it afresh. Yields UTF-8 bytes. */
type Utf8Source = () => Iterable<Uint8Array>;

/** What the reader takes: DecodeInput with the bytes in memory or in a local file (bytes.ts). */
export type CsvInput = Omit<DecodeInput, 'raw'> & { bytes: Bytes };

function* transcoded(raw: Bytes, from: number, encoding: string, size: number): Generator<Uint8Array> {
  const decoder = iconv.getDecoder(encoding);
  for (const piece of raw.pieces(size, from)) {
    // iconv-lite's decoders keep a character cut by the end of a piece for the next one.
    const text = decoder.write(Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength));
    if (text) yield Buffer.from(text, 'utf8');
  }
  const rest = decoder.end();
  if (rest) yield Buffer.from(rest, 'utf8');
}

/**
 * The file as UTF-8, by the rules of decodeText (text.ts): a BOM, then a declared charset, then UTF-8, and
 * Windows-1252 (what Italian Excel writes) for a file that is not valid UTF-8 and declares nothing. Valid UTF-8
 * is handed on as it is, without a copy. Errors are decodeText's own, with its messages. The encoding is decided
 * by a first read of the whole file in pieces (firstInvalidUtf8), never by holding it whole.
 */
function utf8Source(input: CsvInput, size: number): Utf8Source {
  const raw = input.bytes;
  const opts = { charset: declaredCharset(input), fallback: 'windows-1252', label: 'CSV' };
  const strict = (from: number, bad = firstInvalidUtf8(raw, from)): Utf8Source => {
    if (bad) throw new IntakeError('NOT_PARSEABLE', invalidUtf8Message(bad.piece, bad.pieceAt, 'CSV', bad.linesBefore));
    return () => raw.pieces(size, from);
  };
  const first = raw.head(4);
  const bom = byteOrderMark(first);
  if (bom) return bom.encoding === 'utf-8' ? strict(bom.length) : () => transcoded(raw, bom.length, bom.encoding, size);
  const declared = normalizeCharset(opts.charset);
  if (declared !== undefined && declared !== 'utf-8' && declared !== 'utf8') {
    if (!iconv.encodingExists(declared)) decodeText(first, opts); // throws: charset not supported
    return () => transcoded(raw, 0, declared, size);
  }
  const bad = firstInvalidUtf8(raw);
  if (declared === undefined && bad !== undefined) return () => transcoded(raw, 0, opts.fallback, size);
  return strict(0, bad);
}

/** csv-parse's incremental parser: what its stream and its synchronous API both drive. */
interface RecordParser {
  parse(buf: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
  /** csv-parse's counters; `lines` is, when a record is pushed, the line it ends on (what on_record is told). */
  info: { lines: number };
}

/**
 * `numbered`: each record carries its file line (RECORD_LINE), through on_record. csv-parse builds a context object
 * per record for it, so the incremental parser (large files) reads the line from the parser's counters instead.
 */
export function parserOptions(delimiter: string, numbered = true): Options {
  const options: Options = {
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: true,
    // A row of nothing but delimiters is what Excel writes for formatted but empty rows.
    skip_records_with_empty_values: true,
    // Backstop for one huge unquoted cell, which the shape scanner does not measure.
    max_record_size: MAX_RECORD_CHARS,
  };
  if (!numbered) return options;
  // People are told the row of the file (file-rows.ts); `lines` is where the record ends.
  options.on_record = (record: LinedRecord, context) => {
    record[RECORD_LINE] = context.lines;
    return record;
  };
  return options;
}

function recordParser(delimiter: string): RecordParser {
  // The Parser stream keeps that parser as `api`; driving it directly keeps the whole pass synchronous.
  const api = (new Parser(parserOptions(delimiter, false)) as unknown as { api?: RecordParser }).api;
  if (typeof api?.parse !== 'function' || typeof api.info?.lines !== 'number') {
    throw new Error('csv-parse no longer exposes its incremental parser (Parser#api) and its line count');
  }
  return api;
}

/** csv-parse messages name the line and carry nothing internal. */
function csvErrorMessage(e: unknown): string {
  if (!(e instanceof CsvError)) return 'CSV cannot be read';
  if (e.code === 'CSV_MAX_RECORD_SIZE') {
    const line = (e as unknown as { lines?: unknown }).lines;
    return `CSV rows must not be longer than ${MAX_RECORD_CHARS} characters (line ${String(line)})`;
  }
  return `CSV cannot be read: ${e.message}`;
}

/** The header line and the chunks read to find it (they are parsed next, nothing is read twice). */
function readHeader(chunks: Iterator<Uint8Array>): { header: HeaderLine; head: Uint8Array[] } {
  const decoder = new TextDecoder('utf-8');
  const head: Uint8Array[] = [];
  let text = '';
  for (;;) {
    const next = chunks.next();
    if (next.done) return { header: findHeaderLine(text + decoder.decode(), true)!, head };
    head.push(next.value);
    text += decoder.decode(next.value, { stream: true });
    const header = findHeaderLine(text, false);
    if (header) return { header, head };
  }
}

/**
 * The records of the file, the header first, in batches (one per chunk read: a generator step per record would
 * cost more than csv-parse's own work on it). `checkShape`: run the shape scanner over every byte too (first
 * pass). A shape error stops at once; csv-parse's own error is told at the end, once the shape scan has seen
 * the whole file, so the same fault wins as when the file was read at once.
 */
function* records(source: Utf8Source, checkShape: boolean, seen?: Seen): Generator<string[][], void, undefined> {
  const chunks = source()[Symbol.iterator]();
  try {
    const { header, head } = readHeader(chunks);
    const delimiter = detectDelimiter(header);
    if (seen) seen.delimiter = delimiter;
    const shape = checkShape ? new ShapeScanner(delimiter, { maxColumns: MAX_COLUMNS, maxQuotedChars: MAX_RECORD_CHARS }) : undefined;
    const pending = head.values();
    const nextChunk = (): Uint8Array | undefined => {
      const n = pending.next();
      return n.done ? chunks.next().value ?? undefined : n.value;
    };
    const asBuffer = (c: Uint8Array) => Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    let chunk = nextChunk();
    let following = chunk && nextChunk();
    if (following === undefined) {
      // A file of one piece (most files): csv-parse's synchronous API over it, as when every file was read whole.
      shape?.feed(chunk ?? new Uint8Array(0), true);
      if (seen) seen.whole = true;
      try {
        const all = chunk ? parseSync(asBuffer(chunk), parserOptions(delimiter)) as string[][] : [];
        if (all.length > 0) yield all;
      } catch (e) {
        throw new IntakeError('NOT_PARSEABLE', csvErrorMessage(e));
      }
      return;
    }
    const parser = recordParser(delimiter);
    let out: string[][] = [];
    // The first pass over a file of several pieces keeps none of its records: they need no line numbers.
    const push = checkShape
      ? (r: string[]) => void out.push(r)
      : (r: LinedRecord) => {
        r[RECORD_LINE] = parser.info.lines;
        out.push(r);
      };
    const close = () => undefined;
    let parseError: Error | undefined;
    while (chunk !== undefined) {
      // Each piece is fed knowing whether it is the last: csv-parse then closes the file in the same call.
      const last = following === undefined;
      shape?.feed(chunk, last);
      if (seen && !seen.quoted) seen.quoted = chunk.includes(QUOTE_BYTE);
      if (!parseError) parseError = parser.parse(asBuffer(chunk), last, push, close);
      if (out.length > 0) {
        yield out;
        out = [];
      }
      chunk = following;
      following = chunk && nextChunk();
    }
    if (parseError) throw new IntakeError('NOT_PARSEABLE', csvErrorMessage(parseError));
  } finally {
    // A pass left early (an error, the reader abandoned) closes the file it was reading.
    chunks.return?.();
  }
}

/** What the first pass learns of the file for the second: its delimiter, and whether any quote was in it. */
interface Seen {
  delimiter?: string;
  quoted: boolean;
  /** The file was one piece, parsed at once with its records numbered: the second pass may reuse them. */
  whole?: boolean;
}

/**
 * The second pass's records: csv-parse again for a file with a quote anywhere; without one, the same records split
 * at a fraction of the cost (csv/unquoted.ts), which took the decode of a 1,000,000-line file from two csv-parse
 * passes to one.
 */
function rereadRecords(source: Utf8Source, seen: Seen): Iterable<string[][]> {
  if (seen.quoted || seen.delimiter === undefined) return records(source, false);
  const delimiter = seen.delimiter;
  return unquotedRecords(source(), delimiter);
}

/** The second pass's records, read afresh at each call. */
type Reread = () => Iterable<string[][]>;

interface Planned {
  /** Position of the order in the file (first appearance), from 0. */
  index: number;
  rows: number;
}

/** An order being put together in the second pass. */
interface Building {
  index: number;
  left: number;
  order: { righe: unknown[]; [field: string]: unknown };
  rows: number[];
}

const DATE_FIELDS: ReadonlySet<string> = new Set(['data_ordine', 'data_consegna']);

/** A date cell as ISO when it reads as a date (`28/11/2026`); else its text, with the reason for stage A. */
function dateCell(order: object, field: string, text: string): string {
  const r = readDate(text);
  if (r.ok) return r.value;
  markUnread(order, field, r.reason);
  return text;
}

/** A quantity cell as a number when it reads as one in the file's context; else its text, with the reason. */
function quantityCell(line: object, text: string, numbers: NumberContext): unknown {
  if (text.trim() === '') return text;
  const r = readNumber(text, numbers);
  if (r.ok) return r.value;
  markUnread(line, 'quantita', r.reason);
  return text;
}

/** One string per (customer, reference), unambiguous (the length says where the customer ends); cheaper than JSON. */
const keyOf = (codice: string, riferimento: string) => `${codice.length}:${codice}${riferimento}`;

/** Where each field is in a record: -1 for a column the header does not name (data_consegna may be absent). */
interface Layout {
  order: [field: string, at: number][];
  codice: number;
  riferimento: number;
  articolo: number;
  quantita: number;
  unita: number;
}

function layoutOf(columns: Columns): Layout {
  const at = (name: string) => columns.get(name) ?? -1;
  return {
    order: ORDER_FIELDS.map((f) => [f, at(f)]),
    codice: at('codice_cliente'), riferimento: at('riferimento_ordine'),
    articolo: at('codice_articolo'), quantita: at('quantita'), unita: at('unita_misura'),
  };
}

/** A short row (trailing empty cells dropped by the exporter) reads as empty cells; stage A reports them. */
const cellAt = (record: string[], at: number): string => (at < 0 ? '' : record[at] ?? '');

/** The first pass's bookkeeping: the header, then every record's order key counted. */
class Planner {
  readonly source: Utf8Source;
  readonly batches: Generator<string[][], void, undefined>;
  readonly #maxOrders: number;
  readonly #plan = new Map<string, Planned>();
  #count = 0;
  #header: string[] | undefined;
  #headerError: unknown;
  #layout: Layout | undefined;
  /** The records while they are all in one batch (a small file): the second pass then need not parse again. */
  #kept: string[][] | undefined;
  #batches = 0;

  readonly #seen: Seen = { quoted: false };
  /** What the file's quantities show of how its numbers are written (people-values.ts), for the second pass. */
  readonly #numbers: NumberContext = numberContext();

  constructor(input: CsvInput, opts: CsvReadOptions) {
    this.#maxOrders = opts.maxOrders ?? Infinity;
    this.source = utf8Source(input, opts.chunkBytes ?? CSV_CHUNK_BYTES);
    this.batches = records(this.source, true, this.#seen);
  }

  add(batch: string[][]): void {
    this.#kept = ++this.#batches === 1 && this.#seen.whole ? batch : undefined;
    let k = 0;
    if (this.#header === undefined) {
      this.#header = batch[k++]!;
      // The header's faults are told only once the whole file is known to be readable, as before.
      try {
        this.#layout = layoutOf(columnsOf(this.#header));
      } catch (e) {
        this.#headerError = e;
      }
    }
    if (!this.#layout) return;
    // A file delimited by `,` is what English and machine exports write: its `1.500` may be 1.5.
    if (this.#seen.delimiter === ',') this.#numbers.machine = true;
    const { codice, riferimento, quantita } = this.#layout;
    const plan = this.#plan;
    const numbers = this.#numbers;
    for (; k < batch.length; k++) {
      const record = batch[k]!;
      noteNumber(numbers, cellAt(record, quantita));
      const key = keyOf(cellAt(record, codice), cellAt(record, riferimento));
      const planned = plan.get(key);
      if (planned) planned.rows++;
      else if (this.#count < this.#maxOrders) plan.set(key, { index: this.#count++, rows: 1 });
      else this.#count = this.#maxOrders + 1;
    }
  }

  /** Once every batch is added. */
  reader(): CsvOrderReader {
    if (this.#headerError) throw this.#headerError;
    if (this.#header === undefined) throw new IntakeError('NOT_PARSEABLE', 'CSV must start with a header row');
    const seen = this.#seen;
    const source = this.source;
    return CsvOrderReader.fromPlan(this.#kept ? [this.#kept] : () => rereadRecords(source, seen), this.#layout!, this.#plan, this.#count, this.#numbers);
  }
}

function csvInput(input: DecodeInput | CsvInput): CsvInput {
  if ('bytes' in input) return input;
  const { raw, ...rest } = input;
  return { ...rest, bytes: bufferBytes(raw) };
}

export class CsvOrderReader {
  /** Built by the first pass (Planner). */
  static fromPlan(source: Reread | string[][][], layout: Layout, plan: Map<string, Planned>, count: number, numbers: NumberContext): CsvOrderReader {
    return new CsvOrderReader(source, layout, plan, count, numbers);
  }

  private constructor(
    /** The file's records read again by the second pass; or its records, when the first pass kept them. */
    private readonly source: Reread | string[][][],
    private readonly layout: Layout,
    private readonly plan: Map<string, Planned>,
    /** Orders in the file (maxOrders + 1 when there are more). */
    readonly count: number,
    /** How the file writes its numbers, from every quantity of it: the context each one is read in. */
    readonly numbers: NumberContext,
  ) {}

  #read = false;

  /** First pass: checks the whole file and counts its orders. Throws IntakeError for a file that cannot be read. */
  static open(input: DecodeInput | CsvInput, opts: CsvReadOptions = {}): CsvOrderReader {
    const planner = new Planner(csvInput(input), opts);
    for (const batch of planner.batches) planner.add(batch);
    return planner.reader();
  }

  /**
   * The first pass, giving the event loop a turn every `yieldEveryBytes` of records read (about that much of the
   * file), so that reading a large file does not stop every other channel of the process for its whole length.
   */
  static async openYielding(input: DecodeInput | CsvInput, opts: CsvReadOptions & { yieldEveryBytes: number; yieldNow: () => Promise<void> }): Promise<CsvOrderReader> {
    const planner = new Planner(csvInput(input), opts);
    const chunkBytes = opts.chunkBytes ?? CSV_CHUNK_BYTES;
    let read = 0;
    for (const batch of planner.batches) {
      planner.add(batch);
      read += chunkBytes;
      if (read >= opts.yieldEveryBytes) {
        read = 0;
        await opts.yieldNow();
      }
    }
    return planner.reader();
  }

  /**
   * Second pass: order candidates, each once all its rows are read, in the order they first appear. Once only: it
   * consumes the plan as it goes (for a large file the plan is one entry per order).
   */
  *orders(): Generator<unknown, void, undefined> {
    if (this.#read) throw new Error('CsvOrderReader.orders() reads the file once');
    this.#read = true;
    const l = this.layout;
    const building = new Map<string, Building>();
    // Orders complete before an earlier one is: held until it is, so that orders keep their file order.
    const complete = new Map<number, unknown>();
    let next = 0;
    let first = true;
    // The passes must read the same records: an order left out, or not completed, is a fault of this reader.
    const overflow = this.count > this.plan.size;
    const batches = typeof this.source === 'function' ? this.source() : this.source;
    for (const batch of batches) {
      for (let k = first ? 1 : 0; k < batch.length; k++) {
        const record = batch[k]!;
        const key = keyOf(cellAt(record, l.codice), cellAt(record, l.riferimento));
        let b = building.get(key);
        if (b === undefined) {
          const planned = this.plan.get(key);
          if (planned === undefined) {
            if (overflow) continue; // beyond maxOrders: the caller refuses the file on its count
            throw new Error('the second pass over a CSV file read an order the first pass did not count');
          }
          // The order's fields, then its lines: the key order a candidate has whatever format it came in.
          const order = {} as Building['order'];
          for (const [field, at] of l.order) {
            const value = cellAt(record, at);
            if (value === '' && OPTIONAL_ORDER_FIELDS.has(field)) continue;
            order[field] = DATE_FIELDS.has(field) && value !== '' ? dateCell(order, field, value) : value;
          }
          order.righe = [];
          b = { index: planned.index, left: planned.rows, order, rows: [] };
          withRows(b.order, b.rows);
          building.set(key, b);
        }
        const line = { codice_articolo: cellAt(record, l.articolo), quantita: '' as unknown, unita_misura: cellAt(record, l.unita) };
        line.quantita = quantityCell(line, cellAt(record, l.quantita), this.numbers);
        b.order.righe.push(line);
        b.rows.push((record as LinedRecord)[RECORD_LINE] ?? 0);
        if (--b.left > 0) continue;
        building.delete(key);
        // Every row of it is read: its entry is needed no more, and the plan shrinks as the file is read.
        this.plan.delete(key);
        if (b.index !== next) {
          complete.set(b.index, b.order);
          continue;
        }
        yield b.order;
        next++;
        for (let o = complete.get(next); o !== undefined; o = complete.get(next)) {
          complete.delete(next);
          yield o;
          next++;
        }
      }
      first = false;
    }
    if (!overflow && this.plan.size > 0) throw new Error('the second pass over a CSV file did not complete every order the first pass counted');
  }
}
