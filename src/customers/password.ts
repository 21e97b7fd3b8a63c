/**
 * A new FTP/SFTP (and portal) password for a customer: the old one stops working at once. The new one is returned
 * to be shown once; only its scrypt hash is stored.
 */
import { uuidv7 } from '../domain/uuid7.ts';
import { generatePassword, hashPassword } from '../auth/secrets.ts';
import type { CustomerAdminStore } from '../domain/store/ports.ts';
import { requireCustomerByCode } from './find.ts';

export async function resetCustomerPassword(store: CustomerAdminStore, code: string): Promise<{ user: string; password: string }> {
  const customer = await requireCustomerByCode(store, code);
  const user = customer.code.toLowerCase();
  const password = generatePassword();
  await store.revokeCredentials(customer.id, 'password');
  await store.addCredential({ id: uuidv7(), customerId: customer.id, kind: 'password', lookup: user, secretHash: await hashPassword(password) });
  // Portal sessions opened with the old password end too: whoever knew it is logged out.
  await store.deleteWebSessionsOf('customer', customer.id);
  return { user, password };
}
