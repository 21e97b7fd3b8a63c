/**
 * Generation and hashing of every secret the service hands out. Nothing else creates, hashes or compares
 * secrets, so the formats below are the whole story:
 *
 * - API key (REST, SOAP): `oik_<keyId>_<secret>`, keyId 12 and secret 32 base62 characters. The key id is the
 *   public lookup; the store keeps `sha256:<hex>` of the whole token.
 * - Password (FTP/SFTP): 20 base62 characters; the store keeps `scrypt$N$r$p$<salt b64>$<hash b64>`.
 * - Connector key (`service-x-key` header): `oic_<keyId>_<secret>`, the same lengths and hash as an API key. The
 *   distinct prefix keeps the two kinds apart: each is refused as malformed where the other belongs.
 * - Integration key (ERP/MIS: event feed, production status; X-API-Key header): `oii_<keyId>_<secret>`, the same
 *   lengths and hash as an API key; the prefix tells a customer's key from an integration's before any lookup.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 62 * 4: bytes at or above it are dropped so that every character is equally likely (no modulo bias). */
const BASE62_LIMIT = 248;

const KEY_ID_LENGTH = 12;
/** 32 base62 characters: log2(62) * 32 ≈ 190.5 bits, out of reach of any guessing. */
const KEY_SECRET_LENGTH = 32;
const PASSWORD_LENGTH = 20;

/** Uniformly random base62 string from the operating system's CSPRNG. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      if (b < BASE62_LIMIT) out += BASE62[b % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * Constant-time equality of two strings. Lengths are compared first: every value compared here is a hash of
 * fixed length for its format, so the length says nothing about the secret.
 */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  if (x.length !== y.length) return false;
  return timingSafeEqual(x, y);
}

// ---- API keys ---------------------------------------------------------------------------------------------

/** Keys with a kind prefix (`oik` API key, `oic` connector key): one generator and parser for both. */
function keyFormat(prefix: 'oik' | 'oic' | 'oii') {
  const pattern = new RegExp(`^${prefix}_([0-9A-Za-z]{${KEY_ID_LENGTH}})_([0-9A-Za-z]{${KEY_SECRET_LENGTH}})$`);
  return {
    generate(): { keyId: string; token: string } {
      const keyId = randomBase62(KEY_ID_LENGTH);
      return { keyId, token: `${prefix}_${keyId}_${randomBase62(KEY_SECRET_LENGTH)}` };
    },
    /** The key id of a well-formed token, or undefined: callers refuse malformed tokens before any lookup. */
    parse(token: string | undefined): { keyId: string } | undefined {
      // The length check first keeps a huge header from reaching the regular expression.
      if (typeof token !== 'string' || token.length !== prefix.length + 1 + KEY_ID_LENGTH + 1 + KEY_SECRET_LENGTH) return undefined;
      const m = pattern.exec(token);
      return m?.[1] ? { keyId: m[1] } : undefined;
    },
  };
}

const API_KEY = keyFormat('oik');
const CONNECTOR_KEY = keyFormat('oic');

export function generateApiKey(): { keyId: string; token: string } {
  return API_KEY.generate();
}

/** The key id of a well-formed API key, or undefined (a connector key is malformed here). */
export function parseApiKey(token: string | undefined): { keyId: string } | undefined {
  return API_KEY.parse(token);
}

/**
 * A fast hash is right here and a slow KDF would be wrong: the token carries ~190 random bits, so even a stolen
 * table of hashes cannot be brute-forced, while every REST/SOAP call verifies a key and must stay cheap.
 */
export function hashApiKey(token: string): string {
  return `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
}

export function verifyApiKey(token: string, stored: string): boolean {
  return safeEqual(hashApiKey(token), stored);
}

// ---- Passwords --------------------------------------------------------------------------------------------

/** scrypt cost: N=2^14, r=8, p=1 (about 16 MiB and tens of milliseconds per check). */
const SCRYPT_N = 16384;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
/**
 * Longest password accepted for checking. Ours are 20 characters; the bound keeps a client from making the
 * server hash megabytes per attempt.
 */
const MAX_PASSWORD_LENGTH = 1024;
/** Upper bounds for parameters read back from the store, so a corrupted row cannot ask for gigabytes. */
const MAX_STORED_N = 1 << 20;
const MAX_STORED_RP = 64;

export function generatePassword(): string {
  return randomBase62(PASSWORD_LENGTH);
}

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must cover 128 * N * r bytes plus slack, or Node refuses the larger stored parameters.
    scrypt(password, salt, keylen, { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 }, (err, key) => {
      if (err) reject(err);
      else resolve(key);
    });
  });
}

/**
 * People type these passwords into FTP clients and they travel over the network, so unlike API keys they get
 * a slow, salted, memory-hard hash.
 */
export async function hashPassword(password: string): Promise<string> {
  if (password.length === 0 || password.length > MAX_PASSWORD_LENGTH) {
    throw new Error(`a password must be 1 to ${MAX_PASSWORD_LENGTH} characters long`);
  }
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, HASH_BYTES);
  return `scrypt$${SCRYPT_N}$${SCRYPT_R}$${SCRYPT_P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

interface ParsedScrypt {
  n: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

function parseScrypt(stored: string): ParsedScrypt | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const isPow2 = Number.isInteger(n) && n > 1 && (n & (n - 1)) === 0;
  if (!isPow2 || n > MAX_STORED_N) return undefined;
  if (![r, p].every((v) => Number.isInteger(v) && v >= 1 && v <= MAX_STORED_RP)) return undefined;
  const salt = Buffer.from(parts[4] ?? '', 'base64');
  const hash = Buffer.from(parts[5] ?? '', 'base64');
  if (salt.length === 0 || hash.length < 16) return undefined;
  return { n, r, p, salt, hash };
}

/** A hash of a password nobody knows: unknown users cost the same scrypt work as known ones. */
let decoy: Promise<string> | undefined;
export function decoyPasswordHash(): Promise<string> {
  decoy ??= hashPassword(randomBase62(PASSWORD_LENGTH));
  return decoy;
}

/** True when `password` matches `stored`. A malformed stored value never matches (and never throws). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (typeof password !== 'string' || password.length === 0 || password.length > MAX_PASSWORD_LENGTH) return false;
  const parsed = parseScrypt(stored);
  if (!parsed) return false;
  const candidate = await scryptAsync(password, parsed.salt, parsed.n, parsed.r, parsed.p, parsed.hash.length);
  // Same length by construction (keylen = stored hash length); timingSafeEqual still requires it.
  return candidate.length === parsed.hash.length && timingSafeEqual(candidate, parsed.hash);
}

// ---- Connector keys ---------------------------------------------------------------------------------------

export function generateConnectorKey(): { keyId: string; token: string } {
  return CONNECTOR_KEY.generate();
}

/** The key id of a well-formed connector key, or undefined (an API key is malformed here). */
export function parseConnectorKey(token: string | undefined): { keyId: string } | undefined {
  return CONNECTOR_KEY.parse(token);
}

/** sha256 like API keys, for the same reason: ~190 random bits, and every connector call verifies one. */
export function hashConnectorKey(token: string): string {
  return hashApiKey(token);
}

export function verifyConnectorKey(token: string, stored: string): boolean {
  return safeEqual(hashConnectorKey(token), stored);
}

// ---- Integration keys -------------------------------------------------------------------------------------

const INTEGRATION_KEY = keyFormat('oii');

export function generateIntegrationKey(): { keyId: string; token: string } {
  return INTEGRATION_KEY.generate();
}

/** The key id of a well-formed integration key, or undefined (a customer's API key is malformed here). */
export function parseIntegrationKey(token: string | undefined): { keyId: string } | undefined {
  return INTEGRATION_KEY.parse(token);
}

/** sha256 like API keys, for the same reason: ~190 random bits, and every feed request verifies one. */
export function hashIntegrationKey(token: string): string {
  return hashApiKey(token);
}

export function verifyIntegrationKey(token: string, stored: string): boolean {
  return safeEqual(hashIntegrationKey(token), stored);
}
