/**
 * Text in and out of SOAP messages. Everything written into a response goes through `escapeXml`, because
 * customer-controlled text (references, article codes, error messages that quote them) ends up there; and text
 * read from a request goes through `unescapeXml`, because the envelope parser leaves entities as written.
 */

/**
 * Characters XML 1.0 cannot carry at all, not even escaped. Text can hold them when the order came by another
 * channel (a JSON string may contain \u0001 or a lone surrogate), so they are replaced rather than written raw,
 * which would make the whole response unreadable to the client.
 */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Safe inside element content and inside quoted attribute values. */
export function escapeXml(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD').replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Expands the five predefined entities and character references. Nothing else can appear: DOCTYPE (the only way
 * to declare other entities) is refused before parsing, so an unknown `&name;` is left as it is.
 */
export function unescapeXml(text: string): string {
  return text.replace(/&(?:#x([0-9a-fA-F]{1,6})|#([0-9]{1,7})|(lt|gt|amp|quot|apos));/g, (whole, hex?: string, dec?: string, name?: string) => {
    if (name) return PREDEFINED[name]!;
    const cp = hex ? parseInt(hex, 16) : Number(dec);
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}

/**
 * A number as xsd:decimal, which has no exponent form: String(1e21) or String(1e-7) would not validate, and a
 * strict client would refuse the whole response.
 */
export function decimalText(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}
