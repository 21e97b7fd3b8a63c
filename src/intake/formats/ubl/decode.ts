/**
 * UBL ordering documents (OASIS UBL 2.1/2.3 as Peppol BIS 3 and the Italian NSO use them): Order, OrderChange and
 * OrderCancellation → order candidates. They arrive as XML on every channel that takes XML and are told apart from
 * our own XML orders by their root element and its namespace (xml/decode.ts asks `ublRootOf` first).
 *
 * The decoder stays pure: what only the store can answer (which customer a Peppol identifier names, which article a
 * GTIN or the buyer's own code is, which unit a UN/ECE code is) is carried on the candidate as `ubl` and resolved
 * before stage A (resolve.ts). Values stay text where stage A should say what is wrong with them.
 */
import { XMLParser } from 'fast-xml-parser';
import { IntakeError } from '../../../domain/errors.ts';
import { decimalNumber } from '../fields.ts';
import { printable } from '../text.ts';
import { MAX_XML_DEPTH, SAFE_XML_OPTIONS } from '../xml/entities.ts';
import { UBL_DOCUMENTS, type UblDocument } from './names.ts';
import { extraOf, lineExtraOf, type UblExtra, type UblLineExtra } from './extra.ts';
import { all, attrOf, one, TEXT, textAt, type XNode } from './tree.ts';


/** A Peppol participant identifier as the document writes it (scheme upper-cased, value upper-cased). */
export interface DocumentId {
  scheme: string;
  identifier: string;
  /** Where it was read, for errors: `BuyerCustomerParty/Party/EndpointID`. */
  path: string;
}

/** What a line says about its article and unit, for resolution; `path` is the line's place in the document. */
export interface UblLine {
  path: string;
  /** The line's own ID (LineItem/ID), for the Order Response. */
  id?: string;
  sellers?: string;
  /** StandardItemIdentification/ID with schemeID 0160 (GTIN). */
  gtin?: string;
  /** A StandardItemIdentification of another scheme: named in the error when nothing else identifies the item. */
  otherStandard?: string;
  buyers?: string;
  unitCode?: string;
  /** LineStatusCode of an OrderChange line (1 added, 2 deleted, 3 changed, 4 no action). */
  status?: string;
  extra: UblLineExtra;
}

/** The document's side of a candidate: carried to resolution and to the Order Response. */
export interface UblInfo {
  document: UblDocument;
  customizationId?: string;
  profileId?: string;
  /** The document's own cbc:ID. */
  id?: string;
  issueDate?: string;
  buyerIds: DocumentId[];
  sellerIds: DocumentId[];
  /** The parties' names (PartyLegalEntity/RegistrationName, else PartyName/Name), for the Order Response. */
  buyerName?: string;
  sellerName?: string;
  /** Lines kept in the candidate, in their order (an OrderChange's deleted lines are left out). */
  lines: UblLine[];
  /** The order an OrderChange, OrderCancellation or NSO replacement/revocation refers to. */
  orderReference?: string;
  sequence?: string;
  extra: UblExtra;
}

const ROOT_WINDOW = 64 * 1024;

export interface UblRoot {
  document: UblDocument;
}

const parser = new XMLParser({
  ...SAFE_XML_OPTIONS,
  attributeNamePrefix: '@',
  textNodeName: TEXT,
  // Prefixes kept (tree.ts finds elements by local name): removing them more than doubles the parse.
});

/**
 * The UBL ordering document a text's root element is, if it is one: the first element after the prolog, its local
 * name one of ours and its namespace (default or of its prefix) that document's. Read from the text so our own XML
 * orders are not parsed twice.
 */
export function ublRootOf(text: string): UblRoot | undefined {
  // The root tag is read within the first 64 KiB: a prolog longer than that (a giant comment) is no ordering
  // document's, and the bound keeps the pattern's work small whatever the file.
  const m = /^(?:\uFEFF)?(?:\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->)*<(?:([A-Za-z_][\w.-]*):)?([A-Za-z_][\w.-]*)(\s[^>]*)?\/?>/.exec(text.slice(0, ROOT_WINDOW));
  if (!m) return undefined;
  const [, prefix, local, attrs = ''] = m;
  const doc = UBL_DOCUMENTS.find((d) => d.root === local);
  if (!doc) return undefined;
  const decl = prefix === undefined ? /\sxmlns\s*=\s*(["'])(.*?)\1/.exec(attrs) : new RegExp(`\\sxmlns:${prefix}\\s*=\\s*(["'])(.*?)\\1`).exec(attrs);
  return decl?.[2]?.trim() === doc.namespace ? { document: doc.root } : undefined;
}

function parse(text: string): XNode {
  try {
    return parser.parse(text) as XNode;
  } catch (e) {
    const reason = e instanceof Error ? e.message : 'unreadable';
    if (/nested tags/i.test(reason)) throw new IntakeError('NOT_PARSEABLE', `XML must not nest elements more than ${MAX_XML_DEPTH} levels deep`);
    throw new IntakeError('NOT_PARSEABLE', `body must be well-formed XML (${printable(reason, 200)})`);
  }
}

/** EndpointID and every PartyIdentification/ID with a scheme, in that order, of a party. */
function partyIds(party: XNode | undefined, base: string): DocumentId[] {
  const out: DocumentId[] = [];
  const push = (n: XNode | undefined, path: string) => {
    const v = n?.[TEXT];
    const scheme = attrOf(n, 'schemeID');
    if (typeof v === 'string' && v.trim() !== '' && scheme !== undefined) out.push({ scheme: scheme.toUpperCase(), identifier: v.trim().toUpperCase(), path });
  };
  push(one(party, 'EndpointID'), `${base}/Party/EndpointID`);
  all(party, 'PartyIdentification').forEach((p, i) => push(one(p, 'ID'), `${base}/Party/PartyIdentification[${i + 1}]/ID`));
  return out;
}

/** A delivery period's end, else its start (what production must meet). */
function periodDate(period: XNode | undefined): string | undefined {
  return textAt(period, 'EndDate') ?? textAt(period, 'StartDate');
}

/**
 * NSO's reference to another order (AgID, Peppol BIS Ordinazione, "Riferimento ad un altro Ordine"): an Order whose
 * OrderDocumentReference names an earlier order and says how it relates to it (DocumentStatusCode): a replacement
 * ("Revised": ordine sostitutivo, the whole new order) or a revocation ("Cancelled": ordine di revoca). A merely
 * linked order ("Connected", or no code) is a new order. NSO writes the reference as `ID#IssueDate#EndpointID` of the
 * earlier order; the ID is its first part.
 */
function nsoRelation(root: XNode): { azione: 'modifica' | 'annulla'; reference: string } | undefined {
  for (const ref of all(root, 'OrderDocumentReference')) {
    const code = textAt(ref, 'DocumentStatusCode')?.toLowerCase();
    const id = textAt(ref, 'ID')?.split('#')[0]?.trim();
    if (!id) continue;
    if (code === 'revised') return { azione: 'modifica', reference: id };
    if (code === 'cancelled') return { azione: 'annulla', reference: id };
  }
  return undefined;
}

function lineOf(line: XNode, n: number, doc: UblDocument): { row: Record<string, unknown>; info: UblLine } {
  const item = one(line, 'LineItem');
  const path = `OrderLine[${n}]/LineItem`;
  const quantity = one(item, 'Quantity');
  const q = textAt(item, 'Quantity');
  const standard = all(one(item, 'Item'), 'StandardItemIdentification').map((s) => one(s, 'ID'));
  const gtinNode = standard.find((s) => attrOf(s, 'schemeID') === '0160');
  const other = standard.find((s) => s !== gtinNode && typeof s?.[TEXT] === 'string');
  const info: UblLine = {
    path,
    id: textAt(item, 'ID'),
    sellers: textAt(item, 'Item', 'SellersItemIdentification', 'ID'),
    gtin: typeof gtinNode?.[TEXT] === 'string' ? String(gtinNode[TEXT]).trim() || undefined : undefined,
    otherStandard: other ? `${attrOf(other, 'schemeID') ?? '?'}:${String(other[TEXT]).trim()}` : undefined,
    buyers: textAt(item, 'Item', 'BuyersItemIdentification', 'ID'),
    unitCode: attrOf(quantity, 'unitCode'),
    ...(doc === 'OrderChange' ? { status: textAt(item, 'LineStatusCode') } : {}),
    extra: lineExtraOf(item),
  };
  const row: Record<string, unknown> = {
    // Machine XML: a number when it clearly is one, else the text for stage A to name.
    quantita: q === undefined ? undefined : decimalNumber(q) ?? q,
  };
  const delivery = periodDate(one(item, 'Delivery', 'RequestedDeliveryPeriod'));
  if (delivery !== undefined) row.data_consegna_riga = delivery;
  return { row, info };
}

/** Text of a UBL Order, OrderChange or OrderCancellation (already checked safe by readXmlText) → one candidate. */
export function decodeUbl(text: string, root: UblRoot): unknown[] {
  const doc = parse(text);
  const node = all(doc, root.document)[0];
  if (!node) throw new IntakeError('NOT_PARSEABLE', `XML must have exactly one root element`);
  const document = root.document;
  const buyer = one(node, 'BuyerCustomerParty', 'Party');
  const seller = one(node, 'SellerSupplierParty', 'Party');
  const info: UblInfo = {
    document,
    customizationId: textAt(node, 'CustomizationID'),
    profileId: textAt(node, 'ProfileID'),
    id: textAt(node, 'ID'),
    issueDate: textAt(node, 'IssueDate'),
    buyerIds: partyIds(buyer, 'BuyerCustomerParty'),
    sellerIds: partyIds(seller, 'SellerSupplierParty'),
    buyerName: textAt(buyer, 'PartyLegalEntity', 'RegistrationName') ?? textAt(buyer, 'PartyName', 'Name'),
    sellerName: textAt(seller, 'PartyLegalEntity', 'RegistrationName') ?? textAt(seller, 'PartyName', 'Name'),
    lines: [],
    extra: extraOf(node),
  };
  const candidate: Record<string, unknown> = { data_ordine: info.issueDate, ubl: info };
  const note = all(node, 'Note').map((n) => (typeof n[TEXT] === 'string' ? n[TEXT].trim() : '')).filter((t) => t !== '').join('\n');

  if (document === 'OrderCancellation') {
    info.orderReference = textAt(node, 'OrderReference', 'ID');
    candidate.riferimento_ordine = info.orderReference;
    candidate.azione = 'annulla';
    const reason = all(node, 'CancellationNote').map((n) => (typeof n[TEXT] === 'string' ? n[TEXT].trim() : '')).filter((t) => t !== '').join('\n');
    // Required by Peppol (and by us: a cancellation says why); resolution refuses the document without it.
    if (reason !== '') candidate.motivo = reason.slice(0, 1000);
    return [candidate];
  }

  const lines = all(node, 'OrderLine').map((l, i) => lineOf(l, i + 1, document));
  const kept = document === 'OrderChange' ? lines.filter((l) => l.info.status !== '2') : lines;
  info.lines = kept.map((l) => l.info);
  candidate.righe = kept.map((l) => l.row);
  if (note !== '') candidate.note = note;
  const delivery = periodDate(one(node, 'Delivery', 'RequestedDeliveryPeriod'))
    ?? kept.map((l) => l.row.data_consegna_riga).filter((d): d is string => typeof d === 'string').sort().at(-1);
  if (delivery !== undefined) candidate.data_consegna = delivery;
  for (const l of kept) delete l.row.data_consegna_riga;

  if (document === 'OrderChange') {
    info.orderReference = textAt(node, 'OrderReference', 'ID');
    info.sequence = textAt(node, 'SequenceNumberID');
    candidate.riferimento_ordine = info.orderReference;
    candidate.azione = 'modifica';
    return [candidate];
  }
  const nso = nsoRelation(node);
  if (nso) {
    info.orderReference = nso.reference;
    candidate.riferimento_ordine = nso.reference;
    candidate.azione = nso.azione;
    if (nso.azione === 'annulla') {
      // An NSO revocation carries one empty line; the order's lines are not replaced by it.
      delete candidate.righe;
      info.lines = [];
      if (note !== '') candidate.motivo = note.slice(0, 1000);
      delete candidate.note;
    }
    return [candidate];
  }
  candidate.riferimento_ordine = info.id;
  return [candidate];
}
