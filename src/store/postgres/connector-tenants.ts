/**
 * Migration 009 on PostgreSQL: a connector's customer table and product key, tickets kept with orders, and the
 * connector path's status lookups scoped to the customers the connector is bound to (see ConnectorStore).
 */
import type pg from 'pg';
import type { OrderWriters } from './order-writers.ts';
import { notFound } from '../common/refusals.ts';
import { checkUniqueExternalIds } from '../common/connector-rows.ts';
import { unattributedOwner, type ConnectorStore } from '../../domain/store/connectors.ts';
import { pgCode, withTransaction } from './tx.ts';
import { chunks, toAttempt, type AttemptRow } from '../common/rows.ts';

type Tenants = Pick<ConnectorStore, 'replaceConnectorCustomerIds' | 'connectorCustomerIds' | 'setConnectorProductKey'
  | 'saveOrderTickets' | 'orderTicket' | 'connectorOrderOwners' | 'connectorLatestAttempt'>;

/** Rows per INSERT: each statement stays well under the parameter limit. */
const BATCH = 1_000;

/**
 * The customers a connector ($1) is bound to, as a condition on `col` (a customer id). Bound to all: every customer,
 * but not another connector's unattributed owner (unattributedOwner), which is no customer.
 */
const BOUND = (col: string) => `((EXISTS (SELECT 1 FROM connectors c WHERE c.id = $1 AND c.all_customers) AND ${col} IN (SELECT id FROM customers))
  OR ${col} IN (SELECT customer_id FROM connector_customers WHERE connector_id = $1))`;

/**
 * A connector's latest attempt for a reference, of one customer (`customerGiven`) or of any it is bound to; the values
 * are the connector id, the reference, then that customer (or the connector's unattributed owner). Exported for the
 * plan test: it seeks the attempts' reference index (migration 026).
 */
export function connectorLatestAttemptSql(customerGiven: boolean): string {
  const scope = customerGiven ? `(a.customer_id = $3 AND ${BOUND('a.customer_id')})` : `(a.customer_id = $3 OR ${BOUND('a.customer_id')})`;
  return `SELECT a.submission_id, a.channel, a.received_at, a.outcome FROM order_attempts a
    WHERE a.riferimento_ordine = $2 AND ${scope}
    ORDER BY a.received_at DESC, a.submission_id COLLATE "C" DESC, a.idx DESC LIMIT 1`;
}

export function postgresConnectorTenants(pool: pg.Pool, writers: OrderWriters): Tenants {
  return {
    async replaceConnectorCustomerIds(id, rows) {
      checkUniqueExternalIds(rows);
      return withTransaction(pool, async (c) => {
        if ((await c.query('SELECT 1 FROM connectors WHERE id = $1 FOR UPDATE', [id])).rowCount === 0) {
          throw notFound.connector(id);
        }
        await c.query('DELETE FROM connector_customer_ids WHERE connector_id = $1', [id]);
        for (const part of chunks(rows, BATCH)) {
          try {
            await c.query(`INSERT INTO connector_customer_ids (connector_id, external_id, customer_id)
              SELECT $1, x, cu FROM unnest($2::text[], $3::text[]) AS t(x, cu)`, [id, part.map((r) => r.externalId), part.map((r) => r.customerId)]);
          } catch (e) {
            if (pgCode(e) === '23503') throw notFound.tenantCustomer();
            throw e;
          }
        }
        return rows.length;
      });
    },

    async connectorCustomerIds(id) {
      const { rows } = await pool.query(`SELECT x.external_id, x.customer_id, cu.code FROM connector_customer_ids x
        JOIN customers cu ON cu.id = x.customer_id WHERE x.connector_id = $1 ORDER BY x.external_id COLLATE "C"`, [id]);
      return (rows as { external_id: string; customer_id: string; code: string }[])
        .map((r) => ({ externalId: r.external_id, customerId: r.customer_id, customerCode: r.code }));
    },

    async setConnectorProductKey(id, template) {
      const res = await pool.query('UPDATE connectors SET product_key = $1 WHERE id = $2', [template ?? null, id]);
      if (res.rowCount === 0) throw notFound.connector(id);
    },

    async saveOrderTickets(rows) {
      for (const part of chunks(rows, BATCH)) {
        await writers.query(`INSERT INTO order_tickets (order_id, details) SELECT o, d FROM unnest($1::text[], $2::text[]) AS t(o, d)
          ON CONFLICT (order_id) DO NOTHING`, [part.map((r) => r.orderId), part.map((r) => r.details)]);
      }
    },

    async orderTicket(customerId, orderId) {
      const { rows } = await pool.query(`SELECT t.details FROM order_tickets t JOIN orders o ON o.id = t.order_id
        WHERE o.customer_id = $1 AND t.order_id = $2`, [customerId, orderId]);
      return (rows[0] as { details: string } | undefined)?.details;
    },

    async connectorOrderOwners(connectorId, { id, ref, customerId }) {
      if (id === undefined && ref === undefined) return [];
      const { rows } = await pool.query(`SELECT o.customer_id FROM orders o WHERE ${BOUND('o.customer_id')}
        AND ($2::text IS NULL OR o.id = $2) AND ($3::text IS NULL OR o.riferimento_ordine = $3) AND ($4::text IS NULL OR o.customer_id = $4)
        ORDER BY o.registered_at LIMIT 50`, [connectorId, id ?? null, ref ?? null, customerId ?? null]);
      return (rows as { customer_id: string }[]).map((r) => r.customer_id);
    },

    async connectorLatestAttempt(connectorId, ref, customerId) {
      const { rows } = await pool.query(connectorLatestAttemptSql(customerId !== undefined), [connectorId, ref, customerId ?? unattributedOwner(connectorId)]);
      const r = rows[0] as AttemptRow | undefined;
      return r && toAttempt(r);
    },
  };
}
