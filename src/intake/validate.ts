/**
 * Two-stage validation of order candidates.
 *
 * Stage A (structure) returns English messages worded like class-validator, because the spec's error shape A is
 * what NestJS/class-validator clients already parse (`codice_cliente must be a string`, `righe must contain at
 * least 1 elements`, nested paths as `righe.0.quantita`). Stage B (business) returns `{campo, messaggio}` pairs in
 * Italian with paths like `righe[1].codice_articolo` (error shape B). Stage B runs only on orders that passed A.
 *
 * Unknown extra fields are ignored, as OCA's sale_order_import and most EDI intakes do: ERPs add their own fields
 * and refusing them would break working exports for no gain.
 */
import { MAX_NOTE_CHARS, ORDER_ACTIONS, type ChangeAction, type FieldError, type Order, type OrderLine, type Principal } from '../domain/types.ts';
import { hasLoneSurrogate } from '../domain/text.ts';
import { unreadReason } from './formats/people-values.ts';

/** A print order with more lines is a mistake; the bound caps the work and memory one order can demand. */
export const MAX_LINES_PER_ORDER = 100_000;
/** Keys of the order identity; bounded so they fit file names, mail subjects and index keys. */
const MAX_CODE_LENGTH = 64;

/**
 * A refusal's `details`: for the fields a decoder of people's writing (CSV, forms) could not read, why, in Italian
 * and naming the text (`«1.500» è ambiguo…`). People are shown them; API clients keep the shape A `messages`.
 */
export type StageA =
  | { ok: true; order: Order }
  | { ok: false; messages: string[]; details?: FieldError[]; codice_cliente?: string; riferimento_ordine?: string };

/** Where stage A collects what it found. */
interface Found {
  messages: string[];
  details: FieldError[];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Real calendar date, strictly YYYY-MM-DD. */
export function isIsoDate(v: unknown): v is string {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return false;
  const [y, m, d] = v.split('-').map(Number) as [number, number, number];
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

function requiredString(obj: Record<string, unknown>, key: string, path: string, out: string[]): string | undefined {
  const v = obj[key];
  if (typeof v !== 'string') {
    if (v === undefined || v === null) out.push(`${path} should not be empty`);
    out.push(`${path} must be a string`);
    return undefined;
  }
  const t = v.trim();
  if (t === '') {
    out.push(`${path} should not be empty`);
    return undefined;
  }
  // Control characters (NUL above all) are never part of a code; PostgreSQL cannot even store NUL in text.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(t)) {
    out.push(`${path} must not contain control characters`);
    return undefined;
  }
  // Half of a surrogate pair is no character: a JSON escape such as "\ud83c" left by an exporter that cut a string
  // inside an emoji, or broken UTF-16. PostgreSQL refuses it in JSON, so the outcome quoting it could not be stored.
  if (hasLoneSurrogate(t)) {
    out.push(`${path} must not contain half of a UTF-16 surrogate pair`);
    return undefined;
  }
  if (t.length > MAX_CODE_LENGTH) {
    out.push(`${path} must be shorter than or equal to ${MAX_CODE_LENGTH} characters`);
    return undefined;
  }
  return t;
}

function date(obj: Record<string, unknown>, key: string, optional: boolean, found: Found): string | undefined {
  const v = obj[key];
  if (optional && (v === undefined || v === null || v === '')) return undefined;
  const t = typeof v === 'string' ? v.trim() : v;
  if (!isIsoDate(t)) {
    found.messages.push(`${key} must be a valid ISO 8601 date string (YYYY-MM-DD)`);
    explain(obj, key, key, found);
    return undefined;
  }
  return t;
}

/**
 * The optional note: free text for people, so line breaks and tabs are kept; other control characters (NUL above
 * all, which PostgreSQL cannot store) are refused, as in codes. Surrounding blanks are dropped; a blank note is none.
 */
function note(obj: Record<string, unknown>, out: string[], key: 'note' | 'motivo' = 'note'): string | undefined {
  const v = obj[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    out.push(`${key} must be a string`);
    return undefined;
  }
  const t = v.trim();
  if (t === '') return undefined;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(t)) {
    out.push(`${key} must not contain control characters other than line breaks and tabs`);
    return undefined;
  }
  if (hasLoneSurrogate(t)) {
    out.push(`${key} must not contain half of a UTF-16 surrogate pair`);
    return undefined;
  }
  // Characters as a person counts them: an emoji is one, though it takes two UTF-16 units.
  let chars = 0;
  for (const _ of t) if (++chars > MAX_NOTE_CHARS) break;
  if (chars > MAX_NOTE_CHARS) {
    out.push(`${key} must be shorter than or equal to ${MAX_NOTE_CHARS} characters`);
    return undefined;
  }
  return t;
}

function explain(obj: Record<string, unknown>, key: string, campo: string, found: Found): void {
  const reason = unreadReason(obj, key);
  if (reason !== undefined) found.details.push({ campo, messaggio: reason });
}

function line(v: unknown, i: number, found: Found): OrderLine | undefined {
  const out = found.messages;
  const base = `righe.${i}`;
  if (!isRecord(v)) {
    out.push(`${base} must be an object`);
    return undefined;
  }
  const before = out.length;
  const codice = requiredString(v, 'codice_articolo', `${base}.codice_articolo`, out);
  const q = v.quantita;
  if (typeof q !== 'number' || !Number.isFinite(q)) {
    out.push(`${base}.quantita must be a number conforming to the specified constraints`);
    explain(v, 'quantita', `righe[${i}].quantita`, found);
  } else if (q <= 0) {
    out.push(`${base}.quantita must be a positive number`);
  }
  const unita = requiredString(v, 'unita_misura', `${base}.unita_misura`, out);
  if (out.length > before) return undefined;
  // Units are codes: compared and stored upper-case so `pz` and `PZ` are one unit.
  return { codice_articolo: codice!, quantita: q as number, unita_misura: unita!.toUpperCase() };
}

/**
 * The order's `azione` (absent or empty: `nuovo`); words compared without case or surrounding blanks, as people
 * type them in a CSV column. Undefined for `nuovo`, null when it is none of the actions.
 */
function action(obj: Record<string, unknown>, out: string[]): ChangeAction | undefined | null {
  const v = obj.azione;
  if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) return undefined;
  const word = typeof v === 'string' ? v.trim().toLowerCase() : undefined;
  if (word === undefined || !(ORDER_ACTIONS as readonly string[]).includes(word)) {
    out.push(`azione must be one of the following values: ${ORDER_ACTIONS.join(', ')}`);
    return null;
  }
  return word === 'nuovo' ? undefined : word as ChangeAction;
}

/**
 * Stage A of a cancellation: only the identity (and the reason) is needed; lines and dates, if sent, are not read.
 * `data_ordine` is left empty: a cancellation is never registered, only matched to the registered order.
 */
function cancellation(candidate: Record<string, unknown>, found: Found): StageA {
  const out = found.messages;
  const codice_cliente = requiredString(candidate, 'codice_cliente', 'codice_cliente', out);
  const riferimento_ordine = requiredString(candidate, 'riferimento_ordine', 'riferimento_ordine', out);
  const motivo = note(candidate, out, 'motivo');
  if (out.length > 0) return { ok: false, messages: out, codice_cliente, riferimento_ordine };
  const order: Order = { codice_cliente: codice_cliente!, riferimento_ordine: riferimento_ordine!, data_ordine: '', righe: [], azione: 'annulla' };
  if (motivo !== undefined) order.motivo = motivo;
  return { ok: true, order };
}

/**
 * Stage A: types, required fields, real dates, a note within its bounds, at least one line; the action asked and its
 * reason. A `modifica` is a whole order, checked as a new one.
 */
export function validateStructure(candidate: unknown): StageA {
  if (!isRecord(candidate)) return { ok: false, messages: ['ordine must be an object'] };
  const found: Found = { messages: [], details: [] };
  const out = found.messages;
  const azione = action(candidate, out);
  if (azione === 'annulla') return cancellation(candidate, found);
  const codice_cliente = requiredString(candidate, 'codice_cliente', 'codice_cliente', out);
  const riferimento_ordine = requiredString(candidate, 'riferimento_ordine', 'riferimento_ordine', out);
  const motivo = note(candidate, out, 'motivo');
  const data_ordine = date(candidate, 'data_ordine', false, found);
  const data_consegna = date(candidate, 'data_consegna', true, found);
  const nota = note(candidate, out);
  const righe = candidate.righe;
  const lines: OrderLine[] = [];
  if (!Array.isArray(righe)) {
    out.push('righe must be an array');
    if (righe === undefined || righe === null) out.push('righe must contain at least 1 elements');
  } else if (righe.length === 0) {
    out.push('righe must contain at least 1 elements');
  } else if (righe.length > MAX_LINES_PER_ORDER) {
    out.push(`righe must contain no more than ${MAX_LINES_PER_ORDER} elements`);
  } else {
    righe.forEach((r, i) => {
      const l = line(r, i, found);
      if (l) lines.push(l);
    });
  }
  if (out.length > 0) {
    return { ok: false, messages: out, ...(found.details.length ? { details: found.details } : {}), codice_cliente, riferimento_ordine };
  }
  const order: Order = { codice_cliente: codice_cliente!, riferimento_ordine: riferimento_ordine!, data_ordine: data_ordine!, righe: lines };
  if (data_consegna !== undefined) order.data_consegna = data_consegna;
  if (nota !== undefined) order.note = nota;
  if (azione) order.azione = azione;
  if (motivo !== undefined && azione) order.motivo = motivo;
  return { ok: true, order };
}

/** What stage B needs to know from the store, looked up once per file rather than per order. */
export interface Catalog {
  articles: Set<string>;
  units: Set<string>;
  /** Codes among those asked that an operator deactivated (absent: none). */
  inactive?: Set<string>;
}

/** Stage B result: the customer check is separate because it decides a different status (403 rather than 400). */
export type StageB = { kind: 'ok' } | { kind: 'forbidden'; errori: FieldError[] } | { kind: 'errors'; errori: FieldError[] };

/**
 * Stage B: the order belongs to the authenticated customer, its dates are in order, its articles and units exist.
 * On success the order's codice_cliente is replaced by the customer's canonical code (so `c001` and `C001` are one
 * identity).
 */
export function validateBusiness(order: Order, principal: Principal, catalog: Catalog): StageB {
  const forbidden = forbiddenCustomer(order, principal);
  if (forbidden) return forbidden;
  order.codice_cliente = principal.customerCode;
  // A cancellation names an order; it has no content of its own to check.
  if (order.azione === 'annulla') return { kind: 'ok' };
  const errori: FieldError[] = [];
  if (order.data_consegna !== undefined && order.data_consegna < order.data_ordine) {
    errori.push({ campo: 'data_consegna', messaggio: `La data di consegna (${order.data_consegna}) precede la data dell'ordine (${order.data_ordine})` });
  }
  order.righe.forEach((r, i) => {
    if (!catalog.articles.has(r.codice_articolo) && catalog.inactive?.has(r.codice_articolo)) {
      errori.push({ campo: `righe[${i}].codice_articolo`, messaggio: `Articolo non più disponibile: "${r.codice_articolo}"` });
    } else if (!catalog.articles.has(r.codice_articolo)) {
      errori.push({ campo: `righe[${i}].codice_articolo`, messaggio: `Articolo sconosciuto: "${r.codice_articolo}"` });
    }
    if (!catalog.units.has(r.unita_misura)) {
      errori.push({ campo: `righe[${i}].unita_misura`, messaggio: `Unità di misura sconosciuta: "${r.unita_misura}"` });
    }
  });
  return errori.length ? { kind: 'errors', errori } : { kind: 'ok' };
}

function forbiddenCustomer(order: Order, principal: Principal): StageB | undefined {
  if (order.codice_cliente.toUpperCase() === principal.customerCode.toUpperCase()) return undefined;
  return {
    kind: 'forbidden',
    errori: [{ campo: 'codice_cliente', messaggio: `Il codice cliente "${order.codice_cliente}" non corrisponde al cliente autenticato` }],
  };
}
