/** What the JDF and XJDF readers share: their input context and result. */
import type { ArticleLookup } from './index.ts';
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
