// Builders shared by the store contract: customers, submissions and register items with sensible defaults.
import { randomUUID } from 'node:crypto';
import type { Channel, Order } from '../../src/domain/types.ts';
import type { Customer, NewSubmission, RegisterItem, Store } from '../../src/domain/store/store.ts';

/** What a backend hands the contract: a store on a fresh database, and a way to remove that database. */
export interface StoreHandle {
  store: Store;
  cleanup: () => Promise<void>;
  /**
   * Another store instance on the same database (another process in production), when the backend can have
   * one (not SQLite `:memory:`). The contract closes what it opens; cleanup must tolerate that.
   */
  another?: () => Promise<Store>;
}

export type StoreFactory = () => Promise<StoreHandle>;

/** A fixed clock: second `n` of 2025-01-01 UTC, so ordering assertions do not depend on the machine's speed. */
export function at(n: number): string {
  return new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString();
}

export async function addCustomer(store: Store, code: string): Promise<Customer> {
  return store.createCustomer({ id: `cust-${code}-${randomUUID()}`, code, name: `Cliente ${code}`, mailbox: `${code.toLowerCase()}@ordini.test` });
}

export function newSubmission(customer: Customer, over: Partial<NewSubmission> = {}): NewSubmission {
  return {
    id: randomUUID(),
    customerId: customer.id,
    customerCode: customer.code,
    channel: 'rest',
    raw: Buffer.from('{"ordine":1}'),
    meta: {},
    singleOrder: false,
    sha256: randomUUID().replace(/-/g, ''),
    receivedAt: at(0),
    ...over,
  };
}

export async function addSubmission(store: Store, customer: Customer, over: Partial<NewSubmission> = {}): Promise<string> {
  return (await store.saveSubmission(newSubmission(customer, over))).id;
}

export function order(customer: Customer, ref: string, over: Partial<Order> = {}): Order {
  return {
    codice_cliente: customer.code,
    riferimento_ordine: ref,
    data_ordine: '2025-03-01',
    data_consegna: '2025-03-15',
    righe: [
      { codice_articolo: 'BV-STD', quantita: 500, unita_misura: 'PZ' },
      { codice_articolo: 'VOL-A4', quantita: 2.5, unita_misura: 'RS' },
    ],
    ...over,
  };
}

export function item(
  customer: Customer,
  submissionId: string,
  ref: string,
  over: Partial<Omit<RegisterItem, 'order'>> & { order?: Partial<Order>; channel?: Channel } = {},
): RegisterItem {
  const { order: orderOver, ...rest } = over;
  return {
    id: randomUUID(),
    customerId: customer.id,
    submissionId,
    channel: 'rest',
    year: 2025,
    contentHash: `hash-${ref}`,
    registeredAt: at(10),
    order: order(customer, ref, orderOver),
    ...rest,
  };
}

/** Runs `fn` on a fresh, migrated store and always removes it, whatever `fn` does. */
export async function withStore(make: StoreFactory, fn: (store: Store, handle: StoreHandle) => Promise<void>): Promise<void> {
  const handle = await make();
  try {
    await handle.store.migrate();
    await fn(handle.store, handle);
  } finally {
    await handle.cleanup();
  }
}
