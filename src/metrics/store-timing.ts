/**
 * The store as the service uses it, with its commit path timed: the writes a sender waits for before being
 * acknowledged (saving a submission or a message, registering orders, recording an outcome). Timed here, around the
 * port, so SQLite and PostgreSQL are measured the same way: the figure includes waiting for a group commit or for a
 * pooled connection, which is what an acknowledgement actually waits for.
 */
import type { Store } from '../domain/store/store.ts';
import type { Metrics } from './metrics.ts';

/** Store methods that commit a write an acknowledgement depends on. */
export const TIMED_WRITES = ['saveSubmission', 'saveSingleOrder', 'registerOrders', 'completeSubmission', 'saveMailMessages'] as const;

export function timeStoreWrites(store: Store, metrics: Metrics): Store {
  const timed: Partial<Record<(typeof TIMED_WRITES)[number], unknown>> = {};
  for (const name of TIMED_WRITES) {
    const write = store[name] as (...args: unknown[]) => Promise<unknown>;
    timed[name] = (...args: unknown[]) => metrics.timeStoreWrite(name, () => write.apply(store, args));
  }
  // Every other method (and any added later) is the store's own, reached through the prototype.
  return Object.setPrototypeOf(timed, store) as Store;
}
