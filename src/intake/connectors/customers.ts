/**
 * Whose order a connector's ticket is (issue 20). A connector is bound to one customer, several, or all of them
 * (a printer's own prepress or MIS forwarding jobs for many customers):
 * - a ticket naming no customer is the connector's customer when it is bound to exactly one (a prepress system
 *   that already knows whose job it is writes no CustomerInfo); bound to several, stage A asks for codice_cliente;
 * - a ticket naming one: CustomerID is looked up in the connector's customer table first (the sender's own ids,
 *   e.g. a printer's MIS numbers → our codice_cliente), else taken as our codice_cliente;
 * - the customer found must be one the connector is bound to; otherwise the order is refused (403), as a REST
 *   order naming another customer is.
 */
import type { Connector, ConnectorCustomer } from '../../domain/store/connectors.ts';
import { unattributedOwner } from '../../domain/store/connectors.ts';
import type { Store } from '../../domain/store/store.ts';

export interface CustomerVerdict {
  customer?: ConnectorCustomer;
  /** Why the ticket's customer is refused (Italian, for the sender). */
  forbidden?: string;
}

export interface CustomerResolver {
  resolve(named: unknown): Promise<CustomerVerdict>;
  /** Where a judged order's attempt is filed: set only for connectors bound to several customers. */
  attemptOwner(customer: ConnectorCustomer | undefined): string | undefined;
}

export function isMultiCustomer(c: Pick<Connector, 'allCustomers' | 'customers'>): boolean {
  return c.allCustomers || c.customers.length > 1;
}

export async function customerResolver(store: Store, connector: Connector): Promise<CustomerResolver> {
  const table = new Map<string, ConnectorCustomer>();
  for (const r of await store.connectorCustomerIds(connector.id)) table.set(r.externalId, { id: r.customerId, code: r.customerCode });
  const bound = connector.customers;
  const byCode = new Map(bound.map((c) => [c.code.toUpperCase(), c]));
  const cache = new Map<string, ConnectorCustomer | undefined>();

  async function ours(code: string): Promise<ConnectorCustomer | undefined> {
    if (!connector.allCustomers) return byCode.get(code.toUpperCase());
    if (!cache.has(code)) {
      // Codes are unique ignoring case and usually written upper case (C001).
      const c = await store.getCustomerByCode(code) ?? await store.getCustomerByCode(code.toUpperCase());
      cache.set(code, c && { id: c.id, code: c.code });
    }
    return cache.get(code);
  }

  const isBound = (c: ConnectorCustomer): boolean => connector.allCustomers || bound.some((b) => b.id === c.id);

  return {
    async resolve(named) {
      if (named === undefined || named === null || (typeof named === 'string' && named.trim() === '')) {
        const only = !connector.allCustomers && bound.length === 1 ? bound[0] : undefined;
        return only ? { customer: only } : {};
      }
      // Not text: stage A says codice_cliente must be a string.
      if (typeof named !== 'string') return {};
      const key = named.trim();
      const mapped = table.get(key.toUpperCase());
      const customer = mapped ?? await ours(key);
      if (customer && isBound(customer)) return { customer };
      return {
        forbidden: `Il cliente "${key.slice(0, 64)}" indicato nel ticket non è tra i clienti di questo connettore: `
          + 'se è un codice del vostro gestionale, chiedete all\'operatore di aggiungerlo alla tabella clienti del connettore',
      };
    },
    attemptOwner(customer) {
      if (!isMultiCustomer(connector)) return undefined;
      return customer?.id ?? unattributedOwner(connector.id);
    },
  };
}
