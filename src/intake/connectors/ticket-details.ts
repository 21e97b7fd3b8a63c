/**
 * What a CIP4 ticket says besides the order fields, kept with the order so prepress gets it back in status answers
 * (issue 20): each product's intents (the specification: colours, media, layout, binding…), the ticket's Comments,
 * and the artwork (RunList/FileSpec/@URL). The intents are kept as read (attributes as `@Name`, child elements as
 * arrays, text as `#text`), so nothing a workflow wrote is lost in translation.
 */
import { attr, children, descendants, text, type XNode } from './xml-tree.ts';

export interface TicketProduct {
  /** Index of the order line this product became (root products only). */
  riga?: number;
  id?: string;
  descrizione?: string;
  tipo?: string;
  id_esterno?: string;
  quantita?: string;
  /** The key looked up in the connector's table (normalised). */
  chiave_prodotto?: string;
  /** Intent name → the intent element as read. */
  intenti: Record<string, unknown>;
}

/** One PrintTalk `Pricing/Price` line, for production (the price is the sender's, never checked against ours). */
export interface PrintTalkPrice {
  descrizione: string;
  prezzo: number;
  /** PriceType: Product, Shipping, Total, … */
  tipo?: string;
  /** TaxType: Net, Tax, Gross. */
  tipo_imposta?: string;
  quantita?: number;
  prezzo_unitario?: number;
  /** LineID, and LineIDRefs (the lines a subtotal or total sums), as written. */
  id_riga?: string;
  righe_rif?: string;
}

/** What a PrintTalk PurchaseOrder says around its XJDF (printtalk.ts). */
export interface PrintTalkDetails {
  versione?: string;
  business_id: string;
  quote_id?: string;
  reorder_id?: string;
  /** PurchaseOrder/@Expires as written. */
  scadenza?: string;
  valuta?: string;
  prezzi: PrintTalkPrice[];
  commento?: string;
}

export interface TicketDetails {
  formato: 'jdf' | 'xjdf';
  job_id?: string;
  prodotti: TicketProduct[];
  commenti: string[];
  /** Artwork: RunList/FileSpec/@URL, in ticket order, without repeats. */
  file: string[];
  /** The XJDF came in a PrintTalk PurchaseOrder. */
  printtalk?: PrintTalkDetails;
}

/**
 * Largest details kept per order. A ticket's intents are a few KiB; a bigger one (an embedded preview, thousands of
 * parts) keeps its names, comments and files but not its intents, so one sender cannot bloat every status answer.
 */
export const MAX_DETAILS_BYTES = 256 * 1024;
/** Comments and files kept per ticket, and characters per comment, for the same reason. */
const MAX_ITEMS = 200;
const MAX_COMMENT = 2000;

function defined<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

export function commentsOf(root: XNode): string[] {
  return descendants(root, 'Comment').map((c) => text(c)).filter((t): t is string => t !== undefined)
    .slice(0, MAX_ITEMS).map((t) => t.slice(0, MAX_COMMENT));
}

export function artworkOf(root: XNode): string[] {
  const urls = descendants(root, 'RunList').flatMap((r) => descendants(r, 'FileSpec')).map((f) => attr(f, 'URL'))
    .filter((u): u is string => u !== undefined);
  return [...new Set(urls)].slice(0, MAX_ITEMS);
}

/** XJDF: `<Intent Name="ColorIntent"><ColorIntent …/></Intent>` → { ColorIntent: {…} }. */
export function xjdfIntents(product: XNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const intent of children(product, 'Intent')) {
    const name = attr(intent, 'Name');
    if (name === undefined) continue;
    out[name] = children(intent, name)[0] ?? intent;
  }
  return out;
}

export function productEntry(p: XNode, extra: { riga?: number; chiave_prodotto?: string; quantita?: string; intenti: Record<string, unknown> }): TicketProduct {
  return defined({
    riga: extra.riga, id: attr(p, 'ID'), descrizione: attr(p, 'DescriptiveName'), tipo: attr(p, 'ProductType'),
    id_esterno: attr(p, 'ExternalID') ?? attr(p, 'ProductID'), quantita: extra.quantita ?? attr(p, 'Amount'),
    chiave_prodotto: extra.chiave_prodotto, intenti: extra.intenti,
  });
}

/** JSON of the details, within MAX_DETAILS_BYTES (intents dropped first). */
export function serialiseDetails(d: TicketDetails): string {
  const full = JSON.stringify(d);
  if (Buffer.byteLength(full) <= MAX_DETAILS_BYTES) return full;
  const lean = JSON.stringify({ ...d, prodotti: d.prodotti.map((p) => ({ ...p, intenti: {} })), intenti_omessi: true });
  if (Buffer.byteLength(lean) <= MAX_DETAILS_BYTES) return lean;
  const priced = JSON.stringify({ formato: d.formato, job_id: d.job_id, prodotti: [], commenti: [], file: [], printtalk: d.printtalk, intenti_omessi: true });
  if (Buffer.byteLength(priced) <= MAX_DETAILS_BYTES) return priced;
  return JSON.stringify({ formato: d.formato, job_id: d.job_id, prodotti: [], commenti: [], file: [], intenti_omessi: true });
}
