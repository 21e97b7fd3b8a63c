/**
 * JSON orders: one order object, an array of orders, or `{"ordini": [...]}`. Values are kept exactly as sent;
 * stage A judges them.
 *
 * `__proto__` keys need no special care here: JSON.parse makes them own data properties and nothing below
 * merges objects or assigns keys taken from the file.
 */
import { IntakeError } from '../../../domain/errors.ts';
import { withoutLoneSurrogates } from '../../../domain/text.ts';
import { declaredCharset, type DecodeInput } from '../input.ts';
import { isRecord } from '../fields.ts';
import { decodeText } from '../text.ts';

/**
 * Deepest nesting accepted. An order is five levels deep ({"ordini": [{"righe": [{…}]}]}); V8's JSON.parse
 * copes with any depth, but the code that walks the result afterwards (validation, JSON.stringify of the
 * outcome) recurses and would overflow the stack on a hostile file.
 */
export const MAX_JSON_DEPTH = 32;

const SHAPE_HINT = 'an order object, an array of orders or {"ordini": [...]}';

export function decodeJson(input: DecodeInput): unknown[] {
  const text = decodeText(input.raw, { charset: declaredCharset(input), label: 'JSON' });
  const value = parse(text);
  checkDepth(value);
  return candidates(value);
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    // SyntaxError for bad JSON; RangeError if an engine ever gives up on depth. Neither carries internals.
    const reason = e instanceof Error ? e.message : 'unreadable';
    throw new IntakeError('NOT_PARSEABLE', `body must be valid JSON (${withLineAndColumn(reason, text)})`);
  }
}

/**
 * V8 reports a character position; people count lines (V8 of Node 22 and later says both). Its quoted excerpt of the input is kept on one line. V8
 * names an unexpected character by one UTF-16 unit, half of an emoji's pair ("Unexpected token '\ud83c'"): such
 * halves become U+FFFD, or the outcome quoting the message could not be stored (PostgreSQL refuses them in JSON).
 */
function withLineAndColumn(rawReason: string, text: string): string {
  // Node 22's V8 adds " (line 3 column 3)" itself; taken off, so that the answer is the same on every Node release.
  const reason = withoutLoneSurrogates(rawReason.replace(/\s+/g, ' '), '\ufffd').replace(/ \(line \d+ column \d+\)$/, '');
  const m = /at position (\d+)/.exec(reason);
  if (!m) return reason;
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - before.lastIndexOf('\n');
  return `${reason}, line ${line} column ${column}`;
}

/** Iterative on purpose: a recursive walk would itself overflow on the inputs it is meant to stop. */
function checkDepth(root: unknown): void {
  const stack: Array<[value: unknown, depth: number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) {
      throw new IntakeError('NOT_PARSEABLE', `body must not nest objects or arrays more than ${MAX_JSON_DEPTH} levels deep`);
    }
    for (const child of Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}

function candidates(value: unknown): unknown[] {
  if (Array.isArray(value)) return objectsOnly(value, 'order');
  if (isRecord(value)) {
    if (!Object.hasOwn(value, 'ordini')) return [value];
    const list = value.ordini;
    if (!Array.isArray(list)) throw new IntakeError('NOT_PARSEABLE', 'ordini must be an array of orders');
    return objectsOnly(list, 'ordini');
  }
  throw new IntakeError('NOT_PARSEABLE', `body must hold ${SHAPE_HINT}`);
}

/**
 * Every candidate handed on is a plain object; a number or string where an order should be means the file's
 * layout is wrong, not the order, so it is a file error naming the position.
 */
function objectsOnly(list: unknown[], where: string): unknown[] {
  const bad = list.findIndex((v) => !isRecord(v));
  if (bad !== -1) {
    const place = where === 'order' ? `element ${bad} of the array` : `ordini[${bad}]`;
    throw new IntakeError('NOT_PARSEABLE', `${place} must be an order object`);
  }
  return list;
}
