/**
 * What every operator command shares: settings from the environment (src/config.ts) and a store opened for
 * the command and closed after it, whatever happens.
 */
import { InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config.ts';
import { openStore } from '../store/open.ts';
import { resolveSecretKey } from '../auth/secret-key-file.ts';
import { cliLogger } from './logger.ts';
import type { Store } from '../domain/store/store.ts';

/**
 * `sealing`: the command seals or opens secrets, so the key is resolved first (src/auth/secret-key-file.ts): generated
 * on first need with SQLite, refused before connecting when PostgreSQL has none; config.secretKey is then set.
 */
export async function withStore<T>(fn: (store: Store, config: Config) => Promise<T>, opts: { sealing?: boolean } = {}): Promise<T> {
  const loaded = loadConfig();
  const config: Config = opts.sealing ? Object.freeze({ ...loaded, secretKey: await resolveSecretKey(loaded, cliLogger(loaded.logLevel)) }) : loaded;
  const store = await openStore(config);
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

/**
 * Most rows a listing prints. Listings are for reading at a terminal or piping into a script, and the rows are
 * held in memory; bulk exports belong in the database's own tools.
 */
export const MAX_LIMIT = 1_000;
export const DEFAULT_LIMIT = 50;

/** commander parser for --limit. */
export function parseLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_LIMIT}`);
  }
  return n;
}
