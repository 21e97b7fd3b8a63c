/**
 * Who is calling the connector path: the `service-x-key` header → the connector, its customer and bound sites.
 * Every refusal is `undefined`, whatever the reason (malformed, unknown, revoked, wrong secret), so the route
 * cannot leak which. No lockout is kept here, unlike passwords: the key carries ~190 random bits, so guessing is
 * hopeless at any rate, and counting failures per address would only let one client lock out another behind
 * the same NAT.
 * The right key of a connector whose customer is deactivated throws CUSTOMER_INACTIVE (src/customers/active.ts),
 * as the authenticator does for API keys; a connector serving several customers is also refused, per ticket, for
 * each deactivated customer a ticket names (src/intake/connectors/customers.ts).
 */
import { inactiveError, isDeactivated } from '../customers/active.ts';
import { parseConnectorKey, verifyConnectorKey } from '../auth/secrets.ts';
import type { Principal } from '../domain/types.ts';
import type { Connector } from '../domain/store/connectors.ts';
import type { ConnectorAuthStore } from '../domain/store/ports.ts';

export interface ConnectorCaller {
  connector: Connector;
  principal: Principal & { sites: readonly string[]; connectorId: string };
}

export async function authenticateConnector(store: ConnectorAuthStore, token: string | undefined): Promise<ConnectorCaller | undefined> {
  // A malformed token (an API key among them) is refused before any lookup.
  const parsed = parseConnectorKey(token);
  if (!parsed || token === undefined) return undefined;
  const found = await store.findConnectorByKey(parsed.keyId);
  if (!found || found.connector.revokedAt) return undefined;
  if (!verifyConnectorKey(token, found.secretHash)) return undefined;
  const c = found.connector;
  if (await isDeactivated(store, c.customerId)) throw inactiveError();
  return {
    connector: c,
    principal: { customerId: c.customerId, customerCode: c.customerCode, sites: c.sites, connectorId: c.id },
  };
}
