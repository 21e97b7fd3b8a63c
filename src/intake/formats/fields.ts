/**
 * The field names the decoders produce (the spec's own names) and the few value conversions they make.
 * Decoders do not validate: anything that is not clearly a number stays the text it was, so stage A can say
 * what is wrong with it.
 */

export const ORDER_FIELDS = ['codice_cliente', 'riferimento_ordine', 'data_ordine', 'data_consegna', 'note'] as const;
export const LINE_FIELDS = ['codice_articolo', 'quantita', 'unita_misura'] as const;

/**
 * Optional order fields. An empty element or cell for one of these means "not given", so the property is
 * left out rather than set to "" (which stage A would have to refuse as a bad date).
 */
export const OPTIONAL_ORDER_FIELDS: ReadonlySet<string> = new Set(['data_consegna', 'note']);

const PLAIN_DECIMAL = /^[+-]?\d+(?:[.,]\d+)?$/;

/**
 * Machine-written quantities (XML): digits with at most one decimal separator, dot or comma. `12,5` is 12.5.
 * Returns undefined when the text is not such a number.
 */
export function decimalNumber(text: string): number | undefined {
  const t = text.trim();
  if (!PLAIN_DECIMAL.test(t)) return undefined;
  return finite(Number(t.replace(',', '.')));
}

const DIGITS = /^[+-]?\d+$/;
const ONE_SEPARATOR = /^([+-]?\d+)([.,])(\d+)$/;
const IT_GROUPED = /^[+-]?\d{1,3}(?:\.\d{3})+(?:,\d+)?$/;
const EN_GROUPED = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/**
 * Spreadsheet-written quantities (CSV), where the sender's locale decides the separators. Italian Excel writes
 * `1,5` and, for cells formatted with a thousands separator, `1.234,5` or `1.000`.
 *
 * - `12`, `1,5`, `1.5`, `12,25`: one separator not followed by exactly three digits can only be a decimal one.
 * - `1.234,5`, `1.234.567`, `1,234.5`, `1,234,567`: grouped thousands are read as such.
 * - `0,250`, `0.250`: a leading zero cannot start a thousands group, so the separator is a decimal one.
 * - `1.000`, `2,500`: one thousand or one? A locale guess would be silently wrong by a factor of 1000 on a
 *   print run, so such a value stays text and stage A refuses it; the sender writes `1000` or `1,0` instead.
 */
export function spreadsheetNumber(text: string): number | undefined {
  const t = text.trim();
  if (DIGITS.test(t)) return finite(Number(t));
  const one = ONE_SEPARATOR.exec(t);
  if (one) {
    const [, whole = '', , fraction = ''] = one;
    const ambiguous = fraction.length === 3 && !/^[+-]?0$/.test(whole);
    return ambiguous ? undefined : finite(Number(`${whole}.${fraction}`));
  }
  if (IT_GROUPED.test(t)) return finite(Number(t.replace(/\./g, '').replace(',', '.')));
  if (EN_GROUPED.test(t)) return finite(Number(t.replace(/,/g, '')));
  return undefined;
}

function finite(n: number): number | undefined {
  return Number.isFinite(n) ? n : undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
