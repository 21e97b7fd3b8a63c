/**
 * Migration 009 in the embedded store: a connector's customer table and product key, tickets kept with orders, and
 * the connector path's status lookups scoped to the customers the connector is bound to (see ConnectorStore).
 */
import type Database from 'better-sqlite3';
import { notFound } from '../common/refusals.ts';
import { checkUniqueExternalIds } from '../common/connector-rows.ts';
import { unattributedOwner, type ConnectorCustomerId, type ConnectorStore } from '../../domain/store/connectors.ts';
import { toAttempt, type AttemptRow } from '../common/rows.ts';
import { statementCache } from './statements.ts';

type Tenants = Pick<ConnectorStore, 'replaceConnectorCustomerIds' | 'connectorCustomerIds' | 'setConnectorProductKey'
  | 'saveOrderTickets' | 'orderTicket' | 'connectorOrderOwners' | 'connectorLatestAttempt'>;

/**
 * The customers a connector is bound to, as a condition on `col` (a customer id); `?` is the connector id. Bound to
 * all: every customer, but not another connector's unattributed owner (unattributedOwner), which is no customer.
 */
const BOUND = (col: string) => `((EXISTS (SELECT 1 FROM connectors c WHERE c.id = ? AND c.all_customers = 1) AND ${col} IN (SELECT id FROM customers))
  OR ${col} IN (SELECT customer_id FROM connector_customers WHERE connector_id = ?))`;

/**
 * A connector's latest attempt for a reference, of one customer (`customerGiven`) or of any it is bound to; the values
 * are the reference, that customer (or the connector's unattributed owner), then the connector id twice. Exported for
 * the plan test: it seeks the attempts' reference index (migration 026).
 */
export function connectorLatestAttemptSql(customerGiven: boolean): string {
  const scope = customerGiven ? `(a.customer_id = ? AND ${BOUND('a.customer_id')})` : `(a.customer_id = ? OR ${BOUND('a.customer_id')})`;
  return `SELECT a.submission_id, a.channel, a.received_at, a.outcome FROM order_attempts a
    WHERE a.riferimento_ordine = ? AND ${scope}
    ORDER BY a.received_at DESC, a.submission_id DESC, a.idx DESC LIMIT 1`;
}

export function sqliteConnectorTenants(db: Database.Database): Tenants {
  const q = statementCache(db);

  const replaceIds = db.transaction((id: string, rows: readonly { externalId: string; customerId: string }[]): number => {
    if (!q('SELECT 1 FROM connectors WHERE id = ?').get(id)) throw notFound.connector(id);
    q('DELETE FROM connector_customer_ids WHERE connector_id = ?').run(id);
    const ins = q('INSERT INTO connector_customer_ids (connector_id, external_id, customer_id) VALUES (?, ?, ?)');
    for (const r of rows) {
      try {
        ins.run(id, r.externalId, r.customerId);
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw notFound.customer(r.customerId);
        throw e;
      }
    }
    return rows.length;
  });

  const saveTickets = db.transaction((rows: readonly { orderId: string; details: string }[]) => {
    const ins = q('INSERT INTO order_tickets (order_id, details) VALUES (?, ?) ON CONFLICT (order_id) DO NOTHING');
    for (const r of rows) ins.run(r.orderId, r.details);
  });

  return {
    async replaceConnectorCustomerIds(id, rows) {
      checkUniqueExternalIds(rows);
      return replaceIds.immediate(id, rows);
    },

    async connectorCustomerIds(id) {
      const rows = q(`SELECT x.external_id, x.customer_id, cu.code FROM connector_customer_ids x JOIN customers cu ON cu.id = x.customer_id
        WHERE x.connector_id = ? ORDER BY x.external_id`).all(id) as { external_id: string; customer_id: string; code: string }[];
      return rows.map((r): ConnectorCustomerId => ({ externalId: r.external_id, customerId: r.customer_id, customerCode: r.code }));
    },

    async setConnectorProductKey(id, template) {
      if (q('UPDATE connectors SET product_key = ? WHERE id = ?').run(template ?? null, id).changes === 0) {
        throw notFound.connector(id);
      }
    },

    async saveOrderTickets(rows) {
      if (rows.length > 0) saveTickets.immediate(rows);
    },

    async orderTicket(customerId, orderId) {
      const r = q(`SELECT t.details FROM order_tickets t JOIN orders o ON o.id = t.order_id WHERE o.customer_id = ? AND t.order_id = ?`)
        .get(customerId, orderId) as { details: string } | undefined;
      return r?.details;
    },

    async connectorOrderOwners(connectorId, { id, ref, customerId }) {
      const where = [BOUND('o.customer_id')];
      const args: unknown[] = [connectorId, connectorId];
      for (const [column, value] of [['o.id', id], ['o.riferimento_ordine', ref], ['o.customer_id', customerId]] as const) {
        if (value === undefined) continue;
        where.push(`${column} = ?`);
        args.push(value);
      }
      if (id === undefined && ref === undefined) return [];
      const rows = q(`SELECT o.customer_id FROM orders o WHERE ${where.join(' AND ')} ORDER BY o.registered_at LIMIT 50`).all(...args) as { customer_id: string }[];
      return rows.map((r) => r.customer_id);
    },

    async connectorLatestAttempt(connectorId, ref, customerId) {
      const r = q(connectorLatestAttemptSql(customerId !== undefined))
        .get(ref, customerId ?? unattributedOwner(connectorId), connectorId, connectorId) as AttemptRow | undefined;
      return r && toAttempt(r);
    },
  };
}
