/**
 * Decoding a connector's stored submission: the connector's profile (format, lookup table, mapping, product key,
 * customers) comes from the store, so this is the one asynchronous step of decoding. The judge calls it for every
 * submission with a connectorId and gives every order the site it returns, and the customer each order belongs to.
 *
 * The site: the one in the path (s.site, already checked against the key by the route) wins; else the one the
 * payload names; else the key's only site. A payload naming a site the key is not bound to, or another site than
 * the path, is refused as a whole (FORBIDDEN_SITE): a prepress system sending to the wrong plant must hear it.
 *
 * data_ordine of a ticket that has no date of its own (issue 20): the day the job was first received, in the
 * service's time zone, but never after the ticket's delivery date (a job sent after its due date, as CIP4's own
 * samples are, is still the sender's order: the "delivery before order" check is for dates a sender wrote). A
 * ticket sent again keeps the date of the order it registered the first time, so a resend on another day is a
 * duplicate, not a conflict.
 */
import { IntakeError } from '../../domain/errors.ts';
import type { ConnectorCustomer } from '../../domain/store/connectors.ts';
import type { JudgeStore } from '../../domain/store/ports.ts';
import type { StoredSubmission } from '../../domain/types.ts';
import { customerResolver } from './customers.ts';
import { decodeConnectorPayload, type ArticleLookup } from './index.ts';
import { parseProductKeyTemplate } from './product-key-template.ts';
import type { TicketNotes } from './ticket.ts';

/** What the judge needs per order of a connector's submission. */
export interface ConnectorOrder {
  customer?: ConnectorCustomer;
  forbidden?: string;
  inactive?: true;
  attemptOwner?: string;
  notes?: TicketNotes;
}

export interface ConnectorCandidates {
  candidates: unknown[];
  /** The production site every order of the submission gets. */
  site?: string;
  /** One per candidate. */
  orders: ConnectorOrder[];
}

const upper = (s: string): string => s.trim().toUpperCase();

export function chooseSite(s: Pick<StoredSubmission, 'site' | 'sites'>, payloadSite: string | undefined): string {
  const bound = (s.sites ?? []).map(upper);
  const fromPayload = payloadSite === undefined || payloadSite.trim() === '' ? undefined : upper(payloadSite);
  if (fromPayload !== undefined) {
    if (!bound.includes(fromPayload)) {
      throw new IntakeError('FORBIDDEN_SITE', [`the payload names production site "${payloadSite}", which this connector key is not bound to (bound: ${bound.join(', ')})`]);
    }
    if (s.site !== undefined && upper(s.site) !== fromPayload) {
      throw new IntakeError('FORBIDDEN_SITE', [`the payload names production site "${payloadSite}" but was sent to the path of site "${s.site}"`]);
    }
  }
  const site = s.site !== undefined ? upper(s.site) : fromPayload ?? (bound.length === 1 ? bound[0] : undefined);
  if (site === undefined) throw new IntakeError('SITE_REQUIRED');
  return site;
}

/** The calendar date of an instant in a time zone, YYYY-MM-DD. */
export function dateIn(iso: string, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(iso));
}

export async function decodeConnectorSubmission(store: JudgeStore, s: StoredSubmission, timeZone = 'Europe/Rome'): Promise<ConnectorCandidates> {
  if (s.connectorId === undefined) throw new Error(`submission ${s.id} has no connector`);
  // Revoked connectors are read too: what a key brought before its revocation is still decoded and reprocessed.
  const connector = await store.getConnector(s.connectorId);
  if (!connector) throw new IntakeError('NOT_PARSEABLE', [`the connector of submission ${s.id} no longer exists`]);
  const lookup = new Map<string, ArticleLookup>();
  for (const r of await store.connectorLookup(connector.id)) {
    lookup.set(r.productKey, r.unita_misura === undefined ? { codice_articolo: r.codice_articolo } : { codice_articolo: r.codice_articolo, unita_misura: r.unita_misura });
  }
  const decoded = await decodeConnectorPayload({
    raw: s.raw,
    // The route keeps the whole header (multipart/related needs its boundary); mediaType is the bare type.
    contentType: s.meta.contentType ?? s.mediaType,
    profile: {
      format: connector.format, lookup,
      ...(connector.mapping === undefined ? {} : { mapping: connector.mapping }),
      // Checked when stored; a template that no longer parses is the operator's to fix, so it fails loudly here.
      ...(connector.productKey === undefined ? {} : { productKey: parseProductKeyTemplate(connector.productKey) }),
    },
    receivedAt: s.receivedAt,
  });
  const site = chooseSite(s, decoded.site);
  const resolver = await customerResolver(store, connector);
  const orders: ConnectorOrder[] = [];
  for (const [i, c] of decoded.candidates.entries()) {
    const notes = decoded.notes?.[i];
    const candidate = typeof c === 'object' && c !== null && !Array.isArray(c) ? c as Record<string, unknown> : undefined;
    const verdict = await resolver.resolve(candidate?.codice_cliente);
    if (candidate && verdict.customer) {
      candidate.codice_cliente = verdict.customer.code;
      const others = decoded.otherRefs?.[i];
      if (others) candidate.riferimento_ordine = await firstKnownRef(store, verdict.customer.id, candidate.riferimento_ordine, others);
      if (notes?.dateDefaulted) {
        const received = dateIn(s.receivedAt, timeZone);
        const due = candidate.data_consegna;
        const latest = typeof due === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(due) && due < received ? due : received;
        candidate.data_ordine = await firstDate(store, verdict.customer.id, candidate.riferimento_ordine, latest);
      }
    }
    const owner = resolver.attemptOwner(verdict.customer);
    orders.push({ ...verdict, ...(owner === undefined ? {} : { attemptOwner: owner }), ...(notes ? { notes } : {}) });
  }
  return { candidates: decoded.candidates, site, orders };
}

/**
 * The reference a PrintTalk Cancellation means: its own when an order has it, else the first of `others` that one has
 * (`BusinessID/JobID` of a PurchaseOrder that held several XJDF); else its own, for the lifecycle to say "unknown".
 */
async function firstKnownRef(store: JudgeStore, customerId: string, ref: unknown, others: string[]): Promise<unknown> {
  if (typeof ref !== 'string' || await store.getOrderByRef(customerId, ref)) return ref;
  for (const o of others) if (await store.getOrderByRef(customerId, o)) return o;
  return ref;
}

/** data_ordine of an undated ticket: the one its order got the first time, else the day received. */
async function firstDate(store: JudgeStore, customerId: string, ref: unknown, received: string): Promise<string> {
  if (typeof ref !== 'string' || ref.trim() === '') return received;
  const earlier = await store.getOrderByRef(customerId, ref.trim());
  return earlier?.data_ordine ?? received;
}
