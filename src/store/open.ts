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

/** Where the store is, as Config says it (databasePool: PostgreSQL's pool size, INTAKE_DATABASE_POOL). */
export interface StoreSettings { databaseUrl?: string; databasePool?: number; dataDir: string; outbox?: boolean }

/** The configured engine, not yet migrated: for `order-intake db migrate`, which reports what it applies. */
export async function openEngine(config: StoreSettings): Promise<Store> {
  return config.databaseUrl
    ? openPostgresStore(config.databaseUrl, { outbox: config.outbox, max: config.databasePool })
    : openSqliteStore(path.join(config.dataDir, SQLITE_FILE_NAME), { outbox: config.outbox });
}

export async function openStore(config: StoreSettings): Promise<Store> {
  const store = await openEngine(config);
  try {
    await store.migrate();
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
  return store;
}
