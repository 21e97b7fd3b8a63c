/**
 * Reading the numbered migration files (`001_init.sql`, `002_….sql`) of one engine. The SQL is plain files read
 * at run time, so the build must copy `src/store/migrations/` next to the compiled modules
 * (scripts/copy-assets.mjs); the folder is resolved from this module's URL, which works from `src/` and `dist/`.
 */
import { readdir, readFile } from 'node:fs/promises';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE = /^(\d+)_[A-Za-z0-9_-]+\.sql$/;

export function migrationsDir(engine: 'sqlite' | 'postgres'): URL {
  return new URL(`./migrations/${engine}/`, import.meta.url);
}

export async function readMigrations(dir: URL): Promise<Migration[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (e) {
    throw new Error(`cannot read the migrations folder ${dir.pathname} (was it copied by the build?): ${(e as Error).message}`, { cause: e });
  }
  const list: Migration[] = [];
  for (const name of names.sort()) {
    const m = FILE.exec(name);
    if (!m) continue;
    list.push({ version: Number(m[1]), name, sql: await readFile(new URL(name, dir), 'utf8') });
  }
  list.sort((a, b) => a.version - b.version);
  for (let i = 1; i < list.length; i++) {
    if (list[i]!.version === list[i - 1]!.version) {
      throw new Error(`two migrations share number ${list[i]!.version}: ${list[i - 1]!.name} and ${list[i]!.name}`);
    }
  }
  if (list.length === 0) throw new Error(`no migrations found in ${dir.pathname}`);
  return list;
}

/** A database migrated by a newer release must not be run by an older one that does not know its schema. */
export function checkKnown(applied: Iterable<number>, known: readonly Migration[]): void {
  const versions = new Set(known.map((m) => m.version));
  for (const v of applied) {
    if (!versions.has(v)) {
      throw new Error(`the database has migration ${v}, which this version of the service does not know; run a newer release`);
    }
  }
}
