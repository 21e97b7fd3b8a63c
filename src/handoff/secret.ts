/**
 * Webhook signing secrets and signatures (Standard Webhooks, https://www.standardwebhooks.com): the secret is shown
 * once as `whsec_<base64 of 32 random bytes>`; a delivery carries `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<webhook-id>.<webhook-timestamp>.<body>">` keyed with those bytes, so receivers can verify it with the existing
 * libraries.
 *
 * The service must sign with the secret on every delivery, so it cannot keep only a hash of it: it keeps it sealed
 * with INTAKE_SECRET_KEY (AES-256-GCM, the sealing the IMAP passwords use), bound to the webhook's id, so a copy of
 * the database without the key reveals no secret and a sealed secret moved onto another webhook does not open.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { openSecret, sealSecret } from '../auth/secret-box.ts';
import { ConfigError } from '../config.ts';
import { IntakeError } from '../domain/errors.ts';

const PREFIX = 'whsec_';
/** 32 bytes: the HMAC-SHA256 block gains nothing from more, and Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;

export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(SECRET_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new IntakeError('INTERNAL', 'a webhook secret must start with whsec_');
  return Buffer.from(secret.slice(PREFIX.length), 'base64');
}

/** The `webhook-signature` header value for one attempt. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

function requireKey(key: string | undefined): string {
  if (!key) {
    throw new ConfigError('INTAKE_SECRET_KEY is not set: it is needed to keep webhook signing secrets (generate one with "openssl rand -base64 32")');
  }
  return key;
}

export function sealSigningSecret(key: string | undefined, secret: string, webhookId: string): string {
  return sealSecret(requireKey(key), secret, `webhook:${webhookId}`);
}

export function openSigningSecret(key: string | undefined, sealed: string, webhookId: string): string {
  try {
    return openSecret(requireKey(key), sealed, `webhook:${webhookId}`);
  } catch (e) {
    if (e instanceof ConfigError && /INTAKE_SECRET_KEY is not set/.test(e.message)) throw e;
    throw new IntakeError('INTERNAL', `the signing secret of webhook ${webhookId} cannot be opened: INTAKE_SECRET_KEY is not the key it was sealed with`);
  }
}
