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
 * Hardening is the core's (src/intake/formats/xml/decode.ts: readXmlText, parseXml), so an envelope is read exactly as
 * safely as an order file: DOCTYPE and entity declarations refused before parsing, only the predefined entities
 * decoded, prototype names refused, nesting bounded. Only the root start tag is read here a second time, for the
 * Envelope's namespace.
 */
import { XMLParser } from 'fast-xml-parser';
import { IntakeError } from '../../domain/errors.ts';
import { parseXml, readXmlText } from '../../intake/formats/index.ts';
import { isBlank, printable } from '../../intake/formats/text.ts';
import { SoapFault } from './fault.ts';

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

function notReadable(reason: string): IntakeError {
  return new IntakeError('NOT_PARSEABLE', reason);
}

function parseRoot(text: string): Record<string, unknown> {
  try {
    return rootParser.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw notReadable(`body must be well-formed XML (${printable(e instanceof Error ? e.message : 'unreadable', 200)})`);
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
  const doc = parseRoot(text);
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

/**
 * The header blocks with their attributes (prefixes removed), block contents left unread. Only this reader keeps
 * attributes: mustUnderstand and actor are the only attributes of a request that decide anything.
 */
const headerParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  processEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  stopNodes: ['Envelope.Header.*', 'Envelope.Body'],
});

/** The header blocks this service processes; every other one is optional to it. */
const UNDERSTOOD_HEADERS: ReadonlySet<string> = new Set(['Autenticazione']);
const ACTOR_NEXT = 'http://schemas.xmlsoap.org/soap/actor/next';

/**
 * SOAP 1.1 section 4.2.3: a header block aimed at us (no actor, or the "next" actor) with mustUnderstand="1" that
 * we do not process must fail the whole request with a MustUnderstand fault, never be ignored: the sender made
 * the request conditional on it (a WS-Security signature, a transaction context).
 */
function checkMustUnderstand(text: string): void {
  const header = asRecord(asRecord((headerParser.parse(text) as Record<string, unknown>).Envelope)?.Header);
  if (!header) return;
  for (const name of elementKeys(header)) {
    const blocks = Array.isArray(header[name]) ? (header[name] as unknown[]) : [header[name]];
    for (const block of blocks) {
      const attrs = asRecord(block) ?? {};
      const must = String(attrs['@mustUnderstand'] ?? '0').trim();
      const actor = attrs['@actor'] === undefined ? ACTOR_NEXT : String(attrs['@actor']).trim();
      if ((must === '1' || must === 'true') && actor === ACTOR_NEXT && !UNDERSTOOD_HEADERS.has(name)) {
        throw new SoapFault('MustUnderstand',
          `the header block <${printable(name, 100)}> is marked mustUnderstand but this service does not process it; it processes only ord:Autenticazione`);
      }
    }
  }
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A single text value; repeated or structured elements are not a value. */
export function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  const r = asRecord(v);
  if (r && elementKeys(r).length === 0 && typeof r['#text'] === 'string') return r['#text'];
  return undefined;
}

function apiKeyOf(header: unknown): string | undefined {
  const auth = asRecord(header)?.Autenticazione;
  const key = textOf(asRecord(auth)?.ApiKey)?.trim();
  return key ? key : undefined;
}

/** Throws IntakeError (unreadable request) or SoapFault (wrong SOAP version). */
export function readEnvelope(raw: Buffer, charset?: string): SoapRequest {
  if (isBlank(raw)) throw notReadable('the request body is empty: send a SOAP 1.1 envelope');
  const text = readXmlText(raw, charset, 'SOAP request');
  checkEnvelope(text);
  const envelope = asRecord(parseXml(text).Envelope) ?? {};
  if (Array.isArray(envelope.Header) || Array.isArray(envelope.Body)) {
    throw notReadable('soap:Envelope must hold at most one soap:Header and one soap:Body');
  }
  const body = asRecord(envelope.Body);
  const ops = body ? elementKeys(body) : [];
  if (ops.length !== 1 || Array.isArray(body![ops[0]!])) {
    throw notReadable('soap:Body must hold exactly one operation element: InviaOrdine, ModificaOrdine, AnnullaOrdine or StatoOrdine');
  }
  if (envelope.Header !== undefined) checkMustUnderstand(text);
  const operation = ops[0]!;
  return { operation, apiKey: apiKeyOf(envelope.Header), content: asRecord(body![operation]) ?? {} };
}
