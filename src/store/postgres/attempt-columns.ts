/**
 * Order attempts as the PostgreSQL statements take them: five parallel arrays (position, reference, esito, the
 * order's outcome as JSON, its customer when it is another's), what `unnest(…) AS t(idx, ref, esito, outcome,
 * customer)` reads back into rows. One shape for every statement that writes attempts (complete-batch.ts,
 * single-batch.ts, attempts.ts), so their columns cannot drift apart.
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
