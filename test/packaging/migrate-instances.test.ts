// Instances started at the same moment on one new PostgreSQL database (compose.yaml's three, a rolling deploy) each
// apply the release's migrations at start: every migration takes effect once, whoever applies it. The same for the
// one-shot `order-intake db migrate` run three times at once. A scratch database of its own: the migrations make
// the schema from nothing. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { spawnServe, stopOrKill, type ServeProcess } from '../helpers/child.ts';
import { tempDir } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { ok, spawnCli } from '../cli/run.ts';
import { adminQuery, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { TEST_SECRET_KEY } from '../handoff/stores.ts';

const known = readdirSync(path.resolve(import.meta.dirname, '../../src/store/migrations/postgres')).filter((f) => /^\d+_.*\.sql$/.test(f)).sort();

function databaseUrl(name: string): string {
  const u = new URL(testDatabaseUrl!);
  u.pathname = `/${name}`;
  return u.toString();
}

async function withScratchDatabase(fn: (url: string) => Promise<void>): Promise<void> {
  const name = `intake_migrate_${randomBytes(4).toString('hex')}`;
  await adminQuery(testDatabaseUrl!, `CREATE DATABASE ${name}`);
  try {
    await fn(databaseUrl(name));
  } finally {
    await adminQuery(testDatabaseUrl!, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

async function applied(url: string): Promise<string[]> {
  return (await adminQuery<{ name: string }>(url, 'SELECT name FROM schema_migrations ORDER BY version')).map((r) => r.name);
}

void describe('migrations started by three instances at once', { skip: PG_SKIP }, () => {
  void it('three serve processes on one new database: each migration applied once, all three ready', async () => {
    await withScratchDatabase(async (url) => {
      const dirs = [tempDir(), tempDir(), tempDir()];
      const started: ServeProcess[] = [];
      try {
        const all = await Promise.allSettled(dirs.map((d) => spawnServe(d, { INTAKE_DATABASE_URL: url, INTAKE_SECRET_KEY: TEST_SECRET_KEY })));
        for (const r of all) if (r.status === 'fulfilled') started.push(r.value);
        for (const r of all) if (r.status === 'rejected') throw r.reason;
        for (const p of started) {
          await waitFor(async () => (await fetch(`http://127.0.0.1:${p.httpPort}/readyz`)).status === 200 || undefined, 30_000, 'an instance ready');
        }
        assert.deepEqual(await applied(url), known);
        // One demo customer, however many instances raced to seed the empty database.
        assert.deepEqual(await adminQuery<{ n: string }>(url, `SELECT count(*) AS n FROM customers WHERE code = 'DEMO'`), [{ n: '1' }]);
      } finally {
        for (const p of started) await stopOrKill(p);
        for (const d of dirs) rmSync(d, { recursive: true, force: true });
      }
    });
  });

  void it('three `db migrate` at once (the compose migration step run twice over): each migration applied by exactly one', async () => {
    await withScratchDatabase(async (url) => {
      const dir = tempDir();
      try {
        const runs = await Promise.all([0, 1, 2].map(() => spawnCli(dir, ['db', 'migrate', '--json'], { INTAKE_DATABASE_URL: url })));
        const byRun = runs.map((r) => (JSON.parse(ok(r).stdout) as { applied: string[] }).applied);
        assert.deepEqual(byRun.flat().sort(), known, `each applied once across the three: ${JSON.stringify(byRun)}`);
        assert.deepEqual(await applied(url), known);
        const again = await spawnCli(dir, ['db', 'migrate', '--json'], { INTAKE_DATABASE_URL: url });
        assert.deepEqual((JSON.parse(ok(again).stdout) as { applied: string[] }).applied, []);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
