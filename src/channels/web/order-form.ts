/**
 * An order typed into a form (the console's correction, the portal's order form): the posted fields and the order
 * object handed to the intake core. The form decides nothing about validity; the core judges the order.
 */
import { MAX_NOTE_CHARS } from '../../domain/types.ts';
import { str } from './render.ts';
import { contextOf, readDate, readNumber } from '../../intake/formats/people-values.ts';

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

/** What a person typed that cannot be read, said before anything is sent: the form is shown again with it. */
export interface FormProblem {
  where: string;
  text: string;
}

export type FormReading = { ok: true; order: Record<string, unknown> } | { ok: false; problems: FormProblem[] };

/**
 * The order the core will judge, with quantities and dates read as people write them (people-values.ts): `1.500` is
 * fifteen hundred, `28/11/2026` a date. A value that cannot be read, or could be read two ways, is not guessed:
 * the person is told at once, in the form, and nothing is sent. Everything else (a missing field, an unknown
 * article) the core judges as for any order. `machine`: the form's values came from a file whose numbers are a
 * machine's (the correction of a CSV delimited by `,`), so `1.000` there may be 1 and is refused as in that file.
 */
export function readOrderForm(form: OrderForm, codiceCliente: string, opts: { machine?: boolean } = {}): FormReading {
  const problems: FormProblem[] = [];
  const numbers = contextOf(form.righe.map((l) => l.quantita), opts.machine);
  const righe = form.righe.map((l, i) => {
    let quantita: unknown = l.quantita;
    if (l.quantita !== '') {
      const r = readNumber(l.quantita, numbers);
      if (r.ok) quantita = r.value;
      else problems.push({ where: `Riga ${i + 1}, quantità`, text: r.reason });
    }
    return { codice_articolo: l.codice_articolo, quantita, unita_misura: l.unita_misura.toUpperCase() };
  });
  const date = (text: string, label: string): string => {
    if (text === '') return text;
    const r = readDate(text);
    if (r.ok) return r.value;
    problems.push({ where: label, text: r.reason });
    return text;
  };
  const order: Record<string, unknown> = {
    codice_cliente: codiceCliente, riferimento_ordine: form.riferimento_ordine,
    data_ordine: date(form.data_ordine, 'Data ordine'), righe,
  };
  const consegna = date(form.data_consegna, 'Data di consegna');
  if (consegna) order.data_consegna = consegna;
  if (form.note) order.note = form.note;
  return problems.length ? { ok: false, problems } : { ok: true, order };
}
