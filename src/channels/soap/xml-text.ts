/**
 * Text written into SOAP messages. Everything written into a response goes through `escapeXml`, because
 * customer-controlled text (references, article codes, error messages that quote them) ends up there. (Text read
 * from a request is decoded by the core's XML parser, which expands only the predefined entities.)
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

/**
 * A number as xsd:decimal, which has no exponent form: String(1e21) or String(1e-7) would not validate, and a
 * strict client would refuse the whole response.
 */
export function decimalText(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}
