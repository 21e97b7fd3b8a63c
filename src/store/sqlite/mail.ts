/**
 * The e-mail channel's tables in the embedded store (migration 003): see the MailStore port in mail.ts. Calls are
 * synchronous underneath, so each method's statements run without interleaving; the ones that must be atomic
 * across several statements are better-sqlite3 transactions taken IMMEDIATE (the CLI may write meanwhile).
 *
 * Claims on messages and replies live in this store object, as the submission claims of sqlite/work.ts do: SQLite
 * serves one service process, so a restarted process (after a crash too) starts with no claim and finishes at once
 * what the previous one left. The reply sender and the IMAP watchers also take named leases (kept in the file), so
 * a second `serve` started on the same file by mistake still does not send or fetch the same mail twice.
 */
import type Database from 'better-sqlite3';
import { alreadyExists, notFound } from '../common/refusals.ts';
import { checkLabel, checkLeaseMs, claimIds } from '../common/work.ts';
import { cleanText, isoIn, limitOf } from '../common/rows.ts';
import {
  checkMailMessage, checkMailPartIdx, checkImapAccount, MAIL_COLUMNS, REPLY_COLUMNS, toImapAccount, toMailMessage, toMailSummary, toReply,
  toReplySummary, type ImapAccountRow, type MailRow, type ReplyRow,
} from '../common/mail-rows.ts';
import type { MailStore, NewMailMessage } from '../../domain/store/mail.ts';
import { statementCache } from './statements.ts';

/**
 * The submissions derived from one message (a part stored before a crash is adopted when the message is derived
 * again). `json_extract(meta, '$.mail_id')` is the expression of the submissions_mail_id index (migration 005):
 * spelled differently, SQLite would scan every submission of the customer since the message arrived.
 */
export const FIND_MAIL_SUBMISSIONS_SQL = `SELECT id, json_extract(meta, '$.mail_part') AS part FROM submissions
  WHERE json_extract(meta, '$.mail_id') = ? AND customer_id = ? AND received_at >= ? ORDER BY received_at, id`;

export function sqliteMail(db: Database.Database, now: () => number = Date.now): MailStore {
  const q = statementCache(db);
  const iso = (ms = 0): string => new Date(now() + ms).toISOString();
  /** Message or reply id → end of its claim (epoch ms). */
  const mailClaims = new Map<string, number>();
  const replyClaims = new Map<string, number>();
  /** Message id → its claim's holder: whose renewals and release count. */
  const mailHolders = new Map<string, string>();
  const setMailClaim = (id: string, until: number, holder = ''): void => {
    mailClaims.set(id, until);
    mailHolders.set(id, holder);
  };
  const dropMailClaim = (id: string): void => {
    mailClaims.delete(id);
    mailHolders.delete(id);
  };
  const isReceived = (id: string): boolean => q(`SELECT 1 FROM mail_messages WHERE id = ? AND state = 'received'`).get(id) !== undefined;
  const held = (claims: Map<string, number>, id: string): boolean => (claims.get(id) ?? 0) > now();
  const prune = (claims: Map<string, number>): void => {
    const at = now();
    for (const [id, until] of claims) if (until <= at) claims.delete(id);
  };

  function insertMail(m: NewMailMessage): number {
    checkMailMessage(m);
    return q(`INSERT INTO mail_messages (id, customer_id, source, envelope_from, recipients, message_id, raw, sha256, remote,
      imap_account_id, imap_uidvalidity, imap_uid, received_at, helo)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`).run(
      m.id, m.customerId, m.source, cleanText(m.envelopeFrom), JSON.stringify(m.recipients), cleanText(m.messageId), m.raw,
      m.sha256, cleanText(m.remote), m.imap?.accountId ?? null, m.imap?.uidValidity ?? null, m.imap?.uid ?? null,
      isoIn(m.receivedAt, 'receivedAt'), cleanText(m.helo),
    ).changes;
  }

  function claimOnSave(list: readonly NewMailMessage[]): void {
    for (const m of list) if (m.claimMs !== undefined) setMailClaim(m.id, now() + checkLeaseMs(m.claimMs, 'claimMs'), m.claimBy);
  }

  const saveAll = db.transaction((list: readonly NewMailMessage[]) => {
    for (const m of list) if (insertMail(m) === 0) throw alreadyExists.mailMessage(m.id);
  });

  const saveImap = db.transaction((m: NewMailMessage & { imap: NonNullable<NewMailMessage['imap']> }): 'stored' | 'known' => {
    const known = q(`SELECT 1 FROM mail_messages WHERE imap_account_id = ? AND
      ((imap_uidvalidity = ? AND imap_uid = ?) OR (? IS NOT NULL AND message_id = ?)) LIMIT 1`)
      .get(m.imap.accountId, m.imap.uidValidity, m.imap.uid, m.messageId ?? null, m.messageId ?? null);
    if (known) return 'known';
    return insertMail(m) === 1 ? 'stored' : 'known';
  });

  const finish = db.transaction((id: string, result: string, reply?: Parameters<MailStore['finishMail']>[2]): boolean => {
    const at = iso();
    const done = q(`UPDATE mail_messages SET state = 'done', done_at = ?, result = ? WHERE id = ? AND state = 'received'`)
      .run(at, result, id).changes;
    dropMailClaim(id);
    if (done === 0) {
      if (!q('SELECT 1 FROM mail_messages WHERE id = ?').get(id)) throw notFound.mailMessage(id);
      return false;
    }
    if (reply) {
      q(`INSERT INTO mail_replies (id, mail_id, customer_id, recipient, subject, raw, next_attempt_at, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(reply.id, reply.mailId, reply.customerId, cleanText(reply.recipient),
        cleanText(reply.subject), reply.raw, at, at);
    }
    return true;
  });

  const claimReplies = db.transaction((leaseMs: number, limit: number) => {
    prune(replyClaims);
    // Claimed rows are skipped after the query, so ask for enough to fill the batch past them.
    const rows = (q(`SELECT ${REPLY_COLUMNS}, raw FROM mail_replies WHERE state = 'pending' AND next_attempt_at <= ?
      ORDER BY next_attempt_at, id LIMIT ?`).all(iso(), limit + replyClaims.size) as ReplyRow[])
      .filter((r) => !replyClaims.has(r.id)).slice(0, limit);
    const upd = q('UPDATE mail_replies SET attempts = attempts + 1 WHERE id = ?');
    for (const r of rows) {
      upd.run(r.id);
      r.attempts = Number(r.attempts) + 1;
      replyClaims.set(r.id, now() + leaseMs);
    }
    return rows.map(toReply);
  });

  const setAccount = db.transaction((a: Parameters<MailStore['setImapAccount']>[0]) => {
    checkImapAccount(a);
    const at = iso();
    const old = q('SELECT host, username, folder FROM imap_accounts WHERE customer_id = ?').get(a.customerId) as
      | { host: string; username: string; folder: string }
      | undefined;
    // Another server, user or folder has its own UIDs: what was seen before says nothing about it.
    const sameBox = old !== undefined && old.host === a.host && old.username === a.username && old.folder === a.folder;
    if (old) {
      q(`UPDATE imap_accounts SET host = ?, port = ?, tls = ?, username = ?, password_enc = ?, folder = ?, processed_folder = ?,
        authserv_id = ?, last_error = NULL, updated_at = ? ${sameBox ? '' : ', uidvalidity = NULL, last_uid = 0, last_checked_at = NULL'}
        WHERE customer_id = ?`).run(a.host, a.port, a.tls ? 1 : 0, a.username, a.passwordEnc, a.folder, a.processedFolder ?? null,
        a.authservId ?? null, at, a.customerId);
    } else {
      q(`INSERT INTO imap_accounts (id, customer_id, host, port, tls, username, password_enc, folder, processed_folder,
        authserv_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(a.id, a.customerId, a.host, a.port,
        a.tls ? 1 : 0, a.username, a.passwordEnc, a.folder, a.processedFolder ?? null, a.authservId ?? null, at, at);
    }
    return toImapAccount(q('SELECT * FROM imap_accounts WHERE customer_id = ?').get(a.customerId) as ImapAccountRow);
  });

  return {
    async saveMailMessages(list) {
      try {
        saveAll.immediate(list);
        claimOnSave(list);
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw notFound.mailCustomer();
        throw e;
      }
    },

    async saveImapMessage(m) {
      const r = saveImap.immediate(m);
      if (r === 'stored') claimOnSave([m]);
      return r;
    },

    async getMailMessage(id) {
      const r = q(`SELECT ${MAIL_COLUMNS}, raw FROM mail_messages WHERE id = ?`).get(id) as MailRow | undefined;
      return r && toMailMessage(r);
    },

    async listMailMessages({ customerId, state, limit }) {
      const where = [customerId === undefined ? '' : 'customer_id = @customerId', state === undefined ? '' : 'state = @state'].filter(Boolean);
      const rows = q(`SELECT ${MAIL_COLUMNS}, length(raw) AS size FROM mail_messages ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY received_at DESC, id DESC LIMIT @limit`)
        .all({ ...(customerId === undefined ? {} : { customerId }), ...(state === undefined ? {} : { state }), limit: limitOf(limit) }) as MailRow[];
      return rows.map(toMailSummary);
    },

    async pendingMailIds(limit) {
      prune(mailClaims);
      const n = limitOf(limit);
      const rows = q(`SELECT id FROM mail_messages WHERE state = 'received' ORDER BY received_at, id LIMIT ?`)
        .all(n + mailClaims.size) as { id: string }[];
      return rows.map((r) => r.id).filter((id) => !mailClaims.has(id)).slice(0, n);
    },

    async claimMail(id, leaseMs, holder) {
      const ttl = checkLeaseMs(leaseMs);
      if (holder !== undefined) checkLabel(holder, 'holder');
      if (held(mailClaims, id) || !isReceived(id)) return false;
      setMailClaim(id, now() + ttl, holder);
      return true;
    },

    async renewMailClaims(holder, ids, leaseMs) {
      checkLabel(holder, 'holder');
      const ttl = checkLeaseMs(leaseMs);
      const kept: string[] = [];
      for (const id of claimIds(ids)) {
        if (mailHolders.get(id) !== holder || !mailClaims.has(id)) continue;
        if (!isReceived(id)) {
          dropMailClaim(id);
          continue;
        }
        mailClaims.set(id, now() + ttl);
        kept.push(id);
      }
      return kept;
    },

    async releaseMailClaims(holder, ids) {
      checkLabel(holder, 'holder');
      let n = 0;
      for (const id of claimIds(ids)) {
        if (mailHolders.get(id) !== holder || !mailClaims.has(id)) continue;
        if (held(mailClaims, id) && isReceived(id)) n++;
        dropMailClaim(id);
      }
      return n;
    },

    async countMailAttempt(id) {
      const r = q('UPDATE mail_messages SET attempts = attempts + 1 WHERE id = ? RETURNING attempts').get(id) as { attempts: number } | undefined;
      if (!r) throw notFound.mailMessage(id);
      return Number(r.attempts);
    },

    async mailParts(mailId) {
      const rows = q('SELECT idx, submission_id FROM mail_parts WHERE mail_id = ? ORDER BY idx').all(mailId) as { idx: number; submission_id: string }[];
      return rows.map((r) => ({ idx: Number(r.idx), submissionId: r.submission_id }));
    },

    async addMailPart(mailId, idx, submissionId) {
      checkMailPartIdx(idx);
      q('INSERT INTO mail_parts (mail_id, idx, submission_id) VALUES (?, ?, ?) ON CONFLICT DO NOTHING').run(mailId, idx, submissionId);
      return (q('SELECT submission_id FROM mail_parts WHERE mail_id = ? AND idx = ?').get(mailId, idx) as { submission_id: string }).submission_id;
    },

    async findMailSubmissions(customerId, mailId, since) {
      const rows = q(FIND_MAIL_SUBMISSIONS_SQL).all(mailId, customerId, isoIn(since, 'since')) as { id: string; part: unknown }[];
      return rows.flatMap((r) => (/^\d+$/.test(String(r.part)) ? [{ idx: Number(r.part), submissionId: r.id }] : []));
    },

    async finishMail(id, result, reply) {
      return finish.immediate(id, JSON.stringify(result), reply);
    },

    async getReply(id) {
      const r = q(`SELECT ${REPLY_COLUMNS}, raw FROM mail_replies WHERE id = ?`).get(id) as ReplyRow | undefined;
      return r && toReply(r);
    },

    async listReplies({ state, customerId, limit }) {
      const where = [state === undefined ? '' : 'state = @state', customerId === undefined ? '' : 'customer_id = @customerId'].filter(Boolean);
      const rows = q(`SELECT ${REPLY_COLUMNS} FROM mail_replies ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at DESC, id DESC LIMIT @limit`)
        .all({ ...(state === undefined ? {} : { state }), ...(customerId === undefined ? {} : { customerId }), limit: limitOf(limit) }) as ReplyRow[];
      return rows.map(toReplySummary);
    },

    async claimDueReplies(leaseMs, limit) {
      return claimReplies.immediate(checkLeaseMs(leaseMs), limitOf(limit));
    },

    async markReplySent(id) {
      q(`UPDATE mail_replies SET state = 'sent', sent_at = ?, last_error = NULL WHERE id = ?`).run(iso(), id);
      replyClaims.delete(id);
    },

    async markReplyFailed(id, error, retryInMs) {
      replyClaims.delete(id);
      if (retryInMs === undefined) {
        q(`UPDATE mail_replies SET state = 'failed', last_error = ? WHERE id = ? AND state = 'pending'`).run(cleanText(error), id);
      } else {
        q(`UPDATE mail_replies SET next_attempt_at = ?, last_error = ? WHERE id = ? AND state = 'pending'`)
          .run(iso(checkLeaseMs(retryInMs, 'retryInMs')), cleanText(error), id);
      }
    },

    async retryReply(id) {
      replyClaims.delete(id);
      return q(`UPDATE mail_replies SET state = 'pending', next_attempt_at = ? WHERE id = ? AND state <> 'sent'`).run(iso(), id).changes === 1;
    },

    async nextReplyDueInMs() {
      prune(replyClaims);
      const rows = q(`SELECT id, next_attempt_at AS due FROM mail_replies WHERE state = 'pending' ORDER BY next_attempt_at LIMIT ?`)
        .all(replyClaims.size + 1) as { id: string; due: string }[];
      const first = rows.map((r) => Math.max(new Date(r.due).getTime(), replyClaims.get(r.id) ?? 0)).sort((a, b) => a - b)[0];
      return first === undefined ? undefined : Math.max(0, first - now());
    },

    async setImapAccount(a) {
      try {
        return setAccount.immediate(a);
      } catch (e) {
        if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw notFound.customer(a.customerId);
        throw e;
      }
    },

    async getImapAccount(customerId) {
      const r = q('SELECT * FROM imap_accounts WHERE customer_id = ?').get(customerId) as ImapAccountRow | undefined;
      return r && toImapAccount(r);
    },

    async listImapAccounts() {
      return (q('SELECT * FROM imap_accounts ORDER BY created_at, id').all() as ImapAccountRow[]).map(toImapAccount);
    },

    async removeImapAccount(customerId) {
      return q('DELETE FROM imap_accounts WHERE customer_id = ?').run(customerId).changes === 1;
    },

    async saveImapState(accountId, s) {
      q(`UPDATE imap_accounts SET uidvalidity = ?, last_uid = ?, last_error = ?, last_checked_at = ? WHERE id = ?`)
        .run(s.uidValidity ?? null, s.lastUid, cleanText(s.lastError), iso(), accountId);
    },
  };
}
