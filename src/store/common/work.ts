/**
 * What both engines check the same way for claims and named leases, so a bad argument gives the same clear
 * error whichever engine runs, rather than an engine message or a lease that silently never expires.
 */
import { IntakeError } from '../../domain/errors.ts';
import type { Store } from '../../domain/store/store.ts';
import type { ClaimOptions } from '../../domain/store/handoff.ts';
import { limitOf } from './rows.ts';

/** The claim and lease methods each engine implements in its own work.ts. */
export type WorkMethods = Pick<Store,
  'claimSubmissions' | 'claimSubmission' | 'renewClaims' | 'releaseClaims' | 'acquireLease' | 'renewLease' | 'releaseLease'>;

/** Submissions claimed per call: a claim is a promise to work, so a holder takes a handful, not the backlog. */
export const MAX_CLAIM_BATCH = 1000;

/**
 * Longest lease: one day. Leases are renewed while work runs; a longer one would only mean that work held by a
 * dead instance waits that long to be taken over.
 */
export const MAX_LEASE_MS = 24 * 60 * 60 * 1000;

/** Names and holder ids are short labels (host:pid:random, "imap:<mailbox>"), not data. */
const MAX_LABEL = 200;

export function checkLabel(value: unknown, what: 'holder' | 'lease name'): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_LABEL || value.includes('\0')) {
    throw new IntakeError('VALIDATION', `${what} must be a non-empty string of at most ${MAX_LABEL} characters without NUL`);
  }
  return value;
}

export function checkLeaseMs(value: unknown, what = 'leaseMs'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_LEASE_MS) {
    throw new IntakeError('VALIDATION', `${what} must be a whole number of milliseconds from 1 to ${MAX_LEASE_MS}`);
  }
  return value;
}

export function claimLimit(limit: number): number {
  return limitOf(limit, 1, MAX_CLAIM_BATCH);
}

/**
 * A delivery claim's share-out (ClaimOptions), checked: `perSubscriber` within the claim's limit, `skip` a list of
 * ids no longer than a holder could hold deliveries of distinct subscribers for.
 */
export function claimShares(limit: number, opts: ClaimOptions | undefined): { perSubscriber: number; skip: string[] } {
  const perSubscriber = opts?.perSubscriber === undefined ? limit : limitOf(opts.perSubscriber, 1, limit);
  const skip = opts?.skip ?? [];
  if (!Array.isArray(skip) || skip.length > MAX_CLAIM_BATCH || skip.some((id) => typeof id !== 'string')) {
    throw new IntakeError('VALIDATION', `skip must be at most ${MAX_CLAIM_BATCH} subscriber ids`);
  }
  return { perSubscriber, skip: [...skip] };
}

/** Ids given to renewClaims: distinct, and as many as one holder can sensibly hold. */
export function claimIds(ids: readonly string[]): string[] {
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string')) throw new IntakeError('VALIDATION', 'ids must be strings');
  const list = [...new Set(ids)];
  if (list.length > 10 * MAX_CLAIM_BATCH) throw new IntakeError('VALIDATION', `at most ${10 * MAX_CLAIM_BATCH} claims can be renewed at once`);
  return list;
}
