/**
 * Reading a SOAP 1.1 request: the envelope's version, the `ord:Autenticazione/ord:ApiKey` header and the one
 * operation element in the Body. The order itself is not read here: the whole envelope goes to the intake core,
 * which decodes it like any XML order, so SOAP orders are judged exactly like the others.
 *
 * Namespaces and prefixes of everything but the Envelope are ignored (as the core does for XML orders): ERPs
 * declare them on the envelope, on the element, or leave children unqualified, and a client built from the WSDL
 * of one host name must keep working against another. The operation is chosen by the Body element's local
 * name, never by the SOAPAction header, which clients fill in inconsistently (quoted, `…#Op`, empty or absent).
 *
 * Hardening and wording, the same as the core's XML decoder (src/intake/formats/xml.ts, whose parser is not
 * exported): DOCTYPE and entity declarations are refused before parsing
 * (no entity expansion, no external fetch), entities are not processed by the parser, names that would reach an
 * object's prototype (`__proto__`, `constructor`, `prototype`) make fast-xml-parser throw, and nesting is bounded.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { IntakeError } from '../../errors.ts';
import { decodeText, isBlank, printable, textPrefix } from '../../intake/formats/text.ts';
import { SoapFault } from './fault.ts';
import { unescapeXml } from './xml-text.ts';

export const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';

export interface SoapRequest {
  /** Local name of the element inside soap:Body (InviaOrdine, StatoOrdine, …). */
  operation: string;
  /** ord:ApiKey of the ord:Autenticazione header; undefined when the header or the key is missing. */
  apiKey?: string;
  /** Children of the operation element, prefixes removed, values as text (entities still escaped). */
  content: Record<string, unknown>;
}

/**
 * Nesting accepted. A SOAP order is six levels deep (Envelope/Body/InviaOrdine/righe/riga/field); the bound stops
 * a hostile document from making the object tree, and the code walking it, arbitrarily deep.
 */
const MAX_NESTING = 32;
/** Parser messages can quote a sender's tag name of any length; a fault stays readable. */
const MAX_REASON_CHARS = 200;

const contentParser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  processEntities: false,
  parseTagValue: false,
  maxNestedTags: MAX_NESTING,
});

/**
 * Reads only the root start tag (its content is a stop node, left as text): the Envelope's namespace is the one
 * place where a namespace decides something (the SOAP version), and the content parser drops xmlns attributes.
 */
const rootParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: false,
  processEntities: false,
  parseTagValue: false,
  stopNodes: ['*'],
});

const DECLARED_ENCODING = /^\s*<\?xml\b[^>]*?\bencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']/;

function clip(s: string): string {
  return s.length > MAX_REASON_CHARS ? `${s.slice(0, MAX_REASON_CHARS)}…` : s;
}

function notReadable(reason: string): IntakeError {
  return new IntakeError('NOT_PARSEABLE', reason);
}

function toText(raw: Buffer, charset: string | undefined): string {
  if (isBlank(raw)) throw notReadable('the request body is empty: send a SOAP 1.1 envelope');
  const documentCharset = DECLARED_ENCODING.exec(textPrefix(raw, 256))?.[1];
  return decodeText(raw, { charset, documentCharset, label: 'SOAP request' });
}

function parse(parser: XMLParser, text: string): Record<string, unknown> {
  try {
    return parser.parse(text) as Record<string, unknown>;
  } catch (e) {
    const reason = e instanceof Error ? e.message : 'unreadable';
    const reserved = /Invalid name: "([^"]*)"/.exec(reason);
    if (reserved) throw notReadable(`XML element name "${printable(reserved[1] ?? '')}" is not allowed`);
    if (/nested tags/i.test(reason)) throw notReadable(`XML must not nest elements more than ${MAX_NESTING} levels deep`);
    throw notReadable(`body must be well-formed XML (${printable(reason, MAX_REASON_CHARS)})`);
  }
}

function elementKeys(node: Record<string, unknown>): string[] {
  return Object.keys(node).filter((k) => !k.startsWith('?') && !k.startsWith('@') && k !== '#text');
}

function localName(qname: string): { prefix?: string; local: string } {
  const i = qname.indexOf(':');
  return i === -1 ? { local: qname } : { prefix: qname.slice(0, i), local: qname.slice(i + 1) };
}

/** SOAP 1.1 section 4.4: an Envelope in any namespace but 1.1's is a VersionMismatch, not a client error. */
function checkEnvelope(text: string): void {
  const doc = parse(rootParser, text);
  const roots = elementKeys(doc);
  const qname = roots[0];
  if (roots.length !== 1 || qname === undefined || Array.isArray(doc[qname])) {
    throw notReadable('the request must hold exactly one root element, soap:Envelope');
  }
  const { prefix, local } = localName(qname);
  if (local !== 'Envelope') throw notReadable(`the root element must be soap:Envelope, not <${printable(qname)}>`);
  const attrs = doc[qname];
  const ns = typeof attrs === 'object' && attrs !== null ? (attrs as Record<string, unknown>)[prefix ? `@xmlns:${prefix}` : '@xmlns'] : undefined;
  if (ns === SOAP11_NS) return;
  if (ns === SOAP12_NS) {
    throw new SoapFault('VersionMismatch', `SOAP 1.2 is not supported: send a SOAP 1.1 envelope (namespace ${SOAP11_NS})`);
  }
  throw new SoapFault('VersionMismatch', `the Envelope must be in the SOAP 1.1 namespace ${SOAP11_NS}`);
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A single text value; repeated or structured elements are not a value. */
export function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return unescapeXml(v);
  const r = asRecord(v);
  if (r && elementKeys(r).length === 0 && typeof r['#text'] === 'string') return unescapeXml(r['#text']);
  return undefined;
}

function apiKeyOf(header: unknown): string | undefined {
  const auth = asRecord(header)?.Autenticazione;
  const key = textOf(asRecord(auth)?.ApiKey)?.trim();
  return key ? key : undefined;
}

/** Throws IntakeError (unreadable request) or SoapFault (wrong SOAP version). */
export function readEnvelope(raw: Buffer, charset?: string): SoapRequest {
  const text = toText(raw, charset);
  if (/<!DOCTYPE/i.test(text)) throw notReadable('XML documents with a DOCTYPE are not accepted');
  if (/<!ENTITY/i.test(text)) throw notReadable('XML documents with ENTITY declarations are not accepted');
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    const where = col === undefined ? `line ${line}` : `line ${line}, column ${col}`;
    throw notReadable(`body must be well-formed XML (${where}: ${clip(msg).replace(/\.$/, '')})`);
  }
  checkEnvelope(text);
  const envelope = asRecord(parse(contentParser, text).Envelope) ?? {};
  if (Array.isArray(envelope.Header) || Array.isArray(envelope.Body)) {
    throw notReadable('soap:Envelope must hold at most one soap:Header and one soap:Body');
  }
  const body = asRecord(envelope.Body);
  const ops = body ? elementKeys(body) : [];
  if (ops.length !== 1 || Array.isArray(body![ops[0]!])) {
    throw notReadable('soap:Body must hold exactly one operation element: InviaOrdine or StatoOrdine');
  }
  const operation = ops[0]!;
  return { operation, apiKey: apiKeyOf(envelope.Header), content: asRecord(body![operation]) ?? {} };
}
