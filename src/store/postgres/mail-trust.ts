/** Senders' policies and held messages on PostgreSQL (migration 036): see the port in mail-trust.ts. */
import type pg from 'pg';
import { pgCode, withTransaction } from './tx.ts';
import { notFound } from '../common/refusals.ts';
import { cleanText, limitOf } from '../common/rows.ts';
import { checkPolicy, HOLD_COLUMNS, holdText, toHold, toPolicy, type HoldRow, type PolicyRow } from '../common/mail-trust-rows.ts';
import { DEFAULT_MAIL_POLICY, type MailTrustStore } from '../../domain/store/mail-trust.ts';

export function postgresMailTrust(pool: pg.Pool): MailTrustStore {
  const store: MailTrustStore = {
    async setMailAuth(mailId, auth) {
      const res = await pool.query('UPDATE mail_messages SET auth = $2 WHERE id = $1', [mailId, JSON.stringify(auth)]);
      if (res.rowCount === 0) throw notFound.mailMessage(mailId);
    },

    async holdMail(h, result, notice) {
      return withTransaction(pool, async (c) => {
        const done = await c.query(
          `UPDATE mail_messages SET state = 'done', done_at = now(), result = $2, claimed_until = NULL, claimed_by = NULL
           WHERE id = $1 AND state = 'received'`,
          [h.mailId, JSON.stringify(result)],
        );
        if (done.rowCount === 0) {
          const { rows } = await c.query('SELECT 1 FROM mail_messages WHERE id = $1', [h.mailId]);
          if (rows.length === 0) throw notFound.mailMessage(h.mailId);
          return false;
        }
        // A message held again (after a retry or a release) has one row: its latest hold.
        await c.query(
          `INSERT INTO mail_holds (mail_id, customer_id, reason, sender, detail, held_at, state) VALUES ($1, $2, $3, $4, $5, now(), 'held')
           ON CONFLICT (mail_id) DO UPDATE SET reason = excluded.reason, sender = excluded.sender, detail = excluded.detail,
             held_at = excluded.held_at, state = 'held', decided_by = NULL, decided_at = NULL`,
          [h.mailId, h.customerId, holdText(h.reason, 100), holdText(h.sender, 320), holdText(h.detail)],
        );
        // The message's one outgoing mail (to the customer, not to the sender): held again after a retry, not sent twice.
        if (notice) {
          await c.query(
            `INSERT INTO mail_replies (id, mail_id, customer_id, recipient, subject, raw, next_attempt_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, now(), now()) ON CONFLICT DO NOTHING`,
            [notice.id, notice.mailId, notice.customerId, cleanText(notice.recipient), cleanText(notice.subject), notice.raw],
          );
        }
        return true;
      });
    },

    async getMailHold(mailId) {
      const { rows } = await pool.query(`SELECT ${HOLD_COLUMNS} FROM mail_holds h JOIN mail_messages m ON m.id = h.mail_id WHERE h.mail_id = $1`, [mailId]);
      const r = rows[0] as HoldRow | undefined;
      return r && toHold(r);
    },

    async listMailHolds({ state, customerId, limit }) {
      const { rows } = await pool.query(
        `SELECT ${HOLD_COLUMNS} FROM mail_holds h JOIN mail_messages m ON m.id = h.mail_id
         WHERE ($1::text IS NULL OR h.state = $1) AND ($2::text IS NULL OR h.customer_id = $2)
         ORDER BY h.held_at DESC, h.mail_id COLLATE "C" DESC LIMIT $3`,
        [state ?? null, customerId ?? null, limitOf(limit)],
      );
      return (rows as HoldRow[]).map(toHold);
    },

    async heldForRetry(reason, before, limit) {
      const { rows } = await pool.query(
        `SELECT mail_id FROM mail_holds WHERE state = 'held' AND reason = $1 AND held_at < $2 ORDER BY held_at LIMIT $3`,
        [reason, before, limitOf(limit)],
      );
      return (rows as { mail_id: string }[]).map((r) => r.mail_id);
    },

    async decideMailHold(mailId, decision, by) {
      return withTransaction(pool, async (c) => {
        const res = await c.query(
          `UPDATE mail_holds SET state = $2, decided_by = $3, decided_at = now() WHERE mail_id = $1 AND state = 'held'`,
          [mailId, decision, holdText(by, 200)],
        );
        if (res.rowCount === 0) return false;
        if (decision !== 'discarded') {
          await c.query(
            `UPDATE mail_messages SET state = 'received', done_at = NULL, result = NULL, attempts = 0, claimed_until = NULL, claimed_by = NULL
             WHERE id = $1`,
            [mailId],
          );
        }
        return true;
      });
    },

    async getMailPolicy(customerId) {
      const { rows } = await pool.query('SELECT mode, allow, notify_held, updated_at FROM customer_mail_policies WHERE customer_id = $1', [customerId]);
      const r = rows[0] as PolicyRow | undefined;
      return r ? toPolicy(r) : { ...DEFAULT_MAIL_POLICY, allow: [] };
    },

    async setMailPolicy(customerId, p) {
      checkPolicy(p);
      await pool.query(
        `INSERT INTO customer_mail_policies (customer_id, mode, allow, notify_held, updated_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (customer_id) DO UPDATE SET mode = excluded.mode, allow = excluded.allow, notify_held = excluded.notify_held,
           updated_at = excluded.updated_at`,
        [customerId, p.mode, JSON.stringify(p.allow), p.notifyHeld],
      ).catch((e: unknown) => {
        if (pgCode(e) === '23503') throw notFound.customer(customerId);
        throw e;
      });
      return store.getMailPolicy(customerId);
    },
  };
  return store;
}
