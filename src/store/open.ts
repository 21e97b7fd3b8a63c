/**
 * The one way the service, the CLI and the tests get a store: PostgreSQL when a database URL is configured
 * (several instances share it), otherwise the embedded SQLite file in the data directory. The store comes back
 * migrated and ready.
 */
import path from 'node:path';
import { openPostgresStore } from './postgres/store.ts';
import { openSqliteStore } from './sqlite/store.ts';
import type { Store } from '../domain/store/store.ts';

export const SQLITE_FILE_NAME = 'intake.sqlite';

/** The configured engine, not yet migrated: for `order-intake db migrate`, which reports what it applies. */
export async function openEngine(config: { databaseUrl?: string; dataDir: string; outbox?: boolean }): Promise<Store> {
  return config.databaseUrl
    ? openPostgresStore(config.databaseUrl, { outbox: config.outbox })
    : openSqliteStore(path.join(config.dataDir, SQLITE_FILE_NAME), { outbox: config.outbox });
}

export async function openStore(config: { databaseUrl?: string; dataDir: string; outbox?: boolean }): Promise<Store> {
  const store = await openEngine(config);
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
  return store;
}
