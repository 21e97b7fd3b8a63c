/**
 * The EventReader every way out consumes (feed route, webhook deliveries, hot-folder export), over the store's
 * outbox. The ordering guarantee lives in the store (see src/domain/store/events.ts and postgres/events.ts); this is the
 * seam that keeps handoff code from depending on the whole Store.
 */
import type { EventReader } from '../domain/order-events.ts';
import { eventLimit, type EventStore } from '../domain/store/events.ts';

export function storeEventReader(store: Pick<EventStore, 'readEvents' | 'hasUnreadableEvents'>): EventReader {
  const reader: EventReader = { readAfter: (cursor, limit) => store.readEvents(cursor, eventLimit(limit)) };
  if (store.hasUnreadableEvents) reader.hasUnreadable = () => store.hasUnreadableEvents!();
  return reader;
}
