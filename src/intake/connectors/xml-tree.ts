/**
 * CIP4 tickets and messages keep almost everything in attributes, which the core's order parser drops. This is
 * the same hardened reading (readXmlText: charset, DOCTYPE and ENTITY refused, well-formedness) followed by a
 * parse that keeps attributes. Entities are decoded exactly as in order files (the core's decoder: the five
 * predefined entities and character references such as `&#233;`, which JDF writers use for accented names);
 * nothing can grow the text or reach outside it.
 *
 * Two shapes are produced:
 * - tree(): every element is an array of nodes, so walking code never has to ask "one or many?" (JDF/JMF).
 * - plainObject(): what a JSONata mapping reads for an ERP's XML (see mapping.ts): attributes as `@name`,
 *   text of an element with attributes as `#text`, repeated elements as arrays, everything text.
 */
import { XMLParser } from 'fast-xml-parser';
import { IntakeError } from '../../domain/errors.ts';
import { MAX_XML_DEPTH, readXmlText, SAFE_XML_OPTIONS } from '../formats/xml/index.ts';
import { printable } from '../formats/text.ts';

export type XNode = Record<string, unknown>;

/** Attribute names carry this prefix; it cannot start an XML element name, so the two never collide. */
export const ATTRIBUTE_PREFIX = '@';
export const TEXT_KEY = '#text';

const common = {
  ...SAFE_XML_OPTIONS,
  attributeNamePrefix: ATTRIBUTE_PREFIX,
  textNodeName: TEXT_KEY,
  removeNSPrefix: true,
} as const;

const treeParser = new XMLParser({ ...common, isArray: (_name, _path, _leaf, isAttribute) => !isAttribute });
const plainParser = new XMLParser(common);

function parseWith(parser: XMLParser, text: string): XNode {
  try {
    return parser.parse(text) as XNode;
  } catch (e) {
    const reason = e instanceof Error ? e.message : 'unreadable';
    if (/nested tags/i.test(reason)) {
      throw new IntakeError('NOT_PARSEABLE', `XML must not nest elements more than ${MAX_XML_DEPTH} levels deep`);
    }
    throw new IntakeError('NOT_PARSEABLE', `body must be well-formed XML (${printable(reason, 200)})`);
  }
}

/** The one root element of a document, or NOT_PARSEABLE. */
function rootOf(doc: XNode, label: string): { name: string; value: unknown } {
  const names = Object.keys(doc).filter((k) => !k.startsWith('?') && k !== TEXT_KEY);
  const name = names[0];
  if (names.length !== 1 || name === undefined) throw new IntakeError('NOT_PARSEABLE', `${label} must have exactly one root element`);
  return { name, value: doc[name] };
}

export interface XmlRoot {
  name: string;
  node: XNode;
}

/** Bytes → root element as a tree (every child element an array). */
export function readTree(raw: Buffer, charset: string | undefined, label: string): XmlRoot {
  const doc = parseWith(treeParser, readXmlText(raw, charset, label));
  const { name, value } = rootOf(doc, label);
  const nodes = Array.isArray(value) ? value : [value];
  if (nodes.length !== 1) throw new IntakeError('NOT_PARSEABLE', `${label} must have exactly one root element`);
  return { name, node: asNode(nodes[0]) };
}

/** Bytes → plain object `{ Root: {...} }` for mappings. */
export function readPlain(raw: Buffer, charset: string | undefined, label: string): XNode {
  const doc = parseWith(plainParser, readXmlText(raw, charset, label));
  const { name, value } = rootOf(doc, label);
  if (Array.isArray(value)) throw new IntakeError('NOT_PARSEABLE', `${label} must have exactly one root element`);
  return { [name]: value };
}

/** An element given as bare text (no attributes, no children) becomes a node with only text. */
function asNode(v: unknown): XNode {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as XNode;
  return typeof v === 'string' && v !== '' ? { [TEXT_KEY]: v } : {};
}

export function children(node: XNode | undefined, name: string): XNode[] {
  const v = node?.[name];
  return Array.isArray(v) ? v.map(asNode) : v === undefined ? [] : [asNode(v)];
}

export function child(node: XNode | undefined, name: string): XNode | undefined {
  return children(node, name)[0];
}

/** Attribute value trimmed; an empty attribute counts as absent (senders write Attr="" for "not set"). */
export function attr(node: XNode | undefined, name: string): string | undefined {
  const v = node?.[ATTRIBUTE_PREFIX + name];
  if (typeof v !== 'string') return undefined;
  const t = v.trim();
  return t === '' ? undefined : t;
}

export function text(node: XNode | undefined): string | undefined {
  const v = node?.[TEXT_KEY];
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/** Every element named `name` below `node` (`undefined`: every element), depth first; depth is bounded. */
export function descendants(node: XNode, name: string | undefined): XNode[] {
  const out: XNode[] = [];
  const walk = (n: XNode): void => {
    for (const key of Object.keys(n)) {
      if (key.startsWith(ATTRIBUTE_PREFIX) || key === TEXT_KEY) continue;
      for (const c of children(n, key)) {
        if (name === undefined || key === name) out.push(c);
        walk(c);
      }
    }
  };
  walk(node);
  return out;
}
