/**
 * Integrations: the systems production runs on (ERP, MIS, prepress) as the service knows them. An integration has a
 * name and one current key (`oii_…`, printed once, stored hashed); it reads every customer's order events and
 * reports production status back, and can do nothing else (no customer endpoint accepts its key).
 */
import { uuidv7 } from '../domain/uuid7.ts';
import { IntakeError } from '../domain/errors.ts';
import { generateIntegrationKey, hashIntegrationKey, parseIntegrationKey, verifyIntegrationKey } from '../auth/secrets.ts';
import type { EventStore, Integration } from '../domain/store/events.ts';

/** Who is calling with an integration key: its name goes into the production history it writes. */
export interface IntegrationPrincipal {
  integrationId: string;
  name: string;
}

/** Names are for people and logs; 1-64 printable characters keep listings and history readable. */
const NAME = /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$/u;

function checkName(name: string): string {
  const n = name.trim();
  if (!NAME.test(n)) {
    throw new IntakeError('VALIDATION', 'the integration name must be 1 to 64 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit');
  }
  return n;
}

export interface IssuedIntegration {
  name: string;
  api_key: string;
}

export async function addIntegration(store: EventStore, name: string, now = new Date()): Promise<IssuedIntegration> {
  const n = checkName(name);
  const { keyId, token } = generateIntegrationKey();
  await store.addIntegration({ id: uuidv7(), name: n, keyId, secretHash: hashIntegrationKey(token), createdAt: now.toISOString() });
  return { name: n, api_key: token };
}

export async function rotateIntegration(store: EventStore, name: string, now = new Date()): Promise<IssuedIntegration> {
  const n = checkName(name);
  const { keyId, token } = generateIntegrationKey();
  if (!(await store.rotateIntegration(n, { keyId, secretHash: hashIntegrationKey(token) }, now.toISOString()))) {
    throw new IntakeError('NOT_FOUND', `there is no active integration named "${n}"`);
  }
  return { name: n, api_key: token };
}

export async function revokeIntegration(store: EventStore, name: string, now = new Date()): Promise<void> {
  const n = checkName(name);
  if (!(await store.revokeIntegration(n, now.toISOString()))) throw new IntakeError('NOT_FOUND', `there is no active integration named "${n}"`);
}

export function listIntegrations(store: EventStore): Promise<Integration[]> {
  return store.listIntegrations();
}

/**
 * The integration of a key, or undefined (absent, malformed, unknown, revoked or wrong: one answer for all). Not
 * cached: one indexed lookup per feed request is cheap, and a rotation or revocation then takes effect at once.
 */
export async function authenticateIntegration(store: Pick<EventStore, 'findIntegration'>, token: string | undefined): Promise<IntegrationPrincipal | undefined> {
  const parsed = parseIntegrationKey(token);
  if (!parsed || token === undefined) return undefined;
  const found = await store.findIntegration(parsed.keyId);
  if (!found || !verifyIntegrationKey(token, found.secretHash)) return undefined;
  return { integrationId: found.id, name: found.name };
}
