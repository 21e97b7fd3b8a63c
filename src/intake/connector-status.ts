/**
 * Status on the connector path (issue 20): the REST views (status.ts), scoped to the customers the connector is
 * bound to (one, several or all), plus what the ticket said (intents, comments, artwork) so prepress gets it back.
 * Scoping is done by the store's queries (connectorOrderOwners, connectorLatestAttempt); an order of a customer
 * the connector is not bound to is "not found", exactly like an order that does not exist.
 */
import { customerResolver } from './connectors/customers.ts';
import { attemptStatus, statusById, statusByRef, type OrderStatus } from './status.ts';
import type { Connector } from '../domain/store/connectors.ts';
import type { Store } from '../domain/store/store.ts';

export type ConnectorStatusView = OrderStatus & { ticket?: unknown };

export type RefAnswer =
  | { kind: 'found'; view: ConnectorStatusView }
  | { kind: 'ambiguous'; codes: string[] }
  | { kind: 'none' };

async function withTicket(store: Store, customerId: string, view: OrderStatus): Promise<ConnectorStatusView> {
  if (view.id_ordine === undefined || view.stato !== 'registrato') return view;
  const details = await store.orderTicket(customerId, view.id_ordine);
  return details === undefined ? view : { ...view, ticket: JSON.parse(details) as unknown };
}

export async function connectorStatusById(store: Store, connector: Connector, id: string): Promise<ConnectorStatusView | undefined> {
  const [owner] = await store.connectorOrderOwners(connector.id, { id });
  if (owner === undefined) return undefined;
  const view = await statusById(store, owner, id);
  return view && withTicket(store, owner, view);
}

/**
 * By reference: the order among the connector's customers; `codice_cliente` (ours, or an id of the connector's
 * customer table) narrows to one customer, which a connector serving several needs when two of them used the
 * same reference. No order: the latest refusal of that reference the connector may see.
 */
export async function connectorStatusByRef(store: Store, connector: Connector, ref: string, codice?: string): Promise<RefAnswer> {
  let customerId: string | undefined;
  if (codice !== undefined) {
    const verdict = await (await customerResolver(store, connector)).resolve(codice);
    if (!verdict.customer) return { kind: 'none' };
    customerId = verdict.customer.id;
  }
  const owners = [...new Set(await store.connectorOrderOwners(connector.id, { ref, ...(customerId ? { customerId } : {}) }))];
  if (owners.length > 1) {
    const codes = await Promise.all(owners.map(async (o) => (await store.getCustomer(o))?.code ?? o));
    return { kind: 'ambiguous', codes: codes.sort() };
  }
  if (owners[0] !== undefined) {
    const view = await statusByRef(store, owners[0], ref);
    if (view) return { kind: 'found', view: await withTicket(store, owners[0], view) };
  }
  const attempt = await store.connectorLatestAttempt(connector.id, ref, customerId);
  return attempt ? { kind: 'found', view: attemptStatus(attempt) } : { kind: 'none' };
}
