/**
 * Where in a CSV file a thing came from, so that people are told "riga 5 del file" (the row a spreadsheet shows,
 * from 1, the header counted) rather than a position within an order.
 *
 * Carried under symbols, not fields: a JSON or XML order naming a field of the same name is data, not a position,
 * and stage A never sees them (it reads the spec's fields only).
 */

/** The file line of a CSV record (an array of cells), set by the parsers of csv-stream.ts and csv-unquoted.ts. */
export const RECORD_LINE: unique symbol = Symbol('record line');

/** The file line of each line of an order candidate decoded from CSV, by line position. */
export const ORDER_ROWS: unique symbol = Symbol('order rows');

export type LinedRecord = string[] & { [RECORD_LINE]?: number };

/** Gives a candidate its lines' rows; not enumerable, so the candidate compares and serialises as before. */
export function withRows(candidate: object, rows: number[]): void {
  Object.defineProperty(candidate, ORDER_ROWS, { value: rows, enumerable: false });
}

/** The file rows of a candidate's lines, when it came from a CSV file. */
export function fileRowsOf(candidate: unknown): number[] | undefined {
  if (typeof candidate !== 'object' || candidate === null) return undefined;
  const rows = (candidate as { [ORDER_ROWS]?: unknown })[ORDER_ROWS];
  return Array.isArray(rows) ? (rows as number[]) : undefined;
}
