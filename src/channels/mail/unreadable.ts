/**
 * A stored message that cannot be read (issue 19, item 7): the parser refuses it (a header of megabytes, a thousand
 * nested multiparts: the same bytes fail the same way every time), or reading it failed MAIL_LIMITS.deriveAttempts
 * times. It is finished with a reply saying it could not be read, instead of staying "received" and being retried
 * at every sweep and start for ever while the sender never hears back.
 *
 * Nothing here may use the parser that failed: the reply's address, subject and loop checks come from a plain scan
 * of the first bytes of the header section.
 */
import type { Headers } from 'mailparser';
import { noReplyReason } from './loops.ts';
import type { ParsedMessage } from './parse.ts';
import { headerMessageId } from './smtp.ts';

/** Header bytes scanned: enough for every header a reply needs, whatever the size of the rest. */
const SCAN_BYTES = 64 * 1024;

/** Why the message was given up, in Italian for the reply; the operator's log carries the technical cause. */
export const UNREADABLE_REASONS = {
  structure: 'la struttura del messaggio supera i limiti del servizio (intestazioni troppo grandi o troppo numerose, oppure troppe parti annidate)',
  attempts: 'la lettura del messaggio non è riuscita dopo ripetuti tentativi',
} as const;

/** The top header section as name → unfolded value (first occurrence), from its first SCAN_BYTES. */
function scanHeaders(raw: Buffer): Map<string, string> {
  const head = raw.subarray(0, SCAN_BYTES).toString('latin1');
  const end = head.indexOf('\r\n\r\n');
  const lines = (end < 0 ? head : head.slice(0, end)).replace(/\r\n[ \t]+/g, ' ').split('\r\n');
  const out = new Map<string, string>();
  for (const line of lines) {
    const m = /^([!-9;-~]{1,76}):\s*(.*)$/.exec(line);
    if (m && !out.has(m[1]!.toLowerCase())) out.set(m[1]!.toLowerCase(), m[2]!.slice(0, 1000));
  }
  return out;
}

function address(v: string | undefined): string | undefined {
  const m = v === undefined ? null : /<([^\s<>@]+@[^\s<>@]+)>|([^\s<>@,;"]+@[^\s<>@,;"]+)/.exec(v);
  const a = m?.[1] ?? m?.[2];
  return a ? a.toLowerCase() : undefined;
}

/** What the reply to an unreadable message needs, in the form composeReply takes. */
export function unreadableMessage(raw: Buffer, envelopeFrom: string | undefined, ownDomain: string, reason: string): ParsedMessage {
  const h = scanHeaders(raw);
  const from = address(h.get('from'));
  const returnPath = envelopeFrom ?? (h.has('return-path') ? (address(h.get('return-path')) ?? '') : undefined);
  const replyTo = address(h.get('reply-to')) ?? from ?? (returnPath || undefined);
  const messageId = headerMessageId(raw.subarray(0, SCAN_BYTES));
  const noReply = noReplyReason({ envelopeFrom: returnPath, headers: h as unknown as Headers, replyTo, ownDomain });
  return {
    messageId,
    // eslint-disable-next-line no-control-regex
    subject: (h.get('subject') ?? '').replace(/[\x00-\x1f\x7f]+/g, ' ').trim().slice(0, 200),
    from, replyTo, noReply,
    references: messageId ? [messageId] : [],
    parts: [], ignored: [],
    problems: [`il messaggio non è stato letto: ${reason}. Nessun ordine è stato registrato; lo invii di nuovo come messaggio semplice con il file d'ordine allegato.`],
  };
}
