/**
 * Activating a customer: the customer row and its three credentials (API key, FTP/SFTP password, mailbox).
 * The secrets are returned once, here, and stored only as hashes.
 */
import { randomBytes } from 'node:crypto';
import { uuidv7 } from '../domain/uuid7.ts';
import { IntakeError } from '../domain/errors.ts';
import type { CustomerAdminStore } from '../domain/store/ports.ts';
import type { Customer } from '../domain/store/store.ts';
import { findCustomerByCode, requireCustomerByCode } from './find.ts';
import { generateApiKey, generatePassword, hashApiKey, hashPassword } from '../auth/secrets.ts';

/** Starts with a letter or digit, at most 32 characters: it is also the FTP/SFTP user name and the mailbox prefix. */
export const CUSTOMER_CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/;
/** Longest customer name: a company name, not a document. */
const MAX_NAME_LENGTH = 200;

export interface ProvisionedCustomer {
  customer: Customer;
  /** The whole API key (`oik_…`), shown once. */
  apiKey: string;
  mailbox: string;
  ftpUser: string;
  /** The FTP/SFTP password, shown once. */
  ftpPassword: string;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/**
 * Random base32 characters after the code in a new mailbox. The mailbox address is the e-mail channel's only
 * credential: anyone who can write to it submits orders as that customer. 16 characters are 80 bits: even at the
 * 4,400 guesses a second an unthrottled SMTP server once allowed, finding one mailbox would take millions of years
 * (the 6 characters, 30 bits, of earlier mailboxes took days). Those earlier mailboxes keep working as they are:
 * recipients are looked up by the whole address, whatever its length. With the code (≤ 32) and the dash the local
 * part stays under the 64 characters RFC 5321 allows.
 */
export const MAILBOX_SUFFIX_CHARS = 16;

function mailboxFor(code: string, mailDomain: string): string {
  // 256 is a multiple of 32, so `b & 31` keeps every character equally likely.
  const suffix = [...randomBytes(MAILBOX_SUFFIX_CHARS)].map((b) => BASE32[b & 31]).join('');
  return `${code.toLowerCase()}-${suffix}@${mailDomain.toLowerCase()}`;
}

function checkCode(code: unknown): string {
  if (typeof code !== 'string' || !CUSTOMER_CODE_PATTERN.test(code)) {
    throw new IntakeError(
      'VALIDATION',
      `customer code ${JSON.stringify(code)} is not valid: use 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit`,
    );
  }
  return code;
}

function checkName(name: unknown): string {
  const n = typeof name === 'string' ? name.trim() : '';
  if (n.length === 0 || n.length > MAX_NAME_LENGTH) {
    throw new IntakeError('VALIDATION', `customer name must be 1 to ${MAX_NAME_LENGTH} characters`);
  }
  return n;
}

/**
 * The code is unique ignoring case: it is the FTP/SFTP user name, and user names are matched lower-cased, so
 * C001 and c001 cannot both exist.
 */
async function assertCodeFree(store: CustomerAdminStore, code: string): Promise<void> {
  const same = await findCustomerByCode(store, code);
  if (same) throw new IntakeError('CONFLICT', `a customer with code ${same.code} already exists`);
}

async function issueApiKey(store: CustomerAdminStore, customerId: string): Promise<string> {
  const { keyId, token } = generateApiKey();
  await store.addCredential({ id: uuidv7(), customerId, kind: 'api_key', lookup: keyId, secretHash: hashApiKey(token) });
  return token;
}

export async function provisionCustomer(
  store: CustomerAdminStore,
  input: { code: string; name: string },
  mailDomain: string,
): Promise<ProvisionedCustomer> {
  const code = checkCode(input.code);
  const name = checkName(input.name);
  await assertCodeFree(store, code);

  let customer: Customer;
  try {
    customer = await store.createCustomer({ id: uuidv7(), code, name, mailbox: mailboxFor(code, mailDomain) });
  } catch (err) {
    // Another operator may have created the same code between the check and the insert: the store's unique
    // constraint refuses it, and the operator should read that, not a driver message.
    if (await store.getCustomerByCode(code)) throw new IntakeError('CONFLICT', `a customer with code ${code} already exists`);
    throw err;
  }

  const apiKey = await issueApiKey(store, customer.id);
  const ftpUser = code.toLowerCase();
  const ftpPassword = generatePassword();
  await store.addCredential({
    id: uuidv7(),
    customerId: customer.id,
    kind: 'password',
    lookup: ftpUser,
    secretHash: await hashPassword(ftpPassword),
  });
  return { customer, apiKey, mailbox: customer.mailbox, ftpUser, ftpPassword };
}

/** Revoke every active API key of the customer and issue a new one; returns the new key (shown once). */
export async function rotateApiKey(store: CustomerAdminStore, code: string): Promise<string> {
  const customer = await requireCustomerByCode(store, code);
  await store.revokeCredentials(customer.id, 'api_key');
  return issueApiKey(store, customer.id);
}
