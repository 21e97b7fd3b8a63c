/** Senders' policies and held messages in the embedded store (migration 036): see the port in mail-trust.ts. */
import type Database from 'better-sqlite3';
import { notFound } from '../common/refusals.ts';
import { cleanText, limitOf } from '../common/rows.ts';
import { checkPolicy, HOLD_COLUMNS, holdText, toHold, toPolicy, type HoldRow, type PolicyRow } from '../common/mail-trust-rows.ts';
import { DEFAULT_MAIL_POLICY, type MailTrustStore } from '../../domain/store/mail-trust.ts';
import { statementCache } from './statements.ts';

export function sqliteMailTrust(db: Database.Database, now: () => number = Date.now): MailTrustStore {
  const q = statementCache(db);
  const policyOf = (customerId: string) => {
    const r = q('SELECT mode, allow, notify_held, updated_at FROM customer_mail_policies WHERE customer_id = ?').get(customerId) as PolicyRow | undefined;
    return r ? toPolicy(r) : { ...DEFAULT_MAIL_POLICY, allow: [] };
  };
  const iso = (): string => new Date(now()).toISOString();

  const hold = db.transaction((h: Parameters<MailTrustStore['holdMail']>[0], result: string, notice?: Parameters<MailTrustStore['holdMail']>[2]): boolean => {
    const at = iso();
    const done = q(`UPDATE mail_messages SET state = 'done', done_at = ?, result = ? WHERE id = ? AND state = 'received'`)
      .run(at, result, h.mailId).changes;
    if (done === 0) {
      if (!q('SELECT 1 FROM mail_messages WHERE id = ?').get(h.mailId)) throw notFound.mailMessage(h.mailId);
      return false;
    }
    // A message held again (after a retry or a release) has one row: its latest hold.
    q(`INSERT INTO mail_holds (mail_id, customer_id, reason, sender, detail, held_at, state) VALUES (?, ?, ?, ?, ?, ?, 'held')
      ON CONFLICT (mail_id) DO UPDATE SET reason = excluded.reason, sender = excluded.sender, detail = excluded.detail,
        held_at = excluded.held_at, state = 'held', decided_by = NULL, decided_at = NULL`)
      .run(h.mailId, h.customerId, holdText(h.reason, 100), holdText(h.sender, 320), holdText(h.detail), at);
    // The message's one outgoing mail (to the customer, not to the sender): held again after a retry, not sent twice.
    if (notice) {
      q(`INSERT INTO mail_replies (id, mail_id, customer_id, recipient, subject, raw, next_attempt_at, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`).run(notice.id, notice.mailId, notice.customerId,
        cleanText(notice.recipient), cleanText(notice.subject), notice.raw, at, at);
    }
    return true;
  });

  const decide = db.transaction((mailId: string, decision: string, by: string): boolean => {
    const n = q(`UPDATE mail_holds SET state = ?, decided_by = ?, decided_at = ? WHERE mail_id = ? AND state = 'held'`)
      .run(decision, holdText(by, 200), iso(), mailId).changes;
    if (n === 0) return false;
    if (decision !== 'discarded') {
      q(`UPDATE mail_messages SET state = 'received', done_at = NULL, result = NULL, attempts = 0 WHERE id = ?`).run(mailId);
    }
    return true;
  });

  return {
    async setMailAuth(mailId, auth) {
      const n = q('UPDATE mail_messages SET auth = ? WHERE id = ?').run(JSON.stringify(auth), mailId).changes;
      if (n === 0) throw notFound.mailMessage(mailId);
    },

    async holdMail(h, result, notice) {
      return hold.immediate(h, JSON.stringify(result), notice);
    },

    async getMailHold(mailId) {
      const r = q(`SELECT ${HOLD_COLUMNS} FROM mail_holds h JOIN mail_messages m ON m.id = h.mail_id WHERE h.mail_id = ?`).get(mailId) as HoldRow | undefined;
      return r && toHold(r);
    },

    async listMailHolds({ state, customerId, limit }) {
      const where = [state === undefined ? '' : 'h.state = @state', customerId === undefined ? '' : 'h.customer_id = @customerId'].filter(Boolean);
      const rows = q(`SELECT ${HOLD_COLUMNS} FROM mail_holds h JOIN mail_messages m ON m.id = h.mail_id
        ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY h.held_at DESC, h.mail_id DESC LIMIT @limit`)
        .all({ ...(state === undefined ? {} : { state }), ...(customerId === undefined ? {} : { customerId }), limit: limitOf(limit) }) as HoldRow[];
      return rows.map(toHold);
    },

    async heldForRetry(reason, before, limit) {
      const rows = q(`SELECT mail_id FROM mail_holds WHERE state = 'held' AND reason = ? AND held_at < ? ORDER BY held_at LIMIT ?`)
        .all(reason, before, limitOf(limit)) as { mail_id: string }[];
      return rows.map((r) => r.mail_id);
    },

    async decideMailHold(mailId, decision, by) {
      return decide.immediate(mailId, decision, by);
    },

    async getMailPolicy(customerId) {
      return policyOf(customerId);
    },

    async setMailPolicy(customerId, p) {
      checkPolicy(p);
      if (!q('SELECT 1 FROM customers WHERE id = ?').get(customerId)) throw notFound.customer(customerId);
      q(`INSERT INTO customer_mail_policies (customer_id, mode, allow, notify_held, updated_at) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (customer_id) DO UPDATE SET mode = excluded.mode, allow = excluded.allow, notify_held = excluded.notify_held,
          updated_at = excluded.updated_at`).run(customerId, p.mode, JSON.stringify(p.allow), p.notifyHeld ? 1 : 0, iso());
      return policyOf(customerId);
    },
  };
}
