/**
 * Order numbers on PostgreSQL: one sequence per year (migration 012). The registering statements call
 * `nextval(numberSequence(year))`; before they run, `ready(years)` makes sure each year's sequence exists, once per
 * year and process, in its own short transaction (creating a sequence is DDL: it must not sit inside the
 * registering transaction, where it would hold its catalog locks until that commit).
 *
 * The promise (docs/development/numbering.md): unique per year; increasing in allocation order across instances;
 * gaps possible (a failed transaction, an identity race lost); not in commit order.
 */
import type { OrderWriters } from './order-writers.ts';

/** The sequence's name for a year; `year` is checked to be a 4-digit integer, so the name is never input. */
export function numberSequence(year: number): string {
  if (!Number.isInteger(year) || year < 1000 || year > 9999) throw new Error(`order number year ${year} out of range`);
  return `order_number_${year}`;
}

/**
 * The order number as SQL, from a year and a sequence value: numeroOrdine's twin (common/rows.ts), six digits at
 * least. `lpad` alone truncates a longer text to the length it is given, so the millionth order of a year took
 * `<year>-100000`, a number already given, and it and every later order of the year failed on the unique number.
 * `year` and `seq` are SQL expressions of this code, never input.
 */
export function numeroOrdineSql(year: string, seq: string): string {
  return `${year} || '-' || lpad(${seq}::text, greatest(6, length(${seq}::text)), '0')`;
}

export interface YearSequences {
  /** Resolves once every year in `years` has its sequence (created, or found, or raised to the copied floor). */
  ready(years: Iterable<number>): Promise<void>;
}

/** `writers`: the first check of a year reads orders (the floor it copies), so it waits on a lock as they do. */
export function yearSequences(writers: OrderWriters): YearSequences {
  // One check per year and process, shared by the requests that arrive while it runs (the first orders after a
  // start would otherwise each call the function and queue on its advisory lock).
  const known = new Map<number, Promise<void>>();
  return {
    async ready(years) {
      for (const year of years) {
        let check = known.get(year);
        if (!check) {
          numberSequence(year);
          check = writers.query('SELECT order_number_sequence($1::int)', [year]).then(() => undefined);
          known.set(year, check);
          // A failed check (database away) is tried again by the next registration, not remembered.
          check.catch(() => known.delete(year));
        }
        await check;
      }
    },
  };
}
