/**
 * What the SQLite and PostgreSQL mail stores share: rows into the port's objects (either engine's column types),
 * and the guards that make both refuse the same bad input with the same message.
 */
import { withoutUndefined } from '../../domain/objects.ts';
import { IntakeError } from '../../domain/errors.ts';
import { boolOut, isoOut, jsonOut, optIsoOut } from './rows.ts';
import { invalid } from './refusals.ts';
import type {
  ImapAccount, MailMessage, MailMessageSummary, MailReply, MailReplySummary, MailResult, MailSource, MailState,
  NewImapAccount, NewMailMessage, ReplyState,
} from '../../domain/store/mail.ts';
import type { MailAuth } from '../../domain/store/mail-trust.ts';

export const MAIL_COLUMNS = `id, customer_id, source, envelope_from, recipients, message_id, sha256, remote, imap_account_id,
  imap_uidvalidity, imap_uid, received_at, state, done_at, result, attempts, helo, auth`;

export const REPLY_COLUMNS = `id, mail_id, customer_id, recipient, subject, state, attempts, next_attempt_at, last_error,
  created_at, sent_at, kind, order_id`;

/** IMAP UIDs and UIDVALIDITY are unsigned 32-bit numbers (RFC 3501 2.3.1.1). */
const MAX_UID = 2 ** 32 - 1;

function opt<T>(v: T | null | undefined): T | undefined {
  return v === null || v === undefined ? undefined : v;
}

/** addMailPart's index of an order within its mail. */
export function checkMailPartIdx(idx: number): void {
  if (!Number.isInteger(idx) || idx < 0) throw invalid.mailPartIdx();
}

export function checkMailMessage(m: NewMailMessage): void {
  if (m.source !== 'smtp' && m.source !== 'imap') throw new IntakeError('VALIDATION', `mail source must be smtp or imap, got ${String(m.source)}`);
  if (!Buffer.isBuffer(m.raw)) throw new IntakeError('VALIDATION', 'mail raw must be bytes');
  if (!Array.isArray(m.recipients) || m.recipients.some((r) => typeof r !== 'string')) {
    throw new IntakeError('VALIDATION', 'mail recipients must be a list of addresses');
  }
  if (m.helo !== undefined && (typeof m.helo !== 'string' || m.helo.length > 255)) throw new IntakeError('VALIDATION', 'HELO name must be at most 255 characters');
  if (m.imap) {
    const { uid, uidValidity } = m.imap;
    if (!Number.isInteger(uid) || uid < 1 || uid > MAX_UID) throw new IntakeError('VALIDATION', `IMAP UID must be 1 to ${MAX_UID}`);
    if (!/^\d{1,10}$/.test(uidValidity) || Number(uidValidity) > MAX_UID) throw new IntakeError('VALIDATION', 'IMAP UIDVALIDITY must be a 32-bit number as text');
  }
}

export function checkImapAccount(a: NewImapAccount): void {
  const problems: string[] = [];
  if (typeof a.host !== 'string' || a.host.trim() === '' || a.host.length > 255) problems.push('host must be a host name');
  if (!Number.isInteger(a.port) || a.port < 1 || a.port > 65535) problems.push('port must be 1 to 65535');
  if (typeof a.username !== 'string' || a.username === '' || a.username.length > 320) problems.push('user must be 1 to 320 characters');
  if (typeof a.passwordEnc !== 'string' || !a.passwordEnc.startsWith('v1:')) problems.push('the password must be sealed (v1:…)');
  if (typeof a.folder !== 'string' || a.folder === '' || a.folder.length > 200) problems.push('folder must be 1 to 200 characters');
  if (a.processedFolder !== undefined && (a.processedFolder === '' || a.processedFolder.length > 200 || a.processedFolder === a.folder)) {
    problems.push('the processed folder must be 1 to 200 characters and differ from the watched folder');
  }
  // An authserv-id is a token (RFC 8601 2.2: a host name as a rule), compared whole.
  if (a.authservId !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/.test(a.authservId)) problems.push('the authserv-id must be a host name');
  for (const v of [a.host, a.username, a.folder, a.processedFolder]) {
    if (typeof v === 'string' && /[\0\r\n]/.test(v)) problems.push('no field may hold NUL or line breaks');
  }
  if (problems.length) throw new IntakeError('VALIDATION', problems);
}

export interface MailRow {
  id: string; customer_id: string; source: string; envelope_from: string | null; recipients: unknown; message_id: string | null;
  sha256: string; remote: string | null; imap_account_id: string | null; imap_uidvalidity: string | null;
  imap_uid: unknown; received_at: unknown; state: string; done_at: unknown; result: unknown; raw?: Buffer; size?: unknown;
  attempts?: unknown; helo?: string | null; auth?: unknown;
}

function mailBase(r: MailRow): Omit<MailMessage, 'raw'> {
  return withoutUndefined<Omit<MailMessage, 'raw'>>({
    id: r.id,
    customerId: r.customer_id,
    source: r.source as MailSource,
    envelopeFrom: opt(r.envelope_from),
    recipients: jsonOut<string[]>(r.recipients ?? '[]'),
    messageId: opt(r.message_id),
    sha256: r.sha256,
    remote: opt(r.remote),
    imap: r.imap_account_id === null || r.imap_uidvalidity === null
      ? undefined
      : { accountId: r.imap_account_id, uidValidity: r.imap_uidvalidity, uid: Number(r.imap_uid) },
    receivedAt: isoOut(r.received_at),
    state: r.state as MailState,
    doneAt: optIsoOut(r.done_at),
    result: r.result === null || r.result === undefined ? undefined : jsonOut<MailResult>(r.result),
    attempts: Number(r.attempts ?? 0),
    helo: opt(r.helo),
    auth: r.auth === null || r.auth === undefined ? undefined : jsonOut<MailAuth>(r.auth),
  });
}

export function toMailMessage(r: MailRow): MailMessage {
  const raw = r.raw ?? Buffer.alloc(0);
  return { ...mailBase(r), raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw) };
}

export function toMailSummary(r: MailRow): MailMessageSummary {
  return { ...mailBase(r), size: Number(r.size ?? 0) };
}

export interface ReplyRow {
  id: string; mail_id: string | null; customer_id: string; recipient: string; subject: string; state: string; attempts: unknown;
  next_attempt_at: unknown; last_error: string | null; created_at: unknown; sent_at: unknown; kind: string; order_id: string | null;
  raw?: Buffer;
}

export function toReplySummary(r: ReplyRow): MailReplySummary {
  return withoutUndefined<MailReplySummary>({
    id: r.id,
    mailId: opt(r.mail_id),
    kind: r.kind === 'notification' ? 'notification' : 'reply',
    orderId: opt(r.order_id),
    customerId: r.customer_id,
    recipient: r.recipient,
    subject: r.subject,
    state: r.state as ReplyState,
    attempts: Number(r.attempts),
    nextAttemptAt: isoOut(r.next_attempt_at),
    lastError: opt(r.last_error),
    createdAt: isoOut(r.created_at),
    sentAt: optIsoOut(r.sent_at),
  });
}

export function toReply(r: ReplyRow): MailReply {
  const raw = r.raw ?? Buffer.alloc(0);
  return { ...toReplySummary(r), raw: Buffer.isBuffer(raw) ? raw : Buffer.from(raw) };
}

export interface ImapAccountRow {
  id: string; customer_id: string; host: string; port: unknown; tls: unknown; username: string; password_enc: string;
  folder: string; processed_folder: string | null; uidvalidity: string | null; last_uid: unknown; last_error: string | null;
  last_checked_at: unknown; created_at: unknown; updated_at: unknown; authserv_id?: string | null;
}

export function toImapAccount(r: ImapAccountRow): ImapAccount {
  return withoutUndefined<ImapAccount>({
    id: r.id,
    customerId: r.customer_id,
    host: r.host,
    port: Number(r.port),
    tls: boolOut(r.tls),
    username: r.username,
    passwordEnc: r.password_enc,
    folder: r.folder,
    processedFolder: opt(r.processed_folder),
    authservId: opt(r.authserv_id),
    uidValidity: opt(r.uidvalidity),
    lastUid: Number(r.last_uid),
    lastError: opt(r.last_error),
    lastCheckedAt: optIsoOut(r.last_checked_at),
    createdAt: isoOut(r.created_at),
    updatedAt: isoOut(r.updated_at),
  });
}
