/**
 * Numbers and dates as people type them (the portal's order form, the console's correction) and as spreadsheets
 * write them (CSV; Excel next): one reading for every such path, so the same text never means two things.
 *
 * Italian conventions first: `,` is the decimal separator and `.` groups thousands in threes (`1.500` is fifteen
 * hundred, `2.000,5` two thousand and a half, `28/11/2026` a date). Plain machine forms are read as well: digits
 * (`1500`), a decimal point with no grouping (`2.5`), ISO dates.
 *
 * Some texts are both: `1.500` is 1500 to an Italian and 1.5 to a machine. A text like that is read the Italian way
 * unless the values around it (the same file's quantities, the same form's lines) show machine writing (a decimal
 * point such as `2.5`), or the file's shape does (a CSV delimited by `,` is what English and machine exports write).
 * Then it is refused, never guessed: a guess is wrong by a factor of a thousand on a print run. Likewise `1.5` is
 * refused among values written with decimal commas. A refusal says why in Italian, naming the text.
 */

/** What the values around a text show: decimal commas or dot grouping (Italian), decimal points (machine). */
export interface NumberContext {
  /** Some value was written the Italian way (`1,5`, `2.000,5`, `1.234.567`). */
  italian: boolean;
  /** Some value was written with a decimal point (`2.5`), or the file's shape is a machine's. */
  machine: boolean;
}

export type Reading<T> = { ok: true; value: T } | { ok: false; reason: string };

/** The shapes a number can take; each is read (or refused) by one rule below. */
type Shape =
  | 'digits' // 1500
  | 'italian' // 1,5 · 0,250 · 2.000,5 · 1.234.567: only an Italian reading exists
  | 'comma-three' // 1,500: Italian 1.5, or English grouping 1500
  | 'dot-three' // 1.500: Italian grouping 1500, or a machine's 1.5
  | 'machine' // 2.5 · 0.250 · 12345.678: only a decimal point reading exists
  | 'english' // 1,234.5 · 1,234,567: English grouping, which an Italian never writes
  | 'other';

const DIGITS = /^[+-]?\d+$/;
const COMMA_THREE = /^[+-]?[1-9]\d{0,2},\d{3}$/;
const DOT_THREE = /^[+-]?[1-9]\d{0,2}\.\d{3}$/;
const COMMA_DECIMAL = /^[+-]?\d+,\d+$/;
const IT_GROUPED = /^[+-]?[1-9]\d{0,2}(?:\.\d{3})+(?:,\d+)?$/;
const DOT_DECIMAL = /^[+-]?\d+\.\d+$/;
const EN_GROUPED = /^[+-]?[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/;

function shapeOf(t: string): Shape {
  if (DIGITS.test(t)) return 'digits';
  if (COMMA_THREE.test(t)) return 'comma-three';
  if (DOT_THREE.test(t)) return 'dot-three';
  if (COMMA_DECIMAL.test(t) || IT_GROUPED.test(t)) return 'italian';
  if (DOT_DECIMAL.test(t)) return 'machine';
  if (EN_GROUPED.test(t)) return 'english';
  return 'other';
}

/** An empty context: nothing known yet. */
export function numberContext(machine = false): NumberContext {
  return { italian: false, machine };
}

/**
 * Adds what one text shows to a context. Cheap for the common case (a cell with no separator), since a CSV pass
 * calls it for every row.
 */
export function noteNumber(ctx: NumberContext, text: string): void {
  const t = text.trim();
  if (!t.includes(',') && !t.includes('.')) return;
  const shape = shapeOf(t);
  if (shape === 'italian' || shape === 'comma-three') ctx.italian = true;
  else if (shape === 'machine') ctx.machine = true;
}

/** The context of a set of texts (a form's quantities). */
export function contextOf(texts: Iterable<string>, machine = false): NumberContext {
  const ctx = numberContext(machine);
  for (const t of texts) noteNumber(ctx, t);
  return ctx;
}

const italianValue = (t: string) => Number(t.replace(/\./g, '').replace(',', '.'));

/** A number as a person or a spreadsheet wrote it, read in its context. */
export function readNumber(text: string, ctx: NumberContext): Reading<number> {
  const t = text.trim();
  const q = `«${t}»`;
  const read = (n: number): Reading<number> => (Number.isFinite(n) ? { ok: true, value: n } : { ok: false, reason: `${q} non è un numero` });
  switch (shapeOf(t)) {
    case 'digits':
      return read(Number(t));
    case 'italian':
      return read(italianValue(t));
    case 'comma-three':
      if (ctx.machine) return refuse(`${q} è ambiguo: può voler dire ${writeNumber(italianValue(t))} oppure ${t.replace(',', '')} (qui la virgola può separare le migliaia, all'inglese); scriva ${writeNumber(italianValue(t))} oppure ${t.replace(',', '')}`);
      return read(italianValue(t));
    case 'dot-three':
      if (ctx.machine) return refuse(`${q} è ambiguo: può voler dire ${t.replace('.', '')} oppure ${writeNumber(Number(t))} (qui il punto può separare i decimali, come in altri valori o nei file separati da virgole); scriva ${t.replace('.', '')} oppure ${writeNumber(Number(t))}`);
      return read(italianValue(t));
    case 'machine':
      if (ctx.italian) return refuse(`${q} è ambiguo: nei valori accanto i decimali sono scritti con la virgola; scriva ${writeNumber(Number(t))}`);
      return read(Number(t));
    case 'english':
      return refuse(`${q} non segue la convenzione italiana: scriva ${t.replace(/,/g, '').replace('.', ',')} (la virgola separa i decimali)`);
    default:
      return refuse(`${q} non è un numero`);
  }
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_FIRST = /^(\d{1,2})([/.-])(\d{1,2})\2(\d{2,4})$/;
const YEAR_FIRST = /^(\d{4})\/(\d{1,2})\/(\d{1,2})$/;

const pad = (n: number, w: number) => String(n).padStart(w, '0');

/**
 * A date as a person or a spreadsheet wrote it: `28/11/2026` (also `28.11.2026`, `28-11-2026`, one-digit day or
 * month), `2026/11/28` or ISO `2026-11-28`; read as ISO `YYYY-MM-DD`. Day first, as in Italy: `03/04/2026` is the
 * 3rd of April. A two-digit year is refused (which century is a guess), as is a day the calendar does not have.
 */
export function readDate(text: string): Reading<string> {
  const t = text.trim();
  const q = `«${t}»`;
  let y: number, m: number, d: number;
  const iso = ISO.exec(t);
  const dayFirst = iso ? null : DAY_FIRST.exec(t);
  const yearFirst = iso || dayFirst ? null : YEAR_FIRST.exec(t);
  if (iso) [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else if (dayFirst) {
    if (dayFirst[4]!.length !== 4) return refuse(`${q}: scriva l'anno con quattro cifre (per esempio 28/11/2026)`);
    [y, m, d] = [Number(dayFirst[4]), Number(dayFirst[3]), Number(dayFirst[1])];
  } else if (yearFirst) [y, m, d] = [Number(yearFirst[1]), Number(yearFirst[2]), Number(yearFirst[3])];
  else return refuse(`${q} non è una data: scriva per esempio 28/11/2026`);
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (y < 1 || dt.getUTCFullYear() !== y || dt.getUTCMonth() !== m - 1 || dt.getUTCDate() !== d) return refuse(`${q} non è una data del calendario`);
  return { ok: true, value: `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}` };
}

/**
 * A number for a person to read and retype, read back as the same number in any context: digits, a decimal comma,
 * no grouping (`1500`, `2,5`). Three decimals after a short whole part (`1,125`) could be read as grouping where the
 * context is a machine's, so they get a fourth, zero (`1,1250`).
 */
export function writeNumber(n: number): string {
  const t = String(n).replace('.', ',');
  return COMMA_THREE.test(t) ? `${t}0` : t;
}

/**
 * Where a value a decoder could not read is explained: on the order or line object it left the text in, by field
 * name. Stage A turns it into the Italian message people read; a symbol keeps it out of JSON and content hashes.
 */
export const UNREAD: unique symbol = Symbol('unread');
export type Unread = { [UNREAD]?: Record<string, string> };

/** Records why `field` of `target` was left as the text it was. */
export function markUnread(target: object, field: string, reason: string): void {
  const t = target as Unread;
  (t[UNREAD] ??= {})[field] = reason;
}

/** Why `field` of `target` was left as text, if a decoder said so. */
export function unreadReason(target: object, field: string): string | undefined {
  return (target as Unread)[UNREAD]?.[field];
}
