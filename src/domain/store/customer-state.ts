/**
 * The customer's state and activity, part of the store port (store.ts extends it): deactivating a customer (issue
 * 18) and the per-channel counts the console's customer page shows.
 *
 * What must stay true in every implementation:
 * - deactivating changes nothing but `deactivatedAt` and the customer's portal sessions (ended, in the same
 *   transaction): credentials, mailbox, submissions, orders and connectors stay, so reactivating restores access
 *   exactly as it was. Who is refused while deactivated is decided by src/customers/active.ts.
 * - customerActivity counts only that customer's rows.
 */
import type { Channel } from '../types.ts';

export interface ChannelActivity {
  channel: Channel;
  /** Submissions received since the time asked. */
  submissions: number;
  /** Of those, processed with esito errore (refused). */
  refused: number;
  /** Orders registered since the time asked (by that channel). */
  orders: number;
}

export interface CustomerStateStore {
  /**
   * Deactivate (and end the customer's portal sessions) or reactivate; false when there is no such customer.
   * Deactivating an already deactivated customer keeps the first time.
   */
  setCustomerDeactivated(id: string, deactivated: boolean): Promise<boolean>;
  /** Per channel, busiest first: what the customer sent and what was registered since `since` (ISO). */
  customerActivity(customerId: string, since: string): Promise<ChannelActivity[]>;
}

/** Merges the two grouped counts (submissions by channel, orders by channel) into one row per channel. */
export function mergeActivity(
  subs: readonly { channel: string; n: unknown; refused: unknown }[], orders: readonly { channel: string; n: unknown }[],
): ChannelActivity[] {
  const by = new Map<string, ChannelActivity>();
  const row = (ch: string) => by.get(ch) ?? by.set(ch, { channel: ch as Channel, submissions: 0, refused: 0, orders: 0 }).get(ch)!;
  for (const s of subs) Object.assign(row(s.channel), { submissions: Number(s.n), refused: Number(s.refused ?? 0) });
  for (const o of orders) row(o.channel).orders = Number(o.n);
  return [...by.values()].sort((a, b) => b.submissions + b.orders - (a.submissions + a.orders) || a.channel.localeCompare(b.channel));
}
