/** Notification settings and the notifications queued in the reply outbox, in the embedded store (migration 018). */
import type Database from 'better-sqlite3';
import { cleanText, nowIso } from '../common/rows.ts';
import { targetSql, toSettings, toTarget, type SettingsRow, type TargetRow } from '../common/notification-rows.ts';
import type { NotificationStore } from '../../domain/store/notifications.ts';
import { statementCache } from './statements.ts';

export function sqliteNotifications(db: Database.Database): NotificationStore {
  const q = statementCache(db);
  const read = (customerId: string) => q('SELECT enabled, address, updated_at FROM customer_notifications WHERE customer_id = ?')
    .get(customerId) as SettingsRow | undefined;
  const set = db.transaction((customerId: string, enabled: boolean, address: string | null | undefined) => {
    q(`INSERT INTO customer_notifications (customer_id, enabled, address, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (customer_id) DO UPDATE SET enabled = excluded.enabled,
        address = CASE WHEN ? THEN excluded.address ELSE customer_notifications.address END, updated_at = excluded.updated_at`)
      .run(customerId, enabled ? 1 : 0, address ?? null, nowIso(), address === undefined ? 0 : 1);
    return read(customerId);
  });
  return {
    async getNotifySettings(customerId) {
      return toSettings(read(customerId));
    },
    async setNotifySettings(customerId, s) {
      return toSettings(set.immediate(customerId, s.enabled, s.address === null ? null : s.address?.toLowerCase()));
    },
    async notificationTarget(orderId) {
      const r = q(targetSql(`json_extract(s.meta, '$.mail_id')`, '?')).get(orderId) as TargetRow | undefined;
      return r && toTarget(r);
    },
    async notificationsInUse() {
      return q('SELECT 1 FROM customer_notifications WHERE enabled = 1 LIMIT 1').get() !== undefined;
    },
    async queueNotification(n) {
      const at = nowIso();
      return q(`INSERT INTO mail_replies (id, mail_id, kind, order_id, customer_id, recipient, subject, raw, next_attempt_at, created_at)
        VALUES (?, NULL, 'notification', ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`)
        .run(n.id, n.orderId, n.customerId, cleanText(n.recipient), cleanText(n.subject), n.raw, at, at).changes === 1;
    },
  };
}
