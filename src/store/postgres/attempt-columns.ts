/**
 * Order attempts as the PostgreSQL statements take them: five parallel arrays (position, reference, esito, the
 * order's outcome as JSON, its customer when it is another's), what `unnest(…) AS t(idx, ref, esito, outcome,
 * customer)` reads back into rows. One shape for every statement that writes attempts (complete-batch.ts,
 * attempts.ts), so their columns cannot drift apart; and the same columns as records of one JSON parameter
 * (attemptRecord, ATTEMPT_RECORD_COLUMNS) for the REST path's grouped statement, where `pg` escaping each outcome's
 * JSON as an array element cost more than JSON.stringify of them all (single-batch.ts).
 */
import type { AttemptInsert } from '../common/rows.ts';

export interface AttemptColumns {
  idx: number[];
  ref: string[];
  esito: string[];
  json: string[];
  customer: (string | null)[];
}

export function attemptColumns(rows: Iterable<AttemptInsert> = []): AttemptColumns {
  const cols: AttemptColumns = { idx: [], ref: [], esito: [], json: [], customer: [] };
  for (const a of rows) pushAttempt(cols, a);
  return cols;
}

export function pushAttempt(cols: AttemptColumns, a: AttemptInsert): void {
  cols.idx.push(a.idx);
  cols.ref.push(a.riferimento);
  cols.esito.push(a.esito);
  cols.json.push(a.json);
  cols.customer.push(a.customer ?? null);
}

/** The five arrays in the order the statements' parameters list them. */
export function attemptArrays(cols: AttemptColumns): [number[], string[], string[], string[], (string | null)[]] {
  return [cols.idx, cols.ref, cols.esito, cols.json, cols.customer];
}

/** An attempt as a record of a JSON parameter: what `json_to_recordset(…) AS t(…, ${ATTEMPT_RECORD_COLUMNS})` reads. */
export function attemptRecord(a: AttemptInsert): { idx: number; ref: string; esito: string; outcome: string; customer: string | null } {
  return { idx: a.idx, ref: a.riferimento, esito: a.esito, outcome: a.json, customer: a.customer ?? null };
}

/** attemptRecord's keys and their SQL types, for the statement's column definition list. */
export const ATTEMPT_RECORD_COLUMNS = 'idx int, ref text, esito text, outcome text, customer text';
