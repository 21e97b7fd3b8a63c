/** Rows of the notification settings and targets (migration 018), shared by both engines' NotificationStore. */
import type { Channel } from '../../domain/types.ts';
import type { NotificationTarget, NotifySettings } from '../../domain/store/notifications.ts';
import { boolOut, jsonOut, optIsoOut } from './rows.ts';

export interface SettingsRow {
  enabled: unknown;
  address: string | null;
  updated_at: unknown;
}

export interface TargetRow {
  order_id: string;
  customer_id: string;
  mailbox: string;
  channel: string;
  enabled: unknown;
  address: string | null;
  updated_at: unknown;
  mail_id: string | null;
  mail_state: string | null;
  message_id: string | null;
  result: unknown;
  replied_to: string | null;
}

export function toSettings(r: SettingsRow | undefined): NotifySettings {
  if (!r) return { enabled: false };
  const s: NotifySettings = { enabled: boolOut(r.enabled) };
  if (r.address) s.address = r.address;
  const at = optIsoOut(r.updated_at);
  if (at) s.updatedAt = at;
  return s;
}

export function toTarget(r: TargetRow): NotificationTarget {
  const t: NotificationTarget = {
    orderId: r.order_id, customerId: r.customer_id, mailbox: r.mailbox, channel: r.channel as Channel,
    settings: toSettings(r.enabled === null || r.enabled === undefined ? undefined : r),
  };
  if (r.mail_id) {
    const result = r.result === null || r.result === undefined ? undefined : jsonOut<{ noReply?: string }>(r.result);
    t.mail = { mailId: r.mail_id, done: r.mail_state === 'done' };
    if (r.replied_to) t.mail.repliedTo = r.replied_to;
    if (result?.noReply) t.mail.noReply = result.noReply;
    if (r.message_id) t.mail.messageId = r.message_id;
  }
  return t;
}

/**
 * The order, its customer and setting, and the e-mail it came in (through the submission's meta, as the mail
 * pipeline records it: a primary-key lookup each; `mailId` is the engine's expression for meta's mail_id).
 */
export function targetSql(mailId: string, param: string): string {
  return `SELECT o.id AS order_id, o.customer_id, c.mailbox, o.channel, n.enabled, n.address, n.updated_at,
      m.id AS mail_id, m.state AS mail_state, m.message_id, m.result, r.recipient AS replied_to
    FROM orders o
    JOIN customers c ON c.id = o.customer_id
    LEFT JOIN customer_notifications n ON n.customer_id = o.customer_id
    LEFT JOIN submissions s ON s.id = o.submission_id AND o.channel IN ('email', 'imap')
    LEFT JOIN mail_messages m ON m.id = ${mailId}
    LEFT JOIN mail_replies r ON r.mail_id = m.id
    WHERE o.id = ${param}`;
}
