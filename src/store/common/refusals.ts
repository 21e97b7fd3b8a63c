/**
 * Every refusal the two engines throw, written once: an engine decides *that* a row is missing or already there
 * (from its own query or constraint code), this module says *what* the caller is told, so both engines answer in the
 * same words. Callers and tests match these messages (the CLI prints them): change one here, and it changes for both.
 * test/store/one-rule.test.ts fails when an engine folder builds an IntakeError of its own.
 */
import { IntakeError, type ErrorCode } from '../../domain/errors.ts';
import { MAX_FINISH_BATCH } from '../../domain/store/handoff.ts';

/** A row the call names is not stored. */
export const notFound = {
  customer: (id: string) => new IntakeError('NOT_FOUND', `customer ${id} not found`),
  connector: (id: string) => new IntakeError('NOT_FOUND', `connector ${id} not found`),
  /** Rotation: the connector is absent or revoked (a revoked connector keeps its row). */
  activeConnector: (id: string) => new IntakeError('NOT_FOUND', `no active connector ${id}`),
  sites: (codes: readonly string[]) => new IntakeError('NOT_FOUND', `unknown production site: ${codes.join(', ')}`),
  submission: (id: string) => new IntakeError('NOT_FOUND', `submission ${id} not found`),
  mailMessage: (id: string) => new IntakeError('NOT_FOUND', `mail message ${id} not found`),
  /** Saving mail: a batch's foreign key failed, and the engine cannot tell which message named the customer. */
  mailCustomer: () => new IntakeError('NOT_FOUND', 'a mail message names a customer that is not stored'),
  /** A connector's customer table on PostgreSQL, written in batches: the failing row is not known (SQLite names it). */
  tenantCustomer: () => new IntakeError('NOT_FOUND', 'a row names a customer that does not exist'),
};

/** A row with the same key (or an active one with the same unique name) is stored already. */
export const alreadyExists = {
  customer: (c: { code: string; mailbox: string; id: string }) =>
    new IntakeError('CONFLICT', `a customer with code ${c.code}, mailbox ${c.mailbox} or id ${c.id} already exists`),
  credential: (kind: string, lookup: string) => new IntakeError('CONFLICT', `an active ${kind} credential "${lookup}" already exists`),
  connector: (id: string) => new IntakeError('CONFLICT', `a connector with id ${id} already exists`),
  connectorKey: (keyId: string) => new IntakeError('CONFLICT', `an active connector key "${keyId}" already exists`),
  site: (code: string) => new IntakeError('CONFLICT', `site ${code} already exists`),
  subscriber: (id: string) => new IntakeError('CONFLICT', `a subscriber with id ${id} already exists`),
  integration: (name: string) => new IntakeError('CONFLICT', `an active integration named "${name}" already exists`),
  operator: (email: string) => new IntakeError('CONFLICT', `an operator ${email} already exists`),
  /** SQLite: the message id clashed (ON CONFLICT DO NOTHING wrote no row for it). */
  mailMessage: (id: string) => new IntakeError('CONFLICT', `mail message ${id} already exists`),
  /** Peppol participant identifiers another customer holds, each named with that customer (`0211:IT… (C002)`). */
  peppolIds: (taken: readonly string[]) => new IntakeError('CONFLICT', `Peppol identifiers held by another customer: ${taken.join(', ')}`),
  /** PostgreSQL: a unique violation in the batch, the id's or the IMAP UID's. */
  mailMessageOrUid: () => new IntakeError('CONFLICT', 'a mail message with that id (or IMAP UID) already exists'),
};

/** A value the call passed that the store cannot take. */
export const invalid = {
  /** The table's CHECK constraint refused it: the formats are listed in the migrations. */
  connectorFormat: (format: string) => new IntakeError('VALIDATION', `connector format "${format}" is not known`),
  subscriberKindOrFormat: () => new IntakeError('VALIDATION', 'subscriber kind or format is not known'),
  duplicateProductKey: (key: string) => new IntakeError('VALIDATION', `product key "${key}" appears more than once`),
  duplicateExternalId: (id: string) => new IntakeError('VALIDATION', `external id "${id}" appears more than once`),
  finishBatch: () => new IntakeError('VALIDATION', `at most ${MAX_FINISH_BATCH} results can be recorded at once`),
  mailPartIdx: () => new IntakeError('VALIDATION', 'idx must be a whole number from 0'),
};

/**
 * An IntakeError that crossed the SQLite write thread as a plain object, rebuilt as it was thrown there: its words
 * were written by this module or another of store/common/, so this adds no rule.
 */
export function revivedRefusal(code: ErrorCode, messages: string | string[]): IntakeError {
  return new IntakeError(code, messages);
}
