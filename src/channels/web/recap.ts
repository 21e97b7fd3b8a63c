/**
 * What the console's and the portal's outcome pages show besides the outcome itself (views/partials/outcome.eta): the
 * recap of the registered lines of each accepted order (src/render/recap.ts), and, for a refused order, the order
 * registered since under its reference (an operator's correction, the customer sending it again), so that nobody
 * corrects or resends an order that is already in. Every read is scoped to the submission's customer.
 */
import type { Outcome } from '../../domain/types.ts';
import type { WebChannelStore } from '../../domain/store/ports.ts';
import { EMPTY_RECAP, gatherRecap, RECAP_LIMITS, type Recap } from '../../render/recap.ts';

export interface RegisteredSince {
  id_ordine: string;
  numero_ordine: string;
  /** Registered after the refused submission was received (false: before it, the refusal was a conflict). */
  later: boolean;
  /** Registered by the order desk (a correction in the console). */
  byDesk: boolean;
}

/** What an outcome page shows with the outcome (views/partials/outcome.eta: recap, since). */
export interface OutcomeExtras {
  recap: Recap;
  since: Map<number, RegisteredSince>;
}

/**
 * Refused orders looked up per page. A file may hold 100,000 orders, each one lookup; the first ones are what an
 * operator corrects first, and the rest are looked up as they get a page of their own (the correction form).
 */
const LOOKED_UP = 100;

export function outcomeRecap(store: WebChannelStore, customerId: string, outcome: Outcome | undefined): Promise<Recap> {
  return outcome ? gatherRecap(store, customerId, outcome.orders, RECAP_LIMITS.page) : Promise.resolve(EMPTY_RECAP);
}

/** By the refused order's index: the order now registered under its reference. */
export async function registeredSince(store: WebChannelStore, customerId: string, outcome: Outcome | undefined, receivedAt: string):
Promise<Map<number, RegisteredSince>> {
  const out = new Map<number, RegisteredSince>();
  const refused = (outcome?.orders ?? []).filter((o) => o?.esito === 'errore' && o.riferimento_ordine).slice(0, LOOKED_UP);
  for (const o of refused) {
    const order = await store.getOrderByRef(customerId, o.riferimento_ordine!);
    if (order) {
      out.set(o.index, { id_ordine: order.id_ordine, numero_ordine: order.numero_ordine, later: order.registeredAt > receivedAt, byDesk: order.channel === 'console' });
    }
  }
  return out;
}

/** The recap of the accepted orders and of the orders registered since under refused ones' references. */
export async function outcomeExtras(store: WebChannelStore, customerId: string, outcome: Outcome | undefined, receivedAt: string): Promise<OutcomeExtras> {
  const since = await registeredSince(store, customerId, outcome, receivedAt);
  if (!outcome) return { recap: EMPTY_RECAP, since };
  const later = [...since.values()].map((o, i) => ({ index: -1 - i, esito: 'ok' as const, id_ordine: o.id_ordine }));
  return { recap: await gatherRecap(store, customerId, [...outcome.orders, ...later], RECAP_LIMITS.page), since };
}
