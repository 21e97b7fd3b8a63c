/**
 * E-mail notifications of production status changes (issue 17): the operator's setting per customer, what the
 * notifier needs to know about an order to decide whether and where to write, and the notification queued in the
 * reply outbox (mail.ts), which sends it like every other outgoing e-mail.
 *
 * What must stay true in every implementation:
 * - no settings row means off: a customer is notified only after an operator turned it on.
 * - queueNotification is idempotent on the id: the notifier may run again after a crash (at-least-once) and the
 *   notification is queued, so sent, once.
 */
import type { Channel } from '../types.ts';

export interface NotifySettings {
  enabled: boolean;
  /** Where orders that did not come by e-mail are notified (lower case); undefined: they are not. */
  address?: string;
  updatedAt?: string;
}

/** The order's origin as e-mail, for orders that came by SMTP or IMAP. */
export interface OrderMailOrigin {
  mailId: string;
  /** The message has been finished (its reply queued, or none due): until then the sender is not known for sure. */
  done: boolean;
  /** Where its acknowledgement went (the sender, Reply-To honoured); undefined when none was sent. */
  repliedTo?: string;
  /** Why no acknowledgement was sent (a robot, a list, a bounce): then no notification either. */
  noReply?: string;
  /** The customer's Message-ID, so the notification threads under the order e-mail. */
  messageId?: string;
}

export interface NotificationTarget {
  orderId: string;
  customerId: string;
  /** The customer's order mailbox: notifications come from there, like the acknowledgements. */
  mailbox: string;
  channel: Channel;
  settings: NotifySettings;
  /** Present when the order came by e-mail. */
  mail?: OrderMailOrigin;
}

export interface NewNotification {
  id: string;
  customerId: string;
  orderId: string;
  recipient: string;
  subject: string;
  /** Composed once (RFC 5322 bytes): every attempt sends the same Message-ID and content. */
  raw: Buffer;
}

export interface NotificationStore {
  getNotifySettings(customerId: string): Promise<NotifySettings>;
  /** Replace the customer's setting; `address` null removes the address, undefined keeps it. */
  setNotifySettings(customerId: string, s: { enabled: boolean; address?: string | null }): Promise<NotifySettings>;
  /** What the notifier needs of an order; undefined when there is no such order. */
  notificationTarget(orderId: string): Promise<NotificationTarget | undefined>;
  /** Whether any customer has notifications on (the service makes sure their subscriber exists at start). */
  notificationsInUse(): Promise<boolean>;
  /** Queue a notification in the reply outbox; false when one with this id is already queued (nothing written). */
  queueNotification(n: NewNotification): Promise<boolean>;
}
