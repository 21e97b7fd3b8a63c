/**
 * How an outcome is kept in `submissions.outcome`. A file of many orders has its per-order outcomes in
 * `order_attempts` already (one row each, written in the same transaction): writing them all a second time as one
 * JSON value of the whole outcome cost more than anything else in recording a large file's outcome (100,000 orders:
 * an 18 MiB text built, copied by the driver and by SQLite into one record, some +100 MiB of peak memory for the
 * process). Such an outcome is kept "compact": the file's verdict, the orders that have no attempt row (those
 * without a reference), and the number of orders; the store reads the rest back from the attempts, so every reader
 * (REST/SOAP status, outcome files, reply e-mails, console, portal) gets the same Outcome as before.
 *
 * What must stay true: expandOutcome(compact, attempts) deep-equals JSON.parse(JSON.stringify(outcome)), keys in
 * the same order; the attempts are written in the same transaction as the compact outcome and replaced with it, or
 * (a file judged in batches: Store.recordAttempts) each batch's as it is judged and the compact outcome after them,
 * with the rows of an earlier judgement that were not overwritten deleted then. Either way no reader pairs a
 * verdict with another judgement's attempts: before the verdict is recorded the submission has none (a
 * re-judgement starts from resetSubmission, which clears it), and a reader reads both in one snapshot.
 */
import { hasAttemptRow } from '../../domain/store/records.ts';
import type { Outcome, OrderOutcome } from '../../domain/types.ts';

/**
 * Outcomes of more orders than this are kept compact. Small ones (every REST/SOAP call, most files) stay whole, so
 * reading them needs no second query.
 */
export const COMPACT_OUTCOME_ORDERS = 1000;

/** An order outcome that gets its own order_attempts row (rows.ts eachAttemptRow): one that names a reference. */
export { hasAttemptRow };

/** The compact form as stored; `ordersInAttempts` marks it. */
interface CompactOutcome extends Outcome {
  /** Position in the file of each order kept in `orders` (those without an attempt row). */
  positions: number[];
  /** Orders in the outcome, attempts and kept ones together. */
  ordersInAttempts: number;
}

/** The JSON text of `submissions.outcome` for this outcome. */
export function outcomeJson(outcome: Outcome, compactBeyond = COMPACT_OUTCOME_ORDERS): string {
  if (outcome.orders.length <= compactBeyond) return JSON.stringify(outcome);
  const kept: OrderOutcome[] = [];
  const positions: number[] = [];
  outcome.orders.forEach((o, i) => {
    if (!hasAttemptRow(o)) {
      kept.push(o);
      positions.push(i);
    }
  });
  const { orders, ...verdict } = outcome;
  const compact: CompactOutcome = { ...verdict, orders: kept, positions, ordersInAttempts: orders.length };
  return JSON.stringify(compact);
}

/** Whether a stored outcome (parsed) needs its orders read from the attempts. */
export function isCompact(stored: Outcome): boolean {
  return typeof (stored as Partial<CompactOutcome>).ordersInAttempts === 'number';
}

/**
 * The whole Outcome from its stored form. `attempts` are the submission's order_attempts rows (idx and the
 * parsed OrderOutcome), asked for only when the stored form is compact.
 */
export function expandOutcome(stored: Outcome, attempts: () => Iterable<{ idx: number; outcome: OrderOutcome }>): Outcome {
  if (!isCompact(stored)) return stored;
  const { positions, ordersInAttempts, orders: kept, ...verdict } = stored as CompactOutcome;
  const orders = new Array<OrderOutcome>(ordersInAttempts);
  for (const a of attempts()) orders[a.idx] = a.outcome;
  kept.forEach((o, k) => {
    orders[positions[k]!] = o;
  });
  return { ...verdict, orders };
}

/**
 * The positions of an outcome whose attempts were recorded batch by batch (Store.recordAttempts) that must have no
 * attempt row: the orders kept in the outcome for having none. With every position at or past the outcome's length,
 * they are where an earlier judgement's rows that this one did not overwrite may remain.
 */
export function positionsWithoutAttempt(outcome: Outcome): number[] {
  const positions: number[] = [];
  outcome.orders.forEach((o, i) => {
    if (!hasAttemptRow(o)) positions.push(i);
  });
  return positions;
}
