/**
 * Sealing the IMAP mailbox passwords with the key from INTAKE_SECRET_KEY (AES-256-GCM). The service must give the
 * password back to the provider, so it cannot keep only a hash; it keeps `v1:<iv>:<tag>:<ciphertext>` (base64), and
 * a copy of the database without the key reveals nothing. The customer id is bound in as associated data, so a
 * sealed password copied onto another customer's row does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { ConfigError } from '../config.ts';
import { IntakeError } from '../domain/errors.ts';

const IV_BYTES = 12;
const TAG_BYTES = 16;

function keyBytes(key: string | undefined): Buffer {
  if (!key) {
    throw new ConfigError('INTAKE_SECRET_KEY is not set: it is needed to keep IMAP passwords (generate one with "openssl rand -base64 32")');
  }
  const bytes = /^[0-9a-fA-F]{64}$/.test(key) ? Buffer.from(key, 'hex') : Buffer.from(key, 'base64');
  if (bytes.length !== 32) throw new ConfigError('INTAKE_SECRET_KEY must be 32 bytes (64 hex digits or base64)');
  return bytes;
}

export function sealSecret(key: string | undefined, plain: string, context: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyBytes(key), iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
}

export function openSecret(key: string | undefined, sealed: string, context: string): string {
  const [version, iv, tag, data] = sealed.split(':');
  if (version !== 'v1' || !iv || !tag || data === undefined) throw new IntakeError('INTERNAL', 'the stored password is not in a known sealed format');
  const decipher = createDecipheriv('aes-256-gcm', keyBytes(key), Buffer.from(iv, 'base64'), { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  try {
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new IntakeError('INTERNAL', 'the stored IMAP password cannot be opened: INTAKE_SECRET_KEY is not the key it was sealed with');
  }
}
