/**
 * The statement of one page of a customer's orders (Store.listCustomerOrders, behind `GET /api/v1/ordini?dal=…`),
 * shared by both engines. Oldest first on (registered_at, id), the columns of orders_customer_registered_id after
 * customer_id, so a page is a seek into that customer's part of the index and a walk of at most `limit` matching
 * rows (without a customer, an integration's resync, the same on orders_registered_id); the state filter is a condition on the rows walked (a customer's orders in the window), not an index of its own:
 * every production report would otherwise move an index entry.
 */
import type { CustomerOrderPage } from '../../domain/store/records.ts';
import { isoIn } from './rows.ts';

/** Most orders one page may hold (the REST channel's own maximum is lower). */
export const MAX_CUSTOMER_ORDERS_PAGE = 1000;

export function customerOrdersSql(q: CustomerOrderPage, columns: string, param: (v: unknown) => string): string {
  const where: string[] = [];
  if (q.customerId !== undefined) where.push(`customer_id = ${param(q.customerId)}`);
  if (q.from !== undefined) where.push(`registered_at >= ${param(q.from)}`);
  if (q.to !== undefined) where.push(`registered_at < ${param(q.to)}`);
  if (q.productionState === null) where.push('production_state IS NULL');
  else if (q.productionState !== undefined) where.push(`production_state = ${param(q.productionState)}`);
  if (q.after !== undefined) where.push(`(registered_at, id) > (${param(q.after.at)}, ${param(q.after.id)})`);
  const limit = Math.max(1, Math.min(MAX_CUSTOMER_ORDERS_PAGE, Math.trunc(q.limit) || 1));
  return `SELECT ${columns} FROM orders ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY registered_at, id LIMIT ${param(limit)}`;
}

/** The page with its times in the one spelling the stores write (SQLite compares them as text). */
export function customerOrderTimes(q: CustomerOrderPage): CustomerOrderPage {
  return {
    ...q,
    ...(q.from !== undefined ? { from: isoIn(q.from, 'from') } : {}),
    ...(q.to !== undefined ? { to: isoIn(q.to, 'to') } : {}),
    ...(q.after !== undefined ? { after: { at: isoIn(q.after.at, 'after'), id: q.after.id } } : {}),
  };
}
