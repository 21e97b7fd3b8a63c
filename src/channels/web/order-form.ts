/**
 * An order typed into a form (the console's correction, the portal's order form): the posted fields and the order
 * object handed to the intake core. The form decides nothing about validity; the core judges the order.
 */
import { MAX_NOTE_CHARS } from '../../domain/types.ts';
import { str } from './render.ts';

export interface FormLine {
  codice_articolo: string;
  quantita: string;
  unita_misura: string;
}

export interface OrderForm {
  riferimento_ordine: string;
  data_ordine: string;
  data_consegna: string;
  /** The order's note, line breaks as \n. */
  note: string;
  righe: FormLine[];
}

/** Lines one form may carry: a form is typed by a person; larger orders are files. */
export const MAX_FORM_LINES = 200;

export const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(text) : v === undefined ? [] : [text(v)]);

/**
 * A textarea's text with its line breaks as \n (browsers send \r\n). Cut well above the note's limit, so that stage A,
 * not the form, says when it is too long.
 */
function noteOf(v: unknown): string {
  return typeof v === 'string' ? v.replace(/\r\n?/g, '\n').trim().slice(0, 4 * MAX_NOTE_CHARS) : '';
}

/** The button that asks for one more line without any script (form-lines.eta): the form comes back with it. */
export function wantsLine(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as Record<string, unknown>).aggiungi_riga !== undefined;
}

/** The form as typed with `extra` empty lines more, within the lines a form may carry, and never without a line. */
export function withLines(form: OrderForm, extra: number): OrderForm {
  const righe = [...form.righe];
  for (let i = 0; i < extra && righe.length < MAX_FORM_LINES; i++) righe.push({ codice_articolo: '', quantita: '', unita_misura: '' });
  if (righe.length === 0) righe.push({ codice_articolo: '', quantita: '', unita_misura: '' });
  return { ...form, righe };
}

/** The form as posted (repeated fields are the lines); blank lines are dropped. */
export function postedForm(body: unknown): OrderForm {
  const b = (body ?? {}) as Record<string, unknown>;
  const codes = list(b.codice_articolo);
  const qty = list(b.quantita);
  const units = list(b.unita_misura);
  const righe: FormLine[] = [];
  for (let i = 0; i < Math.min(codes.length, MAX_FORM_LINES); i++) {
    const l = { codice_articolo: (codes[i] ?? '').trim(), quantita: (qty[i] ?? '').trim(), unita_misura: (units[i] ?? '').trim() };
    if (l.codice_articolo || l.quantita || l.unita_misura) righe.push(l);
  }
  return {
    riferimento_ordine: str(b.riferimento_ordine, 200) ?? '', data_ordine: str(b.data_ordine, 20) ?? '',
    data_consegna: str(b.data_consegna, 20) ?? '', note: noteOf(b.note), righe,
  };
}

/**
 * The order the core will judge. Quantities typed with a decimal comma are read as numbers; anything else is left
 * as typed, so stage A refuses it with its usual message instead of this form guessing.
 */
export function orderFromForm(form: OrderForm, codiceCliente: string): Record<string, unknown> {
  const order: Record<string, unknown> = {
    codice_cliente: codiceCliente, riferimento_ordine: form.riferimento_ordine, data_ordine: form.data_ordine,
    righe: form.righe.map((l) => {
      const n = /^\d+([.,]\d+)?$/.test(l.quantita) ? Number(l.quantita.replace(',', '.')) : l.quantita;
      return { codice_articolo: l.codice_articolo, quantita: n, unita_misura: l.unita_misura.toUpperCase() };
    }),
  };
  if (form.data_consegna) order.data_consegna = form.data_consegna;
  if (form.note) order.note = form.note;
  return order;
}

