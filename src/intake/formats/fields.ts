/**
 * The field names the decoders produce (the spec's own names) and the few value conversions they make.
 * Decoders do not validate: anything that is not clearly a number stays the text it was, so stage A can say
 * what is wrong with it.
 */

export const ORDER_FIELDS = ['codice_cliente', 'riferimento_ordine', 'data_ordine', 'data_consegna', 'note', 'azione', 'motivo'] as const;
export const LINE_FIELDS = ['codice_articolo', 'quantita', 'unita_misura'] as const;

/**
 * Optional order fields. An empty element or cell for one of these means "not given", so the property is
 * left out rather than set to "" (which stage A would have to refuse as a bad date).
 */
export const OPTIONAL_ORDER_FIELDS: ReadonlySet<string> = new Set(['data_consegna', 'note', 'azione', 'motivo']);

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

function finite(n: number): number | undefined {
  return Number.isFinite(n) ? n : undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
