/**
 * Taking articles out of the catalog, for `order-intake articles deactivate|activate|remove` and the console's catalog
 * page alike. Deactivating keeps the article apart (stage B then refuses it as no longer available, the suggestions
 * no longer offer it, `activate` brings it back); removing deletes it. Neither touches registered orders: a line
 * holds its own code, quantity and unit. Exports show a line's description from the catalog, so a removed article's
 * lines have none there; deactivating keeps it.
 */
import { IntakeError } from '../domain/errors.ts';
import type { CatalogWithdrawStore } from '../domain/store/ports.ts';

export type WithdrawAction = 'deactivate' | 'activate' | 'remove';

/** What each action is called in the audit log. */
export const WITHDRAW_AUDIT: Record<WithdrawAction, string> = {
  deactivate: 'articolo.disattiva', activate: 'articolo.riattiva', remove: 'articolo.rimuovi',
};

/** Codes per call: what an operator types or ticks, not a catalog (an import replaces a catalog). */
export const MAX_WITHDRAW_CODES = 1000;

export interface WithdrawResult {
  /** Codes this call changed. */
  changed: string[];
  /** Codes that were already as asked (deactivated again, activated again). */
  unchanged: string[];
}

/**
 * Applies `action` to every code, or to none: a code the catalog does not hold (in neither state) is NOT_FOUND
 * before anything changes, so a typing mistake never half-applies a list.
 */
export async function withdrawArticles(
  store: CatalogWithdrawStore, action: WithdrawAction, codes: readonly string[],
): Promise<WithdrawResult> {
  const wanted = [...new Set(codes.map((c) => c.trim()).filter((c) => c !== ''))];
  if (wanted.length === 0) throw new IntakeError('VALIDATION', ['name at least one article code']);
  if (wanted.length > MAX_WITHDRAW_CODES) throw new IntakeError('VALIDATION', [`at most ${MAX_WITHDRAW_CODES} article codes per call`]);
  const [active, inactive] = await Promise.all([store.knownArticles(wanted), store.inactiveArticles(wanted)]);
  const missing = wanted.filter((c) => !active.has(c) && !inactive.has(c));
  if (missing.length > 0) throw new IntakeError('NOT_FOUND', `no article ${missing.map((c) => JSON.stringify(c)).join(', ')} in the catalog`);
  const changed = action === 'deactivate' ? await store.deactivateArticles(wanted)
    : action === 'activate' ? await store.activateArticles(wanted)
      : await store.removeArticles(wanted);
  const done = new Set(changed);
  return { changed, unchanged: wanted.filter((c) => !done.has(c)) };
}
