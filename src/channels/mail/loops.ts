/**
 * When the service must not reply (RFC 3834 and what mail robots actually send): bounces, automatic messages,
 * list mail, PEC receipts, and mail from robots' addresses. Two robots answering each other would loop for ever;
 * the orders in such a message are still processed, only the reply is held back.
 */
import type { Headers } from 'mailparser';

export interface LoopFacts {
  /** SMTP MAIL FROM ('' = null sender); undefined when not known. */
  envelopeFrom?: string;
  headers: Headers;
  /** Where the reply would go. */
  replyTo?: string;
  /** The service's own mail domain: its replies come from there. */
  ownDomain: string;
}

/** Local parts that robots use (RFC 3834 section 2, and list managers). */
const ROBOT = /^(mailer-daemon|listserv|majordomo|owner-.+|.+-request|.+-bounces?)@/i;

function headerText(headers: Headers, name: string): string | undefined {
  const v = headers.get(name);
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && v !== null && 'value' in v && typeof v.value === 'string') return v.value;
  return String(v);
}

/** Why no reply may be sent, in words for the operator; undefined when a reply is due. */
export function noReplyReason(f: LoopFacts): string | undefined {
  if (f.envelopeFrom === '') return 'bounce or notification (null sender <>)';
  const auto = headerText(f.headers, 'auto-submitted')?.split(';')[0]?.trim().toLowerCase();
  if (auto && auto !== 'no') return `automatic message (Auto-Submitted: ${auto})`;
  const precedence = headerText(f.headers, 'precedence')?.trim().toLowerCase();
  if (precedence && ['bulk', 'list', 'junk'].includes(precedence)) return `list or bulk mail (Precedence: ${precedence})`;
  // mailparser gathers the List-* headers under one key, 'list'.
  if (f.headers.has('list') || f.headers.has('list-id') || f.headers.has('list-unsubscribe')) return 'mailing-list message (List-Id / List-Unsubscribe)';
  const suppress = headerText(f.headers, 'x-auto-response-suppress')?.toLowerCase() ?? '';
  if (/\b(all|autoreply)\b/.test(suppress)) return 'the sender asked for no automatic replies (X-Auto-Response-Suppress)';
  if (f.headers.has('x-ricevuta')) return 'PEC receipt (X-Ricevuta)';
  const type = headerText(f.headers, 'content-type')?.toLowerCase() ?? '';
  if (type.startsWith('multipart/report')) return 'delivery or read report (multipart/report)';
  if (!f.replyTo) return 'no address to reply to';
  const domain = f.replyTo.split('@')[1] ?? '';
  if (domain === f.ownDomain || domain.endsWith(`.${f.ownDomain}`)) return 'the sender is the service itself';
  if (ROBOT.test(f.replyTo)) return `the sender is a mail robot (${f.replyTo})`;
  return undefined;
}
