/** What the SQLite and PostgreSQL mail-trust stores share: rows into the port's objects, and the input guards. */
import { withoutUndefined } from '../../domain/objects.ts';
import { IntakeError } from '../../domain/errors.ts';
import { boolOut, isoOut, jsonOut, optIsoOut } from './rows.ts';
import { ALLOW_ENTRY, type HoldState, type MailAuth, type MailHold, type MailPolicy, type MailPolicyMode } from '../../domain/store/mail-trust.ts';

export const HOLD_COLUMNS = 'h.mail_id, h.customer_id, h.reason, h.sender, h.detail, h.held_at, h.state, h.decided_by, h.decided_at, m.auth';

export interface HoldRow {
  mail_id: string; customer_id: string; reason: string; sender: string | null; detail: string | null; held_at: unknown;
  state: string; decided_by: string | null; decided_at: unknown; auth: unknown;
}

const opt = <T>(v: T | null | undefined): T | undefined => (v === null || v === undefined ? undefined : v);

export function toHold(r: HoldRow): MailHold {
  return withoutUndefined<MailHold>({
    mailId: r.mail_id, customerId: r.customer_id, reason: r.reason, sender: opt(r.sender), detail: opt(r.detail),
    heldAt: isoOut(r.held_at), state: r.state as HoldState, decidedBy: opt(r.decided_by), decidedAt: optIsoOut(r.decided_at),
    auth: r.auth === null || r.auth === undefined ? undefined : jsonOut<MailAuth>(r.auth),
  });
}

export interface PolicyRow { mode: string; allow: unknown; notify_held: unknown; updated_at: unknown }

export function toPolicy(r: PolicyRow): MailPolicy {
  return { mode: r.mode as MailPolicyMode, allow: jsonOut<string[]>(r.allow ?? '[]'), notifyHeld: boolOut(r.notify_held), updatedAt: isoOut(r.updated_at) };
}

/** Allow-list entries at once: an order desk names a handful of people or domains, not a directory. */
export const MAX_ALLOW = 200;
const MODES: readonly MailPolicyMode[] = ['qualsiasi', 'elenco', 'autenticato'];

export function checkPolicy(p: Omit<MailPolicy, 'updatedAt'>): void {
  const problems: string[] = [];
  if (!MODES.includes(p.mode)) problems.push(`mode must be one of ${MODES.join(', ')}`);
  if (!Array.isArray(p.allow) || p.allow.length > MAX_ALLOW) problems.push(`the allow-list holds at most ${MAX_ALLOW} entries`);
  else for (const a of p.allow) if (typeof a !== 'string' || !ALLOW_ENTRY.test(a)) problems.push(`not an address or @domain: ${String(a)}`);
  if (typeof p.notifyHeld !== 'boolean') problems.push('notifyHeld must be true or false');
  if (problems.length) throw new IntakeError('VALIDATION', problems);
}

/** Labels kept with a hold: one line, bounded (they are shown, never parsed). */
export function holdText(v: string | undefined, max = 500): string | null {
  // eslint-disable-next-line no-control-regex
  return v === undefined ? null : v.replace(/[\x00-\x1f\x7f]+/g, ' ').slice(0, max);
}
