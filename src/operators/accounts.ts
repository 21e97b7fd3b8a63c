/**
 * Operator accounts of the web console: created, reset and disabled from the CLI (and by admins in the console).
 * A password is generated here, shown once to whoever asked, and only its scrypt hash is stored (src/auth/secrets.ts),
 * as for the customers' FTP/SFTP passwords.
 */
import { uuidv7 } from '../domain/uuid7.ts';
import { IntakeError } from '../domain/errors.ts';
import { generatePassword, hashPassword } from '../auth/secrets.ts';
import type { Store } from '../domain/store/store.ts';
import { OPERATOR_ROLES, type Operator, type OperatorRole } from '../domain/store/web.ts';
import { audit } from './audit.ts';

/** Deliberately loose (one @, no spaces, a dot in the domain): the address is a login name, never mailed to here. */
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;
const MAX_EMAIL = 254;

export function checkRole(role: string): OperatorRole {
  if (!(OPERATOR_ROLES as readonly string[]).includes(role)) {
    throw new IntakeError('VALIDATION', `role must be one of ${OPERATOR_ROLES.join(', ')}`);
  }
  return role as OperatorRole;
}

export async function addOperator(store: Store, opts: { email: string; role?: string; actor?: string }): Promise<{ operator: Operator; password: string }> {
  const email = opts.email.trim().toLowerCase();
  if (email.length > MAX_EMAIL || !EMAIL.test(email)) throw new IntakeError('VALIDATION', `"${opts.email}" is not an e-mail address`);
  const role = checkRole(opts.role ?? 'operator');
  const password = generatePassword();
  const operator = await store.createOperator({ id: uuidv7(), email, role, passwordHash: await hashPassword(password) });
  await audit(store, opts.actor ?? 'cli', 'operator.add', 'operatore', operator.email, { role });
  return { operator, password };
}

export async function requireOperator(store: Store, email: string): Promise<Operator> {
  const op = await store.getOperatorByEmail(email);
  if (!op) throw new IntakeError('NOT_FOUND', `no operator ${email.trim().toLowerCase()}`);
  return op;
}

/** A new password; every session of the operator ends (the old password may be what leaked). */
export async function resetOperatorPassword(store: Store, email: string, actor = 'cli'): Promise<{ operator: Operator; password: string }> {
  const operator = await requireOperator(store, email);
  const password = generatePassword();
  await store.setOperatorPassword(operator.id, await hashPassword(password));
  await audit(store, actor, 'operator.reset_password', 'operatore', operator.email, {});
  return { operator, password };
}

/** Disabled operators cannot log in and their sessions end at once. */
export async function setOperatorDisabled(store: Store, email: string, disabled: boolean, actor = 'cli'): Promise<Operator> {
  const operator = await requireOperator(store, email);
  await store.setOperatorDisabled(operator.id, disabled);
  await audit(store, actor, disabled ? 'operator.disable' : 'operator.enable', 'operatore', operator.email, {});
  return (await store.getOperator(operator.id))!;
}
