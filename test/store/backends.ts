// The store backends the contract runs on, as factories the store-*.test.ts files share: SQLite on a temporary file
// and in memory, PostgreSQL in a fresh schema per test. Each backend's contract is spread over several files
// (storeContract's quarters) so that the runner runs them side by side instead of one long file after another.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe } from 'node:test';
import pg from 'pg';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { storeContract, type Quarter, type StoreFactory, type StoreHandle } from './contract.ts';
import { PG_SKIP, testDatabaseUrl } from './pg-schema.ts';

/** A store that can be opened again on the same database (another instance); cleanup closes every one, then `dispose`. */
async function reopenable(openOne: () => Promise<Store>, dispose: () => Promise<void>): Promise<StoreHandle> {
  const opened: Store[] = [];
  const open = async (): Promise<Store> => {
    const s = await openOne();
    opened.push(s);
    return s;
  };
  return {
    store: await open(),
    another: open,
    cleanup: async () => {
      for (const s of opened) await s.close();
      await dispose();
    },
  };
}

export const sqliteFile: StoreFactory = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'intake-store-'));
  // A folder that does not exist yet: the store must create it.
  const file = path.join(dir, 'data', 'intake.sqlite');
  return reopenable(() => openSqliteStore(file), () => rm(dir, { recursive: true, force: true }));
};

export const sqliteMemory: StoreFactory = async () => {
  const store = await openSqliteStore(':memory:');
  return { store, cleanup: () => store.close() };
};

export async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export function postgres(url: string): StoreFactory {
  return async () => {
    const schema = `t_${randomBytes(8).toString('hex')}`;
    return reopenable(() => openPostgresStore(url, { schema, max: 4 }), () => dropSchema(url, schema));
  };
}

/**
 * The contract on PostgreSQL when INTAKE_TEST_DATABASE_URL names a database; without it a skipped suite with its
 * reason on a developer's machine, and in CI a failure (PG_SKIP).
 */
export function postgresContract(quarter: Quarter): void {
  if (testDatabaseUrl) storeContract('postgres', postgres(testDatabaseUrl), [quarter]);
  else void describe(`store contract: postgres, part ${quarter}`, { skip: PG_SKIP }, () => {});
}
