/**
 * One linear pass over CSV bytes before csv-parse, for the limits csv-parse cannot enforce cheaply: it has no
 * column limit (a row of 100 million delimiters would become a 100-million-cell array before any hook sees
 * it), its per-cell hook makes parsing ten times slower, and it reports an unclosed quote only where the file
 * ends. This pass knows where each row and each quoted cell begins, so its messages name the right line.
 *
 * Quotes are read the way csv-parse reads them with `relax_quotes`: a quote opens a quoted cell only at the
 * start of a cell; inside one, `""` is a literal quote and a single quote closes it.
 *
 * It reads UTF-8 bytes in chunks of any size (a file is fed piece by piece): every byte it looks for is ASCII,
 * and no byte of a multi-byte UTF-8 sequence is, so bytes can be scanned as they come. Lengths are counted in
 * characters as JavaScript counts them (UTF-16 code units), so the limit means the same as on decoded text.
 */
import { IntakeError } from '../../../domain/errors.ts';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

export interface ShapeLimits {
  maxColumns: number;
  /** Longest quoted cell; beyond it a closing quote is almost surely missing. */
  maxQuotedChars: number;
}

export class ShapeScanner {
  readonly #delim: number;
  #line = 1;
  #columns = 1;
  #cellStart = true;
  #inQuote = false;
  /** Characters since the opening quote while inside a quoted cell. */
  #quoted = 0;
  #quoteLine = 0;
  /** The last byte of the previous chunk: it is read once the next byte (its look-ahead) is known. */
  #carry = -1;

  constructor(delimiter: string, private readonly limits: ShapeLimits) {
    this.#delim = delimiter.charCodeAt(0);
  }

  /** Scan the next piece of the file; `last` for the final one (possibly empty). Throws NOT_PARSEABLE. */
  feed(chunk: Uint8Array, last: boolean): void {
    let bytes = chunk;
    if (this.#carry !== -1) {
      bytes = new Uint8Array(chunk.length + 1);
      bytes[0] = this.#carry;
      bytes.set(chunk, 1);
      this.#carry = -1;
    }
    let n = bytes.length;
    if (!last && n > 0) this.#carry = bytes[--n]!;
    const { maxColumns, maxQuotedChars } = this.limits;
    const delim = this.#delim;
    let line = this.#line;
    let columns = this.#columns;
    let cellStart = this.#cellStart;
    let inQuote = this.#inQuote;
    let quoted = this.#quoted;
    let i = 0;
    for (; i < n; i++) {
      const c = bytes[i]!;
      const newline = c === LF || (c === CR && bytes[i + 1] !== LF);
      if (inQuote) {
        if (c === QUOTE) {
          if (bytes[i + 1] === QUOTE) {
            i++;
            quoted += 2;
          } else inQuote = false;
        } else if ((c & 0xc0) !== 0x80) {
          // A 4-byte sequence is two UTF-16 code units; continuation bytes are none.
          quoted += c >= 0xf0 ? 2 : 1;
          if (quoted > maxQuotedChars) {
            throw new IntakeError(
              'NOT_PARSEABLE',
              `CSV has a quoted cell longer than ${maxQuotedChars} characters, opened on line ${this.#quoteLine}; is a closing quote missing?`,
            );
          }
        }
        if (newline) line++;
        continue;
      }
      if (newline) {
        line++;
        columns = 1;
        cellStart = true;
      } else if (c === delim) {
        if (++columns > maxColumns) {
          throw new IntakeError('NOT_PARSEABLE', `CSV must not have more than ${maxColumns} columns (line ${line} has more)`);
        }
        cellStart = true;
      } else if (c !== CR) {
        if (c === QUOTE && cellStart) {
          inQuote = true;
          quoted = 0;
          this.#quoteLine = line;
        }
        cellStart = false;
      }
    }
    // The doubled quote at the end of the chunk took the carried byte as its second half.
    if (i > n) this.#carry = -1;
    this.#line = line;
    this.#columns = columns;
    this.#cellStart = cellStart;
    this.#inQuote = inQuote;
    this.#quoted = quoted;
    if (last && inQuote) {
      throw new IntakeError('NOT_PARSEABLE', `CSV has a quote that is never closed, opened on line ${this.#quoteLine}`);
    }
  }
}
