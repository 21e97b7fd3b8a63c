/** What the JDF and XJDF readers share: their input context and result. */
import type { ArticleLookup } from './types.ts';
import type { Alternative } from './product-key-template.ts';
import type { ResolvedArticle } from './product-key.ts';
import type { TicketDetails } from './ticket-details.ts';
import { amount, candidate, line, ticketDate } from './ticket-fields.ts';
import { attr, children, type XNode } from './xml-tree.ts';

export interface TicketContext {
  lookup: ReadonlyMap<string, ArticleLookup>;
  /** ISO date-time the submission was received: data_ordine when the ticket has no creation time. */
  receivedAt: string;
  /** The connector's product key template, parsed; unset: the built-in keys. */
  productKey?: readonly Alternative[];
}

/** How each line's article was found: the product key, and whether the connector's table had it. */
export interface LineKey {
  key?: string;
  mapped: boolean;
}

/** What the judge needs to know about a ticket's order beyond the candidate itself. */
export interface TicketNotes {
  lineKeys: LineKey[];
  details: TicketDetails;
  /** data_ordine is the day of receipt, not a date the ticket gave. */
  dateDefaulted: boolean;
}

export interface DecodedTicket {
  candidate: Record<string, unknown>;
  site?: string;
  notes: TicketNotes;
}

/**
 * codice_articolo of a line whose product has no key at all: it passes stage A so the order is judged whole, and
 * stage B refuses it on righe[i].codice_articolo with the reason (see explainLines in lines.ts).
 */
export const NO_PRODUCT_KEY = '(senza chiave)';

/** An order line from a product's resolved article and amount. */
export function ticketLine(article: ResolvedArticle, amountText: string | undefined): Record<string, unknown> {
  return line(article.codice_articolo ?? NO_PRODUCT_KEY, amount(amountText), article.unita_misura);
}

/**
 * The production site a ticket names: `GeneralID[@IDUsage="ProductionSite"]/@IDValue` on the JDF or XJDF root.
 * GeneralID is the specifications' own slot for identifiers they do not define, so a workflow (Switch, Prinect)
 * can add it without leaving the schema.
 */
export function siteOf(root: XNode): string | undefined {
  const g = children(root, 'GeneralID').find((n) => attr(n, 'IDUsage')?.toLowerCase() === 'productionsite');
  return attr(g, 'IDValue');
}

/**
 * The order a JDF or XJDF ticket makes, once each reader has found its parts (they differ in where they keep them):
 * customer and reference from CustomerInfo (else the root's JobID), the creation time (else the day received), the
 * delivery date, the lines, and the site the root names.
 */
export function ticketOrder(root: XNode, found: {
  customer: XNode | undefined; created: string | undefined; delivery: string | undefined; righe: Array<Record<string, unknown>>;
  lineKeys: LineKey[]; details: TicketDetails;
}, ctx: TicketContext): DecodedTicket {
  const site = siteOf(root);
  return {
    candidate: candidate({
      codice_cliente: attr(found.customer, 'CustomerID'),
      riferimento_ordine: attr(found.customer, 'CustomerOrderID') ?? attr(root, 'JobID') ?? attr(root, 'ExternalID'),
      data_ordine: ticketDate(found.created ?? ctx.receivedAt),
      data_consegna: ticketDate(found.delivery),
      righe: found.righe,
    }),
    notes: { lineKeys: found.lineKeys, details: found.details, dateDefaulted: found.created === undefined },
    ...(site === undefined ? {} : { site }),
  };
}
