/**
 * The operator's switch for e-mail notifications of production status, per customer (CLI `customer notify`):
 * off until turned on. Turning it on for the first customer adds the hand-off subscriber that produces them
 * (notify.ts), so an installation that never uses notifications queues nothing for them.
 */
import { IntakeError } from '../domain/errors.ts';
import type { NotifySettings } from '../domain/store/notifications.ts';
import type { NotifyStore } from '../domain/store/ports.ts';
import type { Customer, Store } from '../domain/store/store.ts';
import { ensureMailSubscriber } from './notify.ts';

/** RFC 5321's limit on a forward path; no real mailbox comes near it. */
const MAX_ADDRESS = 254;
/** One plain address: no display name, no list, no white space or control character that could reach a header. */
// eslint-disable-next-line no-control-regex
const ADDRESS = /^[^\s@<>(),;:"\\[\]\x00-\x1f\x7f]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

export function checkNotifyAddress(address: string): string {
  const a = address.trim();
  if (a.length > MAX_ADDRESS || !ADDRESS.test(a)) {
    throw new IntakeError('VALIDATION', `"${a.slice(0, 80)}" is not one e-mail address (name@example.com)`);
  }
  return a.toLowerCase();
}

async function customerOf(store: NotifyStore, code: string): Promise<Customer> {
  const c = await store.getCustomerByCode(code.trim());
  if (!c) throw new IntakeError('NOT_FOUND', `no customer with code ${code}`);
  return c;
}

export async function showNotifications(store: NotifyStore, code: string): Promise<{ customer: Customer; settings: NotifySettings }> {
  const customer = await customerOf(store, code);
  return { customer, settings: await store.getNotifySettings(customer.id) };
}

/** `address`: a new address, null to remove it, undefined to keep the one set. */
export async function setNotifications(store: NotifyStore, code: string, s: { enabled: boolean; address?: string | null }):
Promise<{ customer: Customer; settings: NotifySettings }> {
  const customer = await customerOf(store, code);
  const address = typeof s.address === 'string' ? checkNotifyAddress(s.address) : s.address;
  // The subscriber first: a customer switched on always has something producing its notifications.
  if (s.enabled) await ensureMailSubscriber(store);
  const settings = await store.setNotifySettings(customer.id, { enabled: s.enabled, ...(address !== undefined ? { address } : {}) });
  return { customer, settings };
}

/**
 * At start: customers with notifications on need the subscriber that produces them. It is not carried by `db copy`
 * (no hand-off subscriber is), so a store switched from SQLite to PostgreSQL gets it back here.
 */
export async function restoreMailSubscriber(store: Pick<Store, 'notificationsInUse' | 'getSubscriber' | 'addSubscriber'>): Promise<boolean> {
  if (!(await store.notificationsInUse())) return false;
  await ensureMailSubscriber(store);
  return true;
}
