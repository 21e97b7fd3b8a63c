/**
 * One linear pass over CSV text before csv-parse, for the limits csv-parse cannot enforce cheaply: it has no
 * column limit (a row of 100 million delimiters would become a 100-million-cell array before any hook sees
 * it), its per-cell hook makes parsing ten times slower, and it reports an unclosed quote only where the file
 * ends. This pass knows where each row and each quoted cell begins, so its messages name the right line.
 *
 * Quotes are read the way csv-parse reads them with `relax_quotes`: a quote opens a quoted cell only at the
 * start of a cell; inside one, `""` is a literal quote and a single quote closes it.
 */
import { IntakeError } from '../../errors.ts';

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

export interface ShapeLimits {
  maxColumns: number;
  /** Longest quoted cell; beyond it a closing quote is almost surely missing. */
  maxQuotedChars: number;
}

export function checkShape(text: string, delimiter: string, limits: ShapeLimits): void {
  const delim = delimiter.charCodeAt(0);
  let line = 1;
  let columns = 1;
  let cellStart = true;
  let quoteStart = -1; // index of the opening quote while inside a quoted cell
  let quoteLine = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const newline = c === LF || (c === CR && text.charCodeAt(i + 1) !== LF);
    if (quoteStart !== -1) {
      if (c === QUOTE) {
        if (text.charCodeAt(i + 1) === QUOTE) i++;
        else quoteStart = -1;
      } else if (i - quoteStart > limits.maxQuotedChars) {
        throw new IntakeError(
          'NOT_PARSEABLE',
          `CSV has a quoted cell longer than ${limits.maxQuotedChars} characters, opened on line ${quoteLine}; is a closing quote missing?`,
        );
      }
      if (newline) line++;
      continue;
    }
    if (newline) {
      line++;
      columns = 1;
      cellStart = true;
    } else if (c === delim) {
      if (++columns > limits.maxColumns) {
        throw new IntakeError('NOT_PARSEABLE', `CSV must not have more than ${limits.maxColumns} columns (line ${line} has more)`);
      }
      cellStart = true;
    } else if (c !== CR) {
      if (c === QUOTE && cellStart) {
        quoteStart = i;
        quoteLine = line;
      }
      cellStart = false;
    }
  }
  if (quoteStart !== -1) {
    throw new IntakeError('NOT_PARSEABLE', `CSV has a quote that is never closed, opened on line ${quoteLine}`);
  }
}
