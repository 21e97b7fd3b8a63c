/** What the JDF and XJDF readers share: their input context and result. */
import type { ArticleLookup } from './index.ts';
import { candidate, ticketDate } from './ticket-fields.ts';
import { attr, children, type XNode } from './xml-tree.ts';

export interface TicketContext {
  lookup: ReadonlyMap<string, ArticleLookup>;
  /** ISO date-time the submission was received: data_ordine when the ticket has no creation time. */
  receivedAt: string;
}

export interface DecodedTicket {
  candidate: Record<string, unknown>;
  site?: string;
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
}, ctx: TicketContext): DecodedTicket {
  const site = siteOf(root);
  return {
    candidate: candidate({
      codice_cliente: attr(found.customer, 'CustomerID'),
      riferimento_ordine: attr(found.customer, 'CustomerOrderID') ?? attr(root, 'JobID'),
      data_ordine: ticketDate(found.created ?? ctx.receivedAt),
      data_consegna: ticketDate(found.delivery),
      righe: found.righe,
    }),
    ...(site === undefined ? {} : { site }),
  };
}
