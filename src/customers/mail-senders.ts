/**
 * An operator's decisions on held messages and on a customer's sender policy, the same from the console and from
 * the CLI, each written to the audit log. A release puts the message back to the pipeline, which derives it as if
 * its sender had passed (registered once: the message was never registered while held); a discard keeps it,
 * finished, with nothing registered and nobody answered.
 */
import { audit } from '../operators/audit.ts';
import { IntakeError } from '../domain/errors.ts';
import type { Store } from '../domain/store/store.ts';
import { ALLOW_ENTRY, type MailHold, type MailPolicy, type MailPolicyMode } from '../domain/store/mail-trust.ts';

type HoldStore = Pick<Store, 'getMailHold' | 'decideMailHold' | 'addAudit'>;
/** Allow-list entries typed at once in the console's box. */
export const MAX_ALLOW_INPUT = 200;

export async function decideHold(store: HoldStore, mailId: string, decision: 'released' | 'discarded', actor: string): Promise<MailHold> {
  if (!(await store.decideMailHold(mailId, decision, actor))) {
    const h = await store.getMailHold(mailId);
    throw new IntakeError(h ? 'CONFLICT' : 'NOT_FOUND', h ? `message ${mailId} is not held any more (${h.state})` : `no held message ${mailId}`);
  }
  const h = (await store.getMailHold(mailId))!;
  await audit(store, actor, decision === 'released' ? 'posta.rilascia' : 'posta.scarta', 'messaggio', mailId, { reason: h.reason, sender: h.sender ?? null });
  return h;
}

export const POLICY_MODES: readonly MailPolicyMode[] = ['qualsiasi', 'elenco', 'autenticato'];

/** One allow-list entry as typed (`Ordini@Cliente.it`, ` @cliente.it`): compared in lower case, without blanks. */
export function allowEntry(v: string): string {
  const e = v.trim().toLowerCase();
  if (!ALLOW_ENTRY.test(e)) throw new IntakeError('VALIDATION', `"${v}" non è un indirizzo (ordini@cliente.it) né un dominio (@cliente.it)`);
  return e;
}

/** The policy after a change: a new mode, entries added, entries removed (in that order). */
export function changedPolicy(p: MailPolicy, change: { mode?: string; allow?: readonly string[]; remove?: readonly string[]; replace?: boolean; notifyHeld?: boolean }): Omit<MailPolicy, 'updatedAt'> {
  if (change.mode !== undefined && !POLICY_MODES.includes(change.mode as MailPolicyMode)) {
    throw new IntakeError('VALIDATION', `la modalità deve essere una di: ${POLICY_MODES.join(', ')}`);
  }
  const remove = new Set((change.remove ?? []).map(allowEntry));
  // replace: the list given is the whole allow-list (the console's form), not entries to add.
  const allow = [...new Set([...(change.replace ? [] : p.allow), ...(change.allow ?? []).map(allowEntry)])].filter((a) => !remove.has(a));
  return { mode: (change.mode as MailPolicyMode | undefined) ?? p.mode, allow, notifyHeld: change.notifyHeld ?? p.notifyHeld };
}

export async function setPolicy(store: Pick<Store, 'getMailPolicy' | 'setMailPolicy' | 'addAudit'>, customer: { id: string; code: string }, change: Parameters<typeof changedPolicy>[1], actor: string): Promise<MailPolicy> {
  const next = changedPolicy(await store.getMailPolicy(customer.id), change);
  const p = await store.setMailPolicy(customer.id, next);
  await audit(store, actor, 'cliente.mittenti', 'cliente', customer.code, { mode: p.mode, allow: p.allow, notify_held: p.notifyHeld });
  return p;
}

/** The reasons in the operator's words (console and CLI). */
export const HOLD_REASONS: Record<string, string> = {
  'dmarc-fail': 'mittente falsificato (DMARC fallito, dominio con policy quarantine/reject)',
  'not-allowed': 'mittente non in elenco',
  'not-authenticated': 'mittente non autenticato (DMARC non superato)',
  dns: 'verifica DNS non riuscita (nuovo tentativo automatico)',
};
