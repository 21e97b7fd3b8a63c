/**
 * Fan-out: from the event stream to one delivery row per (subscriber, event) the subscriber wants. Each subscriber
 * reads the stream from its own cursor; each page of events becomes its deliveries and the new cursor in one
 * transaction (HandoffStore.appendDeliveries), so a crash between pages repeats nothing and skips nothing. The
 * dispatcher runs it on one instance at a time (named lease), but appendDeliveries also refuses to move a cursor
 * that someone else moved, so two fan-outs overlapping at a lease handover still queue each event once.
 *
 * A new subscriber receives the events committed after it was added, not the whole history: an ERP connected today
 * wants today's orders, and replaying years of them into a new endpoint would flood it (the pull feed is there for
 * history). The store starts its cursor at the end of the stream when it is added (addSubscriber).
 */
import { uuidv7 } from '../domain/uuid7.ts';
import type { EventReader, OrderEvent } from '../domain/order-events.ts';
import type { NewDelivery, Subscriber } from '../domain/store/handoff.ts';
import type { HandoffPort } from '../domain/store/ports.ts';

/** Events read per page: one transaction per page and subscriber; a backlog is worked through in these steps. */
export const FANOUT_PAGE = 500;

/** What keeps the deliveries of one order in sequence: the order id, else the refused order's customer and reference. */
export function orderKey(e: OrderEvent): string {
  const d = e.data;
  if (typeof d.id_ordine === 'string' && d.id_ordine) return d.id_ordine;
  if (typeof d.riferimento_ordine === 'string') return `${String(d.codice_cliente ?? '')}/${d.riferimento_ordine}`;
  return e.id;
}

/** The JSON body of every delivery of this event: the event exactly as the feed returns it. */
export function eventBody(e: OrderEvent): string {
  return JSON.stringify({ id: e.id, type: e.type, time: e.time, cursor: e.cursor, data: e.data });
}

/**
 * `fromStart`: the subscriber has no cursor yet (the stream was empty when it was added, or it was added before
 * subscribers were given the stream's end as their cursor): then the events' time says what came after it. With a
 * cursor the stream position says it, and time must not: an event is timed before its transaction commits, so one
 * committed after the subscriber was added can carry an older time (and instances' clocks differ).
 */
function wanted(s: Subscriber, e: OrderEvent, fromStart: boolean): boolean {
  return s.events.includes(e.type) && (!fromStart || Date.parse(e.time) >= Date.parse(s.createdAt));
}

/** Queue what one subscriber has not seen yet; resolves with the number of deliveries queued. */
export async function fanOutSubscriber(store: HandoffPort, events: EventReader, s: Subscriber, page = FANOUT_PAGE): Promise<number> {
  let cursor = s.cursor;
  const fromStart = cursor === undefined;
  let queued = 0;
  for (;;) {
    const list = await events.readAfter(cursor ?? null, page);
    if (list.length === 0) return queued;
    const deliveries: NewDelivery[] = list.filter((e) => wanted(s, e, fromStart)).map((e) => ({
      id: uuidv7(), eventId: e.id, eventType: e.type, orderKey: orderKey(e), body: eventBody(e),
    }));
    const next = list[list.length - 1]!.cursor;
    // Moved by someone else meanwhile: stop here; the next round starts from the stored cursor.
    if (!(await store.appendDeliveries(s.id, cursor, next, deliveries))) return queued;
    cursor = next;
    queued += deliveries.length;
    if (list.length < page) return queued;
  }
}

/** `subscribers`: as just listed by the caller (their cursors must be current), else listed here. */
export async function fanOut(store: HandoffPort, events: EventReader, subscribers?: readonly Subscriber[], page = FANOUT_PAGE): Promise<number> {
  let queued = 0;
  for (const s of subscribers ?? await store.listSubscribers({})) {
    if (s.state === 'active') queued += await fanOutSubscriber(store, events, s, page);
  }
  return queued;
}
