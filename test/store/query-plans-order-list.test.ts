// GET /api/v1/ordini without a reference (Store.listCustomerOrders) must read one customer's orders through
// orders_customer_registered_id, in its order, whatever filters are set: never every customer's orders, never a sort
// of them. An integration's list of every customer's orders reads orders_registered_id from its first day. Checked
// on the plan of the store's own statement text on each engine.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CustomerOrderPage, Store } from '../../src/domain/store/store.ts';
import type { Customer } from '../../src/domain/store/store.ts';
import { customerOrdersSql } from '../../src/store/common/customer-orders.ts';
import { addCustomer, addSubmission, at, item } from './fixtures.ts';
import { PG_SKIP } from './pg-schema.ts';
import { withPgPlans, withSqlitePlans } from './plans.ts';

const AFTER = { at: at(100), id: '01a2f000-0000-7000-8000-000000000000' };

function pagesOf(customerId: string): CustomerOrderPage[] {
  return [
    { customerId, limit: 101 }, { customerId, limit: 101, after: AFTER },
    { customerId, limit: 101, from: at(0), to: at(500) }, { customerId, limit: 101, from: at(0), to: at(500), after: AFTER },
    { customerId, limit: 101, productionState: 'spedito' }, { customerId, limit: 101, productionState: null, after: AFTER },
    // An integration's resync: every customer's orders, on orders_registered_id.
    { limit: 101, from: at(0) }, { limit: 101, from: at(0), after: AFTER },
  ];
}

/** Two customers' orders, so that a plan reading the whole table would read the other one's too. */
const fill = async (store: Store, c: Customer) => {
  const other = await addCustomer(store, 'C002');
  for (const who of [c, other]) {
    const sub = await addSubmission(store, who);
    await store.registerOrders(Array.from({ length: 400 }, (_, i) => item(who, sub, `R${i}`, { registeredAt: at(i) })));
  }
};

const statement = (q: CustomerOrderPage, param: (values: unknown[]) => (v: unknown) => string) => {
  const values: unknown[] = [];
  return { sql: customerOrdersSql(q, 'id, customer_id, riferimento_ordine, registered_at, production_state', param(values)), values };
};

void describe('query plans of the customer order list', () => {
  void it('sqlite: a page seeks one customer\'s orders in index order', async () => {
    await withSqlitePlans(fill, (db, customerId) => {
      for (const q of pagesOf(customerId)) {
        const { sql, values } = statement(q, (vs) => (v) => (vs.push(v), '?'));
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[]).map((r) => r.detail).join('\n');
        const index = q.customerId ? /SEARCH orders USING INDEX orders_customer_registered_id \(customer_id=\?/ : /SEARCH orders USING INDEX orders_registered_id \(\(?registered_at/;
        assert.match(plan, index, `${sql}\n${plan}`);
        assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY/, `${sql}\n${plan}`);
      }
    });
  });

  void it('postgres: a page can be served by orders_customer_registered_id without sorting', { skip: PG_SKIP }, async () => {
    await withPgPlans(fill, { analyze: ['orders'], planner: '-c enable_seqscan=off -c enable_sort=off' }, async (explain, customerId) => {
      for (const q of pagesOf(customerId)) {
        const { sql, values } = statement(q, (vs) => (v) => `$${vs.push(v)}`);
        const plan = await explain(sql, values);
        assert.match(plan, q.customerId ? /orders_customer_registered_id/ : /orders_registered_id/, `${sql}\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on orders|(^|->)\s*Sort\s+\(/m, `${sql}\n${plan}`);
      }
    });
  });
});
