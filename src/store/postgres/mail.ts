/**
 * The e-mail channel's tables on PostgreSQL (migration 003): see the MailStore port in mail.ts. Claims on messages
 * and replies are single conditional UPDATEs (replies with `FOR UPDATE SKIP LOCKED`, so senders on several
 * instances take different rows), and every time is the database's `now()`, so instances whose clocks disagree
 * still agree on when a claim has run out.
 */
import type pg from 'pg';
import type { PoolClient } from 'pg';
import { pgCode, withTransaction } from './tx.ts';
import { alreadyExists, notFound } from '../common/refusals.ts';
import { checkLabel, checkLeaseMs, claimIds } from '../common/work.ts';
import { cleanText, isoIn, limitOf } from '../common/rows.ts';
import {
  checkImapAccount, checkMailMessage, checkMailPartIdx, MAIL_COLUMNS, REPLY_COLUMNS, toImapAccount, toMailMessage, toMailSummary, toReply,
  toReplySummary, type ImapAccountRow, type MailRow, type ReplyRow,
} from '../common/mail-rows.ts';
import type { MailStore, NewMailMessage } from '../../domain/store/mail.ts';

const after = (param: string): string => `now() + ${param}::bigint * interval '1 millisecond'`;

/**
 * The submissions derived from one message (a part stored before a crash is adopted when the message is derived
 * again). `meta->>'mail_id'` is the expression of the submissions_mail_id index (migration 005).
 */
export const FIND_MAIL_SUBMISSIONS_SQL = `SELECT id, meta->>'mail_part' AS part FROM submissions
  WHERE meta->>'mail_id' = $1 AND customer_id = $2 AND received_at >= $3 ORDER BY received_at, id COLLATE "C"`;

export function postgresMail(pool: pg.Pool): MailStore {
  const tx = <T>(fn: (c: PoolClient) => Promise<T>): Promise<T> => withTransaction(pool, fn);


  async function insertMail(c: PoolClient | pg.Pool, m: NewMailMessage, onConflict: 'nothing' | 'fail'): Promise<number> {
    checkMailMessage(m);
    const res = await c.query(
      `INSERT INTO mail_messages (id, customer_id, source, envelope_from, recipients, message_id, raw, sha256, remote,
         imap_account_id, imap_uidvalidity, imap_uid, received_at, claimed_until, claimed_by, helo)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $14::bigint IS NULL THEN NULL ELSE ${after('$14')} END,
         CASE WHEN $14::bigint IS NULL THEN NULL ELSE $15 END, $16)
       ${onConflict === 'nothing' ? 'ON CONFLICT DO NOTHING' : ''}`,
      [m.id, m.customerId, m.source, cleanText(m.envelopeFrom), JSON.stringify(m.recipients), cleanText(m.messageId), m.raw,
        m.sha256, cleanText(m.remote), m.imap?.accountId ?? null, m.imap?.uidValidity ?? null, m.imap?.uid ?? null,
        isoIn(m.receivedAt, 'receivedAt'), m.claimMs === undefined ? null : checkLeaseMs(m.claimMs, 'claimMs'),
        m.claimBy === undefined ? null : checkLabel(m.claimBy, 'holder'), cleanText(m.helo)],
    );
    return res.rowCount ?? 0;
  }

  return {
    async saveMailMessages(list) {
      // Committed with synchronous_commit on (PostgreSQL's default): durable when this resolves.
      try {
        await tx(async (c) => {
          for (const m of list) await insertMail(c, m, 'fail');
        });
      } catch (e) {
        if (pgCode(e) === '23503') throw notFound.mailCustomer();
        if (pgCode(e) === '23505') throw alreadyExists.mailMessageOrUid();
        throw e;
      }
    },

    async saveImapMessage(m) {
      return tx(async (c) => {
        const { rows } = await c.query(
          `SELECT 1 FROM mail_messages WHERE imap_account_id = $1 AND
             ((imap_uidvalidity = $2 AND imap_uid = $3) OR ($4::text IS NOT NULL AND message_id = $4)) LIMIT 1`,
          [m.imap.accountId, m.imap.uidValidity, m.imap.uid, m.messageId ?? null],
        );
        if (rows.length > 0) return 'known';
        return (await insertMail(c, m, 'nothing')) === 1 ? 'stored' : 'known';
      });
    },

    async getMailMessage(id) {
      const { rows } = await pool.query(`SELECT ${MAIL_COLUMNS}, raw FROM mail_messages WHERE id = $1`, [id]);
      const r = rows[0] as MailRow | undefined;
      return r && toMailMessage(r);
    },

    async listMailMessages({ customerId, state, limit }) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (customerId !== undefined) where.push(`customer_id = $${params.push(customerId)}`);
      if (state !== undefined) where.push(`state = $${params.push(state)}`);
      const { rows } = await pool.query(
        `SELECT ${MAIL_COLUMNS}, octet_length(raw) AS size FROM mail_messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY received_at DESC, id COLLATE "C" DESC LIMIT $${params.push(limitOf(limit))}`,
        params,
      );
      return (rows as MailRow[]).map(toMailSummary);
    },

    async pendingMailIds(limit) {
      const { rows } = await pool.query(
        `SELECT id FROM mail_messages WHERE state = 'received' AND (claimed_until IS NULL OR claimed_until <= now())
         ORDER BY received_at, id COLLATE "C" LIMIT $1`,
        [limitOf(limit)],
      );
      return (rows as { id: string }[]).map((r) => r.id);
    },

    async claimMail(id, leaseMs, holder) {
      const res = await pool.query(
        `UPDATE mail_messages SET claimed_until = ${after('$2')}, claimed_by = $3 WHERE id = $1 AND state = 'received'
           AND (claimed_until IS NULL OR claimed_until <= now())`,
        [id, checkLeaseMs(leaseMs), holder === undefined ? null : checkLabel(holder, 'holder')],
      );
      return res.rowCount === 1;
    },

    async renewMailClaims(holder, ids, leaseMs) {
      const list = claimIds(ids);
      if (list.length === 0) return [];
      const { rows } = await pool.query<{ id: string }>(
        `UPDATE mail_messages SET claimed_until = ${after('$3')}
         WHERE id = ANY($1::text[]) AND claimed_by = $2 AND state = 'received' RETURNING id`,
        [list, checkLabel(holder, 'holder'), checkLeaseMs(leaseMs)],
      );
      const kept = new Set(rows.map((r) => r.id));
      return list.filter((id) => kept.has(id));
    },

    async releaseMailClaims(holder, ids) {
      const list = claimIds(ids);
      if (list.length === 0) return 0;
      const res = await pool.query(
        `UPDATE mail_messages SET claimed_until = NULL, claimed_by = NULL
         WHERE id = ANY($1::text[]) AND claimed_by = $2 AND state = 'received'`,
        [list, checkLabel(holder, 'holder')],
      );
      return res.rowCount ?? 0;
    },

    async countMailAttempt(id) {
      const { rows } = await pool.query('UPDATE mail_messages SET attempts = attempts + 1 WHERE id = $1 RETURNING attempts', [id]);
      if (rows.length === 0) throw notFound.mailMessage(id);
      return Number((rows[0] as { attempts: number }).attempts);
    },

    async mailParts(mailId) {
      const { rows } = await pool.query('SELECT idx, submission_id FROM mail_parts WHERE mail_id = $1 ORDER BY idx', [mailId]);
      return (rows as { idx: number; submission_id: string }[]).map((r) => ({ idx: Number(r.idx), submissionId: r.submission_id }));
    },

    async addMailPart(mailId, idx, submissionId) {
      checkMailPartIdx(idx);
      await pool.query('INSERT INTO mail_parts (mail_id, idx, submission_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [mailId, idx, submissionId]);
      const { rows } = await pool.query('SELECT submission_id FROM mail_parts WHERE mail_id = $1 AND idx = $2', [mailId, idx]);
      return (rows[0] as { submission_id: string }).submission_id;
    },

    async findMailSubmissions(customerId, mailId, since) {
      const { rows } = await pool.query(FIND_MAIL_SUBMISSIONS_SQL, [mailId, customerId, isoIn(since, 'since')]);
      return (rows as { id: string; part: string | null }[])
        .flatMap((r) => (/^\d+$/.test(String(r.part)) ? [{ idx: Number(r.part), submissionId: r.id }] : []));
    },

    async finishMail(id, result, reply) {
      return tx(async (c) => {
        const done = await c.query(
          `UPDATE mail_messages SET state = 'done', done_at = now(), result = $2, claimed_until = NULL, claimed_by = NULL
           WHERE id = $1 AND state = 'received'`,
          [id, JSON.stringify(result)],
        );
        if (done.rowCount === 0) {
          const { rows } = await c.query('SELECT 1 FROM mail_messages WHERE id = $1', [id]);
          if (rows.length === 0) throw notFound.mailMessage(id);
          return false;
        }
        if (reply) {
          await c.query(
            `INSERT INTO mail_replies (id, mail_id, customer_id, recipient, subject, raw, next_attempt_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, now(), now())`,
            [reply.id, reply.mailId, reply.customerId, cleanText(reply.recipient), cleanText(reply.subject), reply.raw],
          );
        }
        return true;
      });
    },

    async getReply(id) {
      const { rows } = await pool.query(`SELECT ${REPLY_COLUMNS}, raw FROM mail_replies WHERE id = $1`, [id]);
      const r = rows[0] as ReplyRow | undefined;
      return r && toReply(r);
    },

    async listReplies({ state, customerId, limit }) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (state !== undefined) where.push(`state = $${params.push(state)}`);
      if (customerId !== undefined) where.push(`customer_id = $${params.push(customerId)}`);
      const { rows } = await pool.query(
        `SELECT ${REPLY_COLUMNS} FROM mail_replies ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $${params.push(limitOf(limit))}`,
        params,
      );
      return (rows as ReplyRow[]).map(toReplySummary);
    },

    async claimDueReplies(leaseMs, limit, holder) {
      const { rows } = await pool.query(
        `WITH due AS (
           SELECT id FROM mail_replies WHERE state = 'pending' AND next_attempt_at <= now()
           ORDER BY next_attempt_at, id COLLATE "C" LIMIT $2 FOR UPDATE SKIP LOCKED
         )
         UPDATE mail_replies r SET next_attempt_at = ${after('$1')}, attempts = r.attempts + 1, claimed_by = $3
         FROM due WHERE r.id = due.id
         RETURNING r.id, r.mail_id, r.customer_id, r.recipient, r.subject, r.state, r.attempts, r.next_attempt_at,
           r.last_error, r.created_at, r.sent_at, r.raw`,
        [checkLeaseMs(leaseMs), limitOf(limit), holder === undefined ? null : checkLabel(holder, 'holder')],
      );
      // RETURNING follows no order; the caller is promised the oldest first.
      return (rows as ReplyRow[]).map(toReply).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || (a.id < b.id ? -1 : 1));
    },

    async markReplySent(id) {
      await pool.query(`UPDATE mail_replies SET state = 'sent', sent_at = now(), last_error = NULL, claimed_by = NULL WHERE id = $1`, [id]);
    },

    async markReplyFailed(id, error, retryInMs) {
      if (retryInMs === undefined) {
        await pool.query(`UPDATE mail_replies SET state = 'failed', last_error = $2, claimed_by = NULL WHERE id = $1 AND state = 'pending'`, [id, cleanText(error)]);
      } else {
        await pool.query(
          `UPDATE mail_replies SET next_attempt_at = ${after('$3')}, last_error = $2, claimed_by = NULL WHERE id = $1 AND state = 'pending'`,
          [id, cleanText(error), checkLeaseMs(retryInMs, 'retryInMs')],
        );
      }
    },

    async retryReply(id) {
      const res = await pool.query(`UPDATE mail_replies SET state = 'pending', next_attempt_at = now(), claimed_by = NULL WHERE id = $1 AND state <> 'sent'`, [id]);
      return res.rowCount === 1;
    },

    async nextReplyDueInMs() {
      const { rows } = await pool.query(
        // greatest() skips NULL, so the empty case (min is NULL) is kept apart explicitly.
        `SELECT CASE WHEN min(next_attempt_at) IS NULL THEN NULL
           ELSE greatest(0, floor(extract(epoch FROM (min(next_attempt_at) - now())) * 1000))::bigint END AS ms
         FROM mail_replies WHERE state = 'pending'`,
      );
      const ms = (rows[0] as { ms: string | null } | undefined)?.ms;
      return ms === null || ms === undefined ? undefined : Number(ms);
    },

    async setImapAccount(a) {
      checkImapAccount(a);
      return tx(async (c) => {
        const { rows: [old] } = await c.query('SELECT host, username, folder FROM imap_accounts WHERE customer_id = $1 FOR UPDATE', [a.customerId]);
        const prev = old as { host: string; username: string; folder: string } | undefined;
        // Another server, user or folder has its own UIDs: what was seen before says nothing about it.
        const sameBox = prev !== undefined && prev.host === a.host && prev.username === a.username && prev.folder === a.folder;
        const params = [a.customerId, a.host, a.port, a.tls, a.username, a.passwordEnc, a.folder, a.processedFolder ?? null, a.authservId ?? null];
        if (prev) {
          await c.query(
            `UPDATE imap_accounts SET host = $2, port = $3, tls = $4, username = $5, password_enc = $6, folder = $7,
               processed_folder = $8, authserv_id = $9, last_error = NULL, updated_at = now()
               ${sameBox ? '' : ', uidvalidity = NULL, last_uid = 0, last_checked_at = NULL'}
             WHERE customer_id = $1`,
            params,
          );
        } else {
          await c.query(
            `INSERT INTO imap_accounts (customer_id, host, port, tls, username, password_enc, folder, processed_folder, authserv_id,
               id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now(), now())`,
            [...params, a.id],
          );
        }
        const { rows } = await c.query('SELECT * FROM imap_accounts WHERE customer_id = $1', [a.customerId]);
        return toImapAccount(rows[0] as ImapAccountRow);
      }).catch((e: unknown) => {
        if (pgCode(e) === '23503') throw notFound.customer(a.customerId);
        throw e;
      });
    },

    async getImapAccount(customerId) {
      const { rows } = await pool.query('SELECT * FROM imap_accounts WHERE customer_id = $1', [customerId]);
      const r = rows[0] as ImapAccountRow | undefined;
      return r && toImapAccount(r);
    },

    async listImapAccounts() {
      const { rows } = await pool.query('SELECT * FROM imap_accounts ORDER BY created_at, id COLLATE "C"');
      return (rows as ImapAccountRow[]).map(toImapAccount);
    },

    async removeImapAccount(customerId) {
      const res = await pool.query('DELETE FROM imap_accounts WHERE customer_id = $1', [customerId]);
      return res.rowCount === 1;
    },

    async saveImapState(accountId, s) {
      await pool.query(
        'UPDATE imap_accounts SET uidvalidity = $2, last_uid = $3, last_error = $4, last_checked_at = now() WHERE id = $1',
        [accountId, s.uidValidity ?? null, s.lastUid, cleanText(s.lastError)],
      );
    },
  };
}
