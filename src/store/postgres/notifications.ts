/** Notification settings and the notifications queued in the reply outbox, on PostgreSQL (migration 018). */
import type pg from 'pg';
import { cleanText } from '../common/rows.ts';
import { targetSql, toSettings, toTarget, type SettingsRow, type TargetRow } from '../common/notification-rows.ts';
import type { NotificationStore } from '../../domain/store/notifications.ts';

export function postgresNotifications(pool: pg.Pool): NotificationStore {
  return {
    async getNotifySettings(customerId) {
      const { rows } = await pool.query('SELECT enabled, address, updated_at FROM customer_notifications WHERE customer_id = $1', [customerId]);
      return toSettings(rows[0] as SettingsRow | undefined);
    },
    async setNotifySettings(customerId, s) {
      const address = s.address === null ? null : s.address?.toLowerCase();
      const { rows } = await pool.query(
        `INSERT INTO customer_notifications (customer_id, enabled, address, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (customer_id) DO UPDATE SET enabled = excluded.enabled,
           address = CASE WHEN $4 THEN excluded.address ELSE customer_notifications.address END, updated_at = excluded.updated_at
         RETURNING enabled, address, updated_at`,
        [customerId, s.enabled, address ?? null, s.address !== undefined],
      );
      return toSettings(rows[0] as SettingsRow);
    },
    async notificationTarget(orderId) {
      const { rows } = await pool.query(targetSql(`s.meta->>'mail_id'`, '$1'), [orderId]);
      const r = rows[0] as TargetRow | undefined;
      return r && toTarget(r);
    },
    async notificationsInUse() {
      return (await pool.query('SELECT 1 FROM customer_notifications WHERE enabled LIMIT 1')).rows.length > 0;
    },
    async queueNotification(n) {
      const res = await pool.query(
        `INSERT INTO mail_replies (id, mail_id, kind, order_id, customer_id, recipient, subject, raw, next_attempt_at, created_at)
         VALUES ($1, NULL, 'notification', $2, $3, $4, $5, $6, now(), now()) ON CONFLICT (id) DO NOTHING`,
        [n.id, n.orderId, n.customerId, cleanText(n.recipient), cleanText(n.subject), n.raw],
      );
      return res.rowCount === 1;
    },
  };
}
