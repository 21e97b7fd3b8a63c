// The store the intake's tests start from: migrated, the default units and TEST_ARTICLES in the catalogue, and one
// customer (C001), whose principal is returned. The caller opens the store (in memory, a file, with a probe).
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import type { Store } from '../../src/domain/store/store.ts';
import type { Principal } from '../../src/domain/types.ts';
import { TEST_ARTICLES } from '../helpers/service.ts';

export async function seedIntakeStore(store: Store): Promise<Principal> {
  await store.migrate();
  await store.upsertUnits(DEFAULT_UNITS);
  await store.upsertArticles(TEST_ARTICLES);
  const c = await store.createCustomer({ id: 'cust-1', code: 'C001', name: 'Uno', mailbox: 'c001-x@ordini.test' });
  return { customerId: c.id, customerCode: c.code };
}
