/**
 * Deactivating and reactivating a customer (CLI `customer deactivate|reactivate`, console): one function for both,
 * so the two ways cannot drift. What a deactivation means on each channel is in active.ts.
 */
import { IntakeError } from '../domain/errors.ts';
import type { CustomerAdminStore } from '../domain/store/ports.ts';
import type { Customer } from '../domain/store/store.ts';
import { requireCustomerByCode } from './find.ts';

export interface ActivationChange {
  customer: Customer;
  /** False when the customer was already in the state asked for (nothing changed). */
  changed: boolean;
}

export async function setCustomerActive(store: CustomerAdminStore, code: string, active: boolean): Promise<ActivationChange> {
  const before = await requireCustomerByCode(store, code);
  const wasActive = before.deactivatedAt === undefined;
  if (!(await store.setCustomerDeactivated(before.id, !active))) throw new IntakeError('NOT_FOUND', `no customer with code ${code}`);
  const customer = await store.getCustomer(before.id);
  if (!customer) throw new IntakeError('NOT_FOUND', `no customer with code ${code}`);
  return { customer, changed: wasActive !== active };
}
