// The stores the hand-off tests run on: SQLite on a temporary file, and PostgreSQL in a fresh schema when
// INTAKE_TEST_DATABASE_URL names a database.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { createSchema, testDatabaseUrl } from '../store/pg-schema.ts';

export interface OpenedStore {
  store: Store;
  /** Another store on the same database (another instance). */
  another(): Promise<Store>;
  cleanup(): Promise<void>;
}

export const STORES: [name: string, open: () => Promise<OpenedStore>][] = [
  ['sqlite', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-handoff-'));
    const opened: Store[] = [];
    const open = async () => {
      const s = await openSqliteStore(path.join(dir, 'intake.sqlite'));
      await s.migrate();
      opened.push(s);
      return s;
    };
    return { store: await open(), another: open, cleanup: async () => {
      for (const s of opened) await s.close();
      await rm(dir, { recursive: true, force: true });
    } };
  }],
];

if (testDatabaseUrl) {
  STORES.push(['postgres', async () => {
    const schema = await createSchema(testDatabaseUrl!, 'handoff');
    const opened: Store[] = [];
    const open = async () => {
      const s = await openPostgresStore(schema.url, { max: 4 });
      await s.migrate();
      opened.push(s);
      return s;
    };
    return { store: await open(), another: open, cleanup: async () => {
      for (const s of opened) await s.close();
      await schema.drop();
    } };
  }]);
}

/** A key for sealing webhook secrets in tests (INTAKE_SECRET_KEY). */
export const TEST_SECRET_KEY = Buffer.alloc(32, 7).toString('base64');
