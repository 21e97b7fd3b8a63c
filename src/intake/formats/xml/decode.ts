/**
 * XML orders: root <ordine> (or <InviaOrdine>, the SOAP body element, with the same children), several under
 * <ordini>; the SOAP bodies <ModificaOrdine> and <AnnullaOrdine> are an order whose `azione` their name gives; lines as <righe><riga>…</riga></righe>. Namespace prefixes and attributes are ignored. Values stay
 * text except a line's quantita, which becomes a number when it clearly is one.
 *
 * DTDs are refused before parsing: they are how entity expansion attacks (billion laughs) and external
 * entities (XXE) get in, and no order needs one.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { IntakeError } from '../../../domain/errors.ts';
import { declaredCharset, type DecodeInput } from '../input.ts';
import { OPTIONAL_ORDER_FIELDS, decimalNumber, isRecord } from '../fields.ts';
import { decodeText, printable } from '../text.ts';
import { MAX_XML_DEPTH, predefinedEntitiesOnly } from './entities.ts';
import { decodeUbl, ublRootOf } from '../ubl/decode.ts';

export { MAX_XML_DEPTH, predefinedEntitiesOnly } from './entities.ts';

/** Roots holding one order, and the `azione` the root itself names (the SOAP operation decides, not a child). */
const SINGLE_ORDER_ROOTS: ReadonlyMap<string, 'modifica' | 'annulla' | undefined> = new Map([
  ['ordine', undefined], ['InviaOrdine', undefined], ['ModificaOrdine', 'modifica'], ['AnnullaOrdine', 'annulla'],
]);
const LIST_ROOT = 'ordini';

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false,
  processEntities: true,
  entityDecoder: predefinedEntitiesOnly,
  maxNestedTags: MAX_XML_DEPTH,
  // Lines are always a list, even with one <riga>; so are the orders under <ordini>. The root is never one,
  // so two roots show up as an array and are refused.
  isArray: (name, jPath) => {
    const path = String(jPath);
    return (name === 'riga' && path.endsWith('righe.riga')) || path === `${LIST_ROOT}.ordine`;
  },
});

export function decodeXml(input: DecodeInput): unknown[] {
  const text = readXmlText(input.raw, declaredCharset(input), 'XML');
  // A UBL ordering document (Peppol, NSO) is XML too: told apart by its root element and namespace.
  const ubl = ublRootOf(text);
  return ubl ? decodeUbl(text, ubl) : ordersOf(parseXml(text));
}

/**
 * Bytes → XML text that is safe to parse: charset resolved (BOM, declared, XML declaration), DTDs refused, and
 * well-formedness checked so the error names a line and column. Every XML the service reads goes through here
 * (order files, SOAP envelopes), so there is one place where XML is hardened.
 */
export function readXmlText(raw: Buffer, charset: string | undefined, label: string): string {
  const text = decodeText(raw, { charset, documentCharset: declaredEncoding(raw), label });
  if (/<!DOCTYPE/i.test(text)) throw new IntakeError('NOT_PARSEABLE', 'XML documents with a DOCTYPE are not accepted');
  if (/<!ENTITY/i.test(text)) throw new IntakeError('NOT_PARSEABLE', 'XML documents with ENTITY declarations are not accepted');
  const valid = XMLValidator.validate(text);
  if (valid !== true) {
    const { msg, line, col } = valid.err;
    const where = col === undefined ? `line ${line}` : `line ${line}, column ${col}`;
    throw new IntakeError('NOT_PARSEABLE', `body must be well-formed XML (${where}: ${printable(msg, 200).replace(/\.$/, '')})`);
  }
  return text;
}

/** The encoding named by `<?xml … encoding="…"?>`, read from the raw bytes (it is always ASCII). */
function declaredEncoding(raw: Buffer): string | undefined {
  const head = raw.subarray(0, 256).toString('latin1');
  return /^\s*<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][\w.:-]*)["']/.exec(head)?.[1];
}

/** Text from readXmlText → objects: prefixes and attributes dropped, predefined entities only, bounded depth. */
export function parseXml(text: string): Record<string, unknown> {
  try {
    return parser.parse(text) as Record<string, unknown>;
  } catch (e) {
    const reason = e instanceof Error ? e.message : 'unreadable';
    const reserved = /Invalid name: "([^"]*)"/.exec(reason);
    if (reserved) throw new IntakeError('NOT_PARSEABLE', `XML element name "${printable(reserved[1] ?? '')}" is not allowed`);
    if (/nested tags/i.test(reason)) {
      throw new IntakeError('NOT_PARSEABLE', `XML must not nest elements more than ${MAX_XML_DEPTH} levels deep`);
    }
    throw new IntakeError('NOT_PARSEABLE', `body must be well-formed XML (${printable(reason, 200)})`);
  }
}

/**
 * A SOAP 1.1 envelope (prefixes already removed) holding one InviaOrdine: the SOAP channel stores the envelope
 * exactly as the ERP sent it, and the order inside is judged like any other XML order. The Header is not read
 * here (the channel authenticated from it).
 */
function unwrapEnvelope(envelope: unknown): Record<string, unknown> {
  const body = isRecord(envelope) ? envelope.Body : undefined;
  if (!isRecord(body)) throw new IntakeError('NOT_PARSEABLE', 'SOAP envelope must contain a Body');
  return body;
}

function ordersOf(doc: Record<string, unknown>): unknown[] {
  if (Object.keys(doc).length === 1 && 'Envelope' in doc) doc = unwrapEnvelope(doc.Envelope);
  const names = Object.keys(doc);
  const name = names[0];
  if (names.length !== 1 || name === undefined || Array.isArray(doc[name])) {
    throw new IntakeError('NOT_PARSEABLE', 'XML must have exactly one root element');
  }
  const root = doc[name];
  if (SINGLE_ORDER_ROOTS.has(name)) {
    const order = toOrder(root);
    const azione = SINGLE_ORDER_ROOTS.get(name);
    return [azione === undefined ? order : { ...order, azione }];
  }
  if (name === LIST_ROOT) return isRecord(root) && Array.isArray(root.ordine) ? root.ordine.map(toOrder) : [];
  throw new IntakeError(
    'NOT_PARSEABLE',
    `XML root element must be <ordine>, <ordini> or <InviaOrdine>, or a UBL <Order>, <OrderChange> or <OrderCancellation> in its namespace, not <${printable(name)}>`,
  );
}

/**
 * Element values go through as the parser gives them (text, or an object/array when the element is nested or
 * repeated) so that stage A reports `codice_cliente must be a string` rather than this decoder guessing.
 */
function toOrder(node: unknown): Record<string, unknown> {
  const order: Record<string, unknown> = {};
  if (!isRecord(node)) return order;
  for (const [name, value] of Object.entries(node)) {
    if (name === '#text') continue; // stray text between the order's elements
    if (name === 'righe') order.righe = toLines(value);
    else if (!(value === '' && OPTIONAL_ORDER_FIELDS.has(name))) order[name] = value;
  }
  return order;
}

function toLines(righe: unknown): unknown {
  if (righe === '') return [];
  // <righe> given twice: its lines are read in document order.
  if (Array.isArray(righe)) return righe.flatMap((r) => (isRecord(r) && Array.isArray(r.riga) ? r.riga.map(toLine) : []));
  if (!isRecord(righe)) return righe; // text inside <righe>: stage A says righe must be an array
  return Array.isArray(righe.riga) ? righe.riga.map(toLine) : [];
}

function toLine(node: unknown): unknown {
  if (node === '') return {};
  if (!isRecord(node)) return node;
  const line: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(node)) {
    if (name === '#text') continue;
    line[name] = name === 'quantita' && typeof value === 'string' ? decimalNumber(value) ?? value : value;
  }
  return line;
}
