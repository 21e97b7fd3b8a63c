/**
 * What registration needs besides the store: the canonical content hash that decides "same order sent again"
 * versus "different order under a used reference", and the numbering year.
 */
import { createHash } from 'node:crypto';
import type { Order } from '../domain/types.ts';

/**
 * Hash of what the customer asked for, independent of the format it came in: the same order as JSON, as XML or as
 * a CSV with decimal commas gives the same hash. Field order is fixed here; changing it changes every hash, so it
 * must stay as it is (or existing orders would all look like conflicts).
 */
export function contentHash(order: Order): string {
  const canonical = [
    order.codice_cliente,
    order.riferimento_ordine,
    order.data_ordine,
    order.data_consegna ?? null,
    order.righe.map((r) => [r.codice_articolo, r.quantita, r.unita_misura]),
  ];
  // Added only when there is one, so the hash of every order without a note stays what it was.
  if (order.note !== undefined) canonical.push(order.note);
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex');
}

/** Building a formatter costs more than formatting (a few % of the REST path in profiles): one per zone. */
const yearFormats = new Map<string, Intl.DateTimeFormat>();

/**
 * Formatting still cost 1.6 % of the REST path after that, for an answer that changes once a year. So the
 * answer is kept per zone for the quarter-hour it was computed in, and only when the year is the same at both
 * ends of that quarter-hour, so a quarter-hour that holds a New Year is never remembered (any UTC offset works).
 */
const SLOT_MS = 15 * 60_000;
const yearSlots = new Map<string, { slot: number; year: number }>();

function formatYear(at: number, timeZone: string): number {
  let f = yearFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en', { timeZone, year: 'numeric' });
    yearFormats.set(timeZone, f);
  }
  return Number(f.format(at));
}

/** The calendar year of `at` in `timeZone`: orders are numbered per year of registration where the service runs. */
export function yearIn(at: Date, timeZone: string): number {
  const ms = at.getTime();
  const slot = Math.floor(ms / SLOT_MS);
  const hit = yearSlots.get(timeZone);
  if (hit?.slot === slot) return hit.year;
  const year = formatYear(ms, timeZone);
  if (Number.isFinite(ms) && formatYear(slot * SLOT_MS, timeZone) === year && formatYear((slot + 1) * SLOT_MS - 1, timeZone) === year) {
    yearSlots.set(timeZone, { slot, year });
  }
  return year;
}
