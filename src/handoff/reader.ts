/**
 * The EventReader every way out consumes (feed route, webhook deliveries, hot-folder export), over the store's
 * outbox. The ordering guarantee lives in the store (see src/domain/store/events.ts and postgres-events.ts); this is the
 * seam that keeps handoff code from depending on the whole Store.
 */
import type { EventReader } from '../domain/order-events.ts';
import type { EventStore } from '../domain/store/events.ts';
import { eventLimit } from '../domain/store/events.ts';

export function storeEventReader(store: Pick<EventStore, 'readEvents'>): EventReader {
  return {
    readAfter: (cursor, limit) => store.readEvents(cursor, eventLimit(limit)),
  };
}
