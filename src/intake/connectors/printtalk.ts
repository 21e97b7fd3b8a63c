/**
 * PrintTalk 2.x (root `<PrintTalk>`, namespace http://www.printtalk.org/schema_20, Version 2.0–2.2): the business
 * envelope around XJDF that web-to-print shops and buyers' systems send to a print MIS. Taken on XJDF connectors.
 *
 * - `Request/PurchaseOrder` with one or more `xjdf:XJDF`: each XJDF is read by the XJDF reader (xjdf.ts: products,
 *   amounts, product keys), then
 *   - riferimento_ordine = `Request/@BusinessID` (one XJDF), `BusinessID/JobID` (several: one order each, each with
 *     a reference of its own; the JobID is kept as today in the ticket details either way);
 *   - codice_cliente = `Header/From/Credential[@domain="CustomerID"]/Identity` when given (the business sender's
 *     identity), else what the XJDF says (CustomerInfo); the connector's customers rules apply as for XJDF;
 *   - `Pricing/Price` lines, the currency, `@QuoteID`, `@ReorderID`, `@Expires` and the PurchaseOrder's comment are
 *     kept in the ticket details (`printtalk`), so production sees them in the status answers;
 *   - a PurchaseOrder whose `@Expires` is before the moment it was received is refused whole.
 * - `Request/Cancellation`: a candidate `azione: 'annulla'` for the order `@BusinessRefID` names (with `@JobIDRef`
 *   when that PurchaseOrder held several XJDF), `motivo` from its `xjdf:Comment`.
 * - Every other business object carries no order: the route answers it without storing (printtalk-answer.ts).
 */
import { IntakeError } from '../../domain/errors.ts';
import { printable } from '../formats/text.ts';
import type { TicketContext, TicketNotes } from './ticket.ts';
import type { PrintTalkDetails, PrintTalkPrice } from './ticket-details.ts';
import { decodeXjdf } from './xjdf.ts';
import { attr, child, children, text, type XNode, type XmlRoot } from './xml-tree.ts';

export const PRINTTALK_NS = 'http://www.printtalk.org/schema_20';
export const PRINTTALK_VERSIONS: readonly string[] = ['2.0', '2.1', '2.2'];
/** The Version we answer in when the request's cannot be read. */
export const DEFAULT_PRINTTALK_VERSION = '2.2';

/**
 * XJDF tickets taken from one PurchaseOrder, and price lines kept per order. A web-to-print basket holds a handful of
 * products; the bounds keep one request from turning into thousands of orders or megabytes of details per order.
 */
export const MAX_PRINTTALK_XJDF = 100;
export const MAX_PRICE_LINES = 200;
/** Longest identity, BusinessID or comment kept; PrintTalk's own values are short tokens. */
const MAX_TOKEN = 200;
const MAX_COMMENT = 1000;

export interface PrintTalkCredential {
  domain: string;
  identity: string;
}

/** What the route needs to know about a PrintTalk request, read before (and whether or not) it is stored. */
export interface PrintTalkInfo {
  version?: string;
  /** The business object: PurchaseOrder, Cancellation, OrderStatusRequest, RFQ, … */
  object?: string;
  businessId?: string;
  businessRefId?: string;
  from: PrintTalkCredential[];
  to: PrintTalkCredential[];
  /** From/Credential[@domain="CustomerID"]: the sender's customer id. */
  customerId?: string;
  /** Cancellation/@JobIDRef, or each OrderStatusRequest/StatusRequest/@JobIDRef. */
  jobIdRefs: string[];
  /** The business object's xjdf:Comment. */
  comment?: string;
}

const clip = (s: string | undefined, n = MAX_TOKEN): string | undefined => (s === undefined ? undefined : s.slice(0, n));

function credentials(node: XNode | undefined): PrintTalkCredential[] {
  return children(node, 'Credential').slice(0, 20).flatMap((c) => {
    const domain = attr(c, 'domain');
    const identity = text(child(c, 'Identity'));
    return domain !== undefined && identity !== undefined ? [{ domain: clip(domain)!, identity: clip(identity)! }] : [];
  });
}

/** The one business object of the Request: its first child element (the rest of Request is ##other). */
function businessObject(request: XNode | undefined): { name: string; node: XNode } | undefined {
  if (!request) return undefined;
  const name = Object.keys(request).find((k) => !k.startsWith('@') && k !== '#text');
  return name === undefined ? undefined : { name, node: children(request, name)[0]! };
}

export function printTalkInfo(root: XmlRoot): PrintTalkInfo {
  const header = child(root.node, 'Header');
  const request = child(root.node, 'Request');
  const bo = businessObject(request);
  const from = credentials(child(header, 'From'));
  const refs = bo?.name === 'OrderStatusRequest'
    ? children(bo.node, 'StatusRequest').map((s) => attr(s, 'JobIDRef'))
    : [attr(bo?.node, 'JobIDRef')];
  const comment = text(child(bo?.node, 'Comment'));
  const version = attr(root.node, 'Version');
  const info: PrintTalkInfo = {
    from, to: credentials(child(header, 'To')),
    jobIdRefs: refs.filter((r): r is string => r !== undefined).slice(0, 20).map((r) => clip(r)!),
  };
  if (version !== undefined) info.version = clip(version, 20)!;
  if (bo) info.object = clip(bo.name, 60)!;
  const businessId = attr(request, 'BusinessID');
  if (businessId !== undefined) info.businessId = clip(businessId)!;
  const businessRefId = attr(request, 'BusinessRefID');
  if (businessRefId !== undefined) info.businessRefId = clip(businessRefId)!;
  const customerId = from.find((c) => c.domain.toLowerCase() === 'customerid')?.identity;
  if (customerId !== undefined) info.customerId = customerId;
  if (comment !== undefined) info.comment = comment.slice(0, MAX_COMMENT);
  return info;
}

/**
 * Whether a body's root element is a PrintTalk document, from its first bytes (the route's quick look; the decoder
 * reads it properly). `namespace` is the default or prefixed namespace declared on the root start tag, if any.
 */
export function sniffPrintTalk(raw: Buffer): { namespace?: string } | undefined {
  // Start tags are ASCII in every charset a PrintTalk sender uses (UTF-8, ISO-8859-x); 8 KiB covers a prolog with
  // comments and a long start tag.
  let head = raw.subarray(0, 8192).toString('latin1');
  // A DOCTYPE is skipped here so that the reader refuses it in a PrintTalk Refusal (xml-tree.ts never reads one).
  head = head.replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '')
    .replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^[>]*(?:\[[\s\S]*?\])?\s*>/g, '').trimStart();
  const m = /^<(?:([A-Za-z_][\w.-]*):)?PrintTalk(?=[\s/>])([^>]*)>?/.exec(head);
  if (!m) return undefined;
  const prefix = m[1];
  const decl = prefix === undefined ? /\sxmlns\s*=\s*(["'])(.*?)\1/.exec(m[2] ?? '') : new RegExp(`\\sxmlns:${prefix}\\s*=\\s*(["'])(.*?)\\1`).exec(m[2] ?? '');
  return decl?.[2] === undefined ? {} : { namespace: decl[2] };
}

/** Why a PrintTalk document is not one this service reads (namespace, Version), or undefined. */
export function unsupportedPrintTalk(namespace: string | undefined, version: string | undefined): string | undefined {
  if (namespace !== PRINTTALK_NS) {
    return `il documento PrintTalk deve usare il namespace ${PRINTTALK_NS} (PrintTalk 2.x)${namespace ? `, non ${printable(namespace, 100)}` : ''}`;
  }
  if (version !== undefined && !PRINTTALK_VERSIONS.includes(version)) {
    return `PrintTalk Version "${printable(version, 20)}" non è supportata: inviare la versione ${PRINTTALK_VERSIONS.join(', ')}`;
  }
  return undefined;
}

function refuse(message: string): never {
  throw new IntakeError('NOT_PARSEABLE', message);
}

/** Price lines as production needs them; a price that is not a number is refused (Refusal InvalidPrice). */
function priceLines(pricing: XNode | undefined): { valuta?: string; prezzi: PrintTalkPrice[] } {
  const lines = children(pricing, 'Price');
  if (lines.length > MAX_PRICE_LINES) refuse(`Pricing contiene ${lines.length} righe Price: al massimo ${MAX_PRICE_LINES}`);
  const prezzi = lines.map((p, i) => {
    const value = attr(p, 'Price');
    const n = value === undefined ? NaN : Number(value);
    if (!Number.isFinite(n)) refuse(`Pricing/Price ${i + 1}: il prezzo "${printable(value ?? '', 40)}" non è un numero`);
    const line: PrintTalkPrice = { descrizione: clip(attr(p, 'DescriptiveName') ?? '', MAX_COMMENT)!, prezzo: n };
    const extra: Array<[keyof PrintTalkPrice, string | undefined]> = [
      ['tipo', attr(p, 'PriceType')], ['tipo_imposta', attr(p, 'TaxType')], ['id_riga', attr(p, 'LineID')], ['righe_rif', attr(p, 'LineIDRefs')],
    ];
    for (const [k, v] of extra) if (v !== undefined) (line as unknown as Record<string, unknown>)[k] = clip(v);
    for (const [k, a] of [['quantita', 'Amount'], ['prezzo_unitario', 'UnitPrice']] as const) {
      const v = attr(p, a);
      if (v === undefined) continue;
      const num = Number(v);
      if (!Number.isFinite(num)) refuse(`Pricing/Price ${i + 1}: ${a} "${printable(v, 40)}" non è un numero`);
      line[k] = num;
    }
    return line;
  });
  const valuta = attr(pricing, 'Currency');
  return { ...(valuta === undefined ? {} : { valuta: clip(valuta, 10)! }), prezzi };
}

export interface DecodedPrintTalk {
  candidates: Array<Record<string, unknown>>;
  notes: TicketNotes[];
  site?: string;
  /** Per candidate: other references it may mean, tried in order when no order has its own (a Cancellation). */
  otherRefs?: Array<string[] | undefined>;
}

function purchaseOrder(info: PrintTalkInfo, po: XNode, ctx: TicketContext): DecodedPrintTalk {
  const businessId = info.businessId ?? refuse('Request senza BusinessID: è il riferimento dell\'ordine');
  const expires = attr(po, 'Expires');
  if (expires !== undefined) {
    const at = Date.parse(expires);
    if (Number.isNaN(at)) refuse(`PurchaseOrder Expires "${printable(expires, 40)}" non è una data e ora`);
    if (at < Date.parse(ctx.receivedAt)) {
      refuse(`l'ordine ${printable(businessId, 100)} è scaduto il ${printable(expires, 40)} (PurchaseOrder Expires): chiedere un nuovo ordine al cliente`);
    }
  }
  const xjdfs = children(po, 'XJDF');
  if (xjdfs.length === 0) refuse('la PurchaseOrder non contiene alcun xjdf:XJDF');
  if (xjdfs.length > MAX_PRINTTALK_XJDF) refuse(`la PurchaseOrder contiene ${xjdfs.length} XJDF: al massimo ${MAX_PRINTTALK_XJDF} per richiesta`);
  const pricing = priceLines(child(po, 'Pricing'));
  const quote = attr(po, 'QuoteID');
  const reorder = attr(po, 'ReorderID');
  const comment = text(child(po, 'Comment'));
  const printtalk: PrintTalkDetails = {
    ...(info.version === undefined ? {} : { versione: info.version }),
    business_id: businessId,
    ...(quote === undefined ? {} : { quote_id: clip(quote)! }),
    ...(reorder === undefined ? {} : { reorder_id: clip(reorder)! }),
    ...(expires === undefined ? {} : { scadenza: expires }),
    ...pricing,
    ...(comment === undefined ? {} : { commento: comment.slice(0, MAX_COMMENT) }),
  };
  const out: DecodedPrintTalk = { candidates: [], notes: [] };
  const sites = new Set<string>();
  xjdfs.forEach((x, i) => {
    const t = decodeXjdf(x, ctx);
    const jobId = attr(x, 'JobID');
    t.candidate.riferimento_ordine = xjdfs.length === 1 ? businessId : `${businessId}/${jobId ?? String(i + 1)}`;
    if (info.customerId !== undefined) t.candidate.codice_cliente = info.customerId;
    out.candidates.push(t.candidate);
    out.notes.push({ ...t.notes, details: { ...t.notes.details, printtalk } });
    if (t.site !== undefined) sites.add(t.site.trim().toUpperCase());
  });
  if (sites.size > 1) refuse(`gli XJDF della PurchaseOrder nominano siti di produzione diversi (${[...sites].join(', ')}): inviarli in richieste separate`);
  const [site] = sites;
  return site === undefined ? out : { ...out, site };
}

/**
 * A Cancellation → the lifecycle's `annulla` candidate. The reference is the PurchaseOrder's BusinessID, or
 * `BusinessID/JobID` when `@JobIDRef` names one XJDF of a PurchaseOrder that held several (the route tries both).
 */
export function cancellationCandidate(info: PrintTalkInfo, ref: string): Record<string, unknown> {
  return {
    azione: 'annulla',
    ...(info.customerId === undefined ? {} : { codice_cliente: info.customerId }),
    riferimento_ordine: ref,
    ...(info.comment === undefined ? {} : { motivo: info.comment }),
  };
}

/** The references a Cancellation may mean, most likely first. */
export function cancellationRefs(info: PrintTalkInfo): string[] {
  const ref = info.businessRefId;
  if (ref === undefined) return [];
  const job = info.jobIdRefs[0];
  return job === undefined ? [ref] : [ref, `${ref}/${job}`];
}

export function decodePrintTalk(root: XmlRoot, ctx: TicketContext): DecodedPrintTalk {
  const info = printTalkInfo(root);
  const why = unsupportedPrintTalk(PRINTTALK_NS, info.version);
  if (why) refuse(why);
  const request = child(root.node, 'Request');
  const bo = businessObject(request);
  if (!bo) refuse('il documento PrintTalk non contiene una Request con un oggetto di business');
  if (bo.name === 'PurchaseOrder') return purchaseOrder(info, bo.node, ctx);
  if (bo.name === 'Cancellation') {
    const [ref, ...others] = cancellationRefs(info);
    if (ref === undefined) refuse('la Cancellation deve indicare in Request/@BusinessRefID il BusinessID dell\'ordine da annullare');
    return { candidates: [cancellationCandidate(info, ref)], notes: [], ...(others.length ? { otherRefs: [others] } : {}) };
  }
  return refuse(`${printable(bo.name, 60)} non porta ordini: inviare una PurchaseOrder o una Cancellation`);
}
