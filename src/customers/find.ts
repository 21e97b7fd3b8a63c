import type { CustomerLookup } from '../domain/store/ports.ts';
import type { Customer } from '../domain/store/store.ts';
import { IntakeError } from '../domain/errors.ts';

/**
 * The customer with that code, ignoring case (codes are unique ignoring case, see provision.ts), so an
 * operator typing `c001` finds `C001`. The exact match is tried first; the password credential, whose lookup is
 * the lower-cased code, resolves the rest.
 */
export async function findCustomerByCode(store: CustomerLookup, code: string): Promise<Customer | undefined> {
  const exact = await store.getCustomerByCode(code);
  if (exact) return exact;
  const cred = await store.findCredential('password', code.toLowerCase());
  return cred ? store.getCustomer(cred.customerId) : undefined;
}

export async function requireCustomerByCode(store: CustomerLookup, code: string): Promise<Customer> {
  const c = await findCustomerByCode(store, code);
  if (!c) throw new IntakeError('NOT_FOUND', `no customer with code ${code}`);
  return c;
}
