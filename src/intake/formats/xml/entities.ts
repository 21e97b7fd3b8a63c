/**
 * What every XML reader of the service shares (order files, UBL documents, SOAP envelopes, CIP4 tickets): the depth
 * bound, the entity decoder, and the parser settings that read values as text and nothing else.
 */
import type { EntityDecoderOptions } from 'fast-xml-parser';

/**
 * Deepest element nesting accepted. An order is five levels deep (ordini/ordine/righe/riga/quantita), a UBL
 * Order about seven; the parser builds its result recursively and the code that walks it afterwards recurses too.
 */
export const MAX_XML_DEPTH = 32;

/**
 * Only the five predefined entities and character references are decoded. Entities a document declares are
 * dropped unexpanded (addInputEntities does nothing), so even if a DTD got past readXmlText's check no entity
 * could grow the text or reach outside it. The parser's own `processEntities: false` would leave `&amp;`
 * undecoded and corrupt ordinary values such as `A&amp;B`; this keeps XML's meaning without the risk.
 */
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const REFERENCE = /&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/g;

export const predefinedEntitiesOnly: EntityDecoderOptions = {
  setExternalEntities: () => undefined,
  addInputEntities: () => undefined,
  reset: () => undefined,
  setXmlVersion: () => undefined,
  decode: (text) => text.replace(REFERENCE, (ref, dec?: string, hex?: string, name?: string) => {
    if (name !== undefined) return PREDEFINED[name] ?? ref;
    const code = dec !== undefined ? Number(dec) : parseInt(hex ?? '', 16);
    // Out-of-range or surrogate code points stay as written rather than throwing.
    return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : ref;
  }),
};


/**
 * The fast-xml-parser settings every reader that keeps attributes starts from (UBL documents, CIP4 tickets): values
 * stay text (stage A says what is wrong with them), declarations and processing instructions are dropped, only the
 * predefined entities are decoded, and nesting is bounded. Each reader adds how it names attributes and text and
 * whether it keeps namespace prefixes.
 */
export const SAFE_XML_OPTIONS = {
  ignoreAttributes: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  entityDecoder: predefinedEntitiesOnly,
  maxNestedTags: MAX_XML_DEPTH,
} as const;
