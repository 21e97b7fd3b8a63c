/** A real, migrated SQLite store in a throw-away directory, for the auth, customer, catalog and CLI tests. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/domain/store/store.ts';

export interface TempStore {
  store: Store;
  dataDir: string;
  cleanup(): Promise<void>;
}

export async function tempDataDir(prefix = 'intake-ops-'): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

export async function openTempStore(dataDir?: string): Promise<TempStore> {
  const dir = dataDir ?? (await tempDataDir());
  const store = await openStore({ dataDir: dir });
  return {
    store,
    dataDir: dir,
    async cleanup() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
