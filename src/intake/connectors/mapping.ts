/**
 * ERP flows: the ERP's own JSON or XML, turned into orders by a JSONata expression stored on the connector.
 * JSONata is declarative, has no I/O (no file, network or process access), and 2.x evaluates with guard rails
 * this module always sets: a time limit, a recursion depth limit and a sequence length limit. The input is
 * bounded in size before it is parsed.
 *
 * Input the expression sees:
 * - JSON: the parsed document as it is.
 * - XML: `{ "<root name>": … }`, namespace prefixes removed, attributes as `@name`, the text of an element with
 *   attributes as `#text`, repeated elements as arrays, every value text (see xml-tree.ts). In JSONata an
 *   attribute is read with backquotes: ordine.`@numero`.
 * - The binding `$receivedAt`: the ISO date-time the submission was received.
 *
 * Output: one order object, an array of them, or `{ "ordini": [...] }`, in the core's candidate shape. Each order
 * may carry `sito_produzione`; it is removed from the order and becomes the submission's site. Two conveniences
 * match the core's XML decoder: a line's `quantita` given as decimal text becomes a number, and `righe` given as
 * one object (JSONata returns a single match unwrapped) becomes a one-line array.
 */
import jsonata from 'jsonata';
import { IntakeError } from '../../domain/errors.ts';
import { decimalNumber, isRecord } from '../formats/fields.ts';
import { printable } from '../formats/text.ts';

/**
 * Evaluation time limit. A mapping of a large export takes milliseconds; a second means a loop that does not
 * end, and the judge must get on with the next submission.
 */
export const MAPPING_TIMEOUT_MS = 1000;
/** Evaluation depth. Deep enough for recursive helpers over nested data; shallow enough for the JS stack. */
export const MAPPING_MAX_DEPTH = 500;
/** Longest sequence the expression may build: far above the lines of any export, well below memory trouble. */
export const MAPPING_MAX_SEQUENCE = 200_000;
/** Largest result, as JSON text: the orders it holds are stored and validated after this. */
export const MAX_MAPPING_RESULT_CHARS = 16 * 1024 * 1024;

export type CompiledMapping = jsonata.Expression;

function jsonataReason(e: unknown): string {
  if (typeof e === 'object' && e !== null) {
    const { message, position, code } = e as { message?: unknown; position?: unknown; code?: unknown };
    const text = typeof message === 'string' && message !== '' ? message : typeof code === 'string' ? `error ${code}` : 'invalid expression';
    return typeof position === 'number' ? `${text} (at character ${position})` : text;
  }
  return 'invalid expression';
}

/** Throws an Error whose message says why the text is not a JSONata expression. */
export function compileMapping(text: string): CompiledMapping {
  try {
    return jsonata(text, { timeout: MAPPING_TIMEOUT_MS, stack: MAPPING_MAX_DEPTH, sequence: MAPPING_MAX_SEQUENCE });
  } catch (e) {
    throw new Error(jsonataReason(e), { cause: e });
  }
}

export interface MappedOrders {
  candidates: unknown[];
  site?: string;
}

const LIMIT_CODES: Readonly<Record<string, string>> = {
  D1011: `the mapping recursed deeper than ${MAPPING_MAX_DEPTH} levels`,
  D1012: `the mapping ran longer than ${MAPPING_TIMEOUT_MS} ms`,
  D2015: `the mapping built a sequence longer than ${MAPPING_MAX_SEQUENCE} items`,
};

export async function runMapping(text: string, input: unknown, receivedAt: string): Promise<MappedOrders> {
  let expr: CompiledMapping;
  try {
    expr = compileMapping(text);
  } catch (e) {
    throw new IntakeError('NOT_PARSEABLE', `the connector's mapping does not compile (${printable((e as Error).message, 200)}); the operator must fix it`);
  }
  let result: unknown;
  try {
    result = await expr.evaluate(input, { receivedAt });
  } catch (e) {
    const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
    const limit = typeof code === 'string' ? LIMIT_CODES[code] : undefined;
    throw new IntakeError('NOT_PARSEABLE', limit ?? `the mapping failed on this payload (${printable(jsonataReason(e), 200)})`);
  }
  return toOrders(result);
}

/** JSONata results may be sequences and hold functions; a JSON round trip leaves plain data, bounded. */
function plain(result: unknown): unknown {
  const json = JSON.stringify(result);
  if (json === undefined) return undefined;
  if (json.length > MAX_MAPPING_RESULT_CHARS) throw new IntakeError('NOT_PARSEABLE', 'the mapping produced a result larger than 16 MiB');
  return JSON.parse(json) as unknown;
}

function toOrders(result: unknown): MappedOrders {
  const value = plain(result);
  if (value === undefined || value === null) throw new IntakeError('NO_ORDERS', 'the mapping produced no order from this payload');
  const list = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.ordini) ? value.ordini : [value];
  const sites = new Set<string>();
  const candidates = list.map((order, i) => {
    if (!isRecord(order)) throw new IntakeError('NOT_PARSEABLE', `the mapping must produce order objects; result ${i} is not one`);
    const { sito_produzione: site, ...rest } = order;
    if (typeof site === 'string' && site.trim() !== '') sites.add(site.trim());
    return withLines(rest);
  });
  if (candidates.length === 0) throw new IntakeError('NO_ORDERS', 'the mapping produced no order from this payload');
  if (sites.size > 1) throw new IntakeError('NOT_PARSEABLE', `the orders of one submission must name one production site, not ${[...sites].map((s) => `"${printable(s)}"`).join(', ')}`);
  const [site] = sites;
  return site === undefined ? { candidates } : { candidates, site };
}

function withLines(order: Record<string, unknown>): Record<string, unknown> {
  const righe = isRecord(order.righe) ? [order.righe] : order.righe;
  if (!Array.isArray(righe)) return order;
  return {
    ...order,
    righe: righe.map((r) => (isRecord(r) && typeof r.quantita === 'string' ? { ...r, quantita: decimalNumber(r.quantita) ?? r.quantita } : r)),
  };
}

/**
 * Orders decoded without a mapping (the spec's own JSON/XML) may name their site in `sito_produzione` too; it is
 * taken out and nothing else is touched (the core keeps values exactly as sent).
 */
export function ordersWithSite(orders: unknown[]): MappedOrders {
  const sites = new Set<string>();
  const candidates = orders.map((order) => {
    if (!isRecord(order) || !Object.hasOwn(order, 'sito_produzione')) return order;
    const { sito_produzione: site, ...rest } = order;
    if (typeof site === 'string' && site.trim() !== '') sites.add(site.trim());
    return rest;
  });
  if (sites.size > 1) throw new IntakeError('NOT_PARSEABLE', `the orders of one submission must name one production site, not ${[...sites].map((s) => `"${printable(s)}"`).join(', ')}`);
  const [site] = sites;
  return site === undefined ? { candidates } : { candidates, site };
}
