/**
 * Values read from tickets as they become order fields. Everything stays text except Amount, which becomes a
 * number when it clearly is one (otherwise stage A says quantita must be a number, naming what was sent).
 */
import { decimalNumber } from '../formats/fields.ts';

const DATE_PREFIX = /^(\d{4}-\d{2}-\d{2})(?:$|T)/;

/**
 * An xs:dateTime or xs:date → YYYY-MM-DD, the calendar date as the sender wrote it (its own time zone): a
 * delivery "2026-12-01T00:00:00+01:00" is due on 1 December, whatever UTC says. Anything else is passed through
 * unchanged so stage A reports the bad date.
 */
export function ticketDate(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = DATE_PREFIX.exec(value.trim());
  return m ? m[1] : value;
}

export function amount(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return decimalNumber(value) ?? value;
}

/** Builds a candidate in the core's plain shape, leaving out what the ticket does not say. */
export function candidate(fields: {
  codice_cliente?: string | undefined;
  riferimento_ordine?: string | undefined;
  data_ordine: string | undefined;
  data_consegna?: string | undefined;
  righe: Array<Record<string, unknown>>;
}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) out[k] = v;
  return out;
}

export function line(codice_articolo: string | undefined, quantita: number | string | undefined, unita_misura: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (codice_articolo !== undefined) out.codice_articolo = codice_articolo;
  if (quantita !== undefined) out.quantita = quantita;
  out.unita_misura = unita_misura;
  return out;
}
