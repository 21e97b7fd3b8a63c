// What a store shared by `serve` processes needs before they start: its schema, the units, the test articles and
// the customers. Provisioned first because an empty store would have each instance seed the demo customer.
import Database from 'better-sqlite3';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import { provisionCustomer, type ProvisionedCustomer } from '../../src/customers/provision.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { TEST_ARTICLES } from '../helpers/service.ts';

export async function seedStore(store: Store, codes: readonly string[] = ['C001']): Promise<ProvisionedCustomer[]> {
  await store.migrate();
  await store.upsertUnits(DEFAULT_UNITS);
  await store.upsertArticles(TEST_ARTICLES);
  const customers: ProvisionedCustomer[] = [];
  for (const code of codes) customers.push(await provisionCustomer(store, { code, name: `Cliente ${code}` }, 'ordini.test'));
  return customers;
}

/** Read a SQLite file as another process would (the service's, while it runs or after it was killed), without keeping it open. */
export function readSqlite<T>(file: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
