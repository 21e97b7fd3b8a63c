// Runs the store contract against every backend: SQLite on a temporary file and in memory, and PostgreSQL
// (one fresh schema per test) when INTAKE_TEST_DATABASE_URL names a database. Also the few things only one
// engine has: SQLite's file settings, and openStore's choice of engine.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openStore } from '../../src/store/open.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { storeContract } from './contract.ts';
import { addCustomer, addSubmission } from './fixtures.ts';
import { PG_SKIP } from './pg-schema.ts';

const databaseUrl = process.env.INTAKE_TEST_DATABASE_URL?.trim() || undefined;

async function closeAll(stores: Store[]): Promise<void> {
  for (const s of stores) await s.close();
}

storeContract('sqlite (file)', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'intake-store-'));
  // A folder that does not exist yet: the store must create it.
  const file = path.join(dir, 'data', 'intake.sqlite');
  const opened: Store[] = [];
  const open = async (): Promise<Store> => {
    const s = await openSqliteStore(file);
    opened.push(s);
    return s;
  };
  return {
    store: await open(),
    another: open,
    cleanup: async () => {
      await closeAll(opened);
      await rm(dir, { recursive: true, force: true });
    },
  };
});

storeContract('sqlite (:memory:)', async () => {
  const store = await openSqliteStore(':memory:');
  return { store, cleanup: () => store.close() };
});

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

if (databaseUrl) {
  const url = databaseUrl;
  storeContract('postgres', async () => {
    const schema = `t_${randomBytes(8).toString('hex')}`;
    const opened: Store[] = [];
    const open = async (): Promise<Store> => {
      const s = await openPostgresStore(url, { schema, max: 4 });
      opened.push(s);
      return s;
    };
    return {
      store: await open(),
      another: open,
      cleanup: async () => {
        await closeAll(opened);
        await dropSchema(url, schema);
      },
    };
  });
} else {
  // Reported as a skipped suite with its reason on a developer's machine; in CI a missing database fails the run.
  void describe('store contract: postgres', { skip: PG_SKIP }, () => {});
}

void describe('sqlite file', () => {
  void it('uses WAL, records migrations, and keeps data across reopening', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-sqlite-'));
    const file = path.join(dir, 'a', 'b', 'intake.sqlite');
    try {
      const store = await openSqliteStore(file);
      await store.migrate();
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c, { raw: Buffer.from([0xde, 0xad, 0xbe, 0xef]) });
      await store.close();
      await store.close();

      const peek = new Database(file, { readonly: true });
      try {
        assert.equal(peek.pragma('journal_mode', { simple: true }), 'wal');
        assert.deepEqual(peek.prepare('SELECT version, name FROM schema_migrations ORDER BY version LIMIT 2').all(),
          [{ version: 1, name: '001_init.sql' }, { version: 2, name: '002_work.sql' }]);
      } finally {
        peek.close();
      }

      const again = await openSqliteStore(file);
      try {
        await again.migrate();
        assert.deepEqual((await again.getSubmission(sub))?.raw, Buffer.from([0xde, 0xad, 0xbe, 0xef]));
      } finally {
        await again.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  void it('refuses a database migrated by a newer release', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-sqlite-'));
    const file = path.join(dir, 'intake.sqlite');
    try {
      const store = await openSqliteStore(file);
      await store.migrate();
      await store.close();
      const db = new Database(file);
      db.prepare(`INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '999_future.sql', '2030-01-01T00:00:00.000Z')`).run();
      db.close();
      const old = await openSqliteStore(file);
      try {
        await assert.rejects(old.migrate(), /migration 999/);
      } finally {
        await old.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

void describe('openStore', () => {
  void it('opens a migrated SQLite store in the data directory when no database URL is set', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-open-'));
    try {
      const store = await openStore({ dataDir: path.join(dir, 'data') });
      try {
        assert.equal(store.kind, 'sqlite');
        assert.ok(existsSync(path.join(dir, 'data', 'intake.sqlite')));
        assert.deepEqual(await store.listCustomers(), []);
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  void it('opens a migrated PostgreSQL store when a database URL is set', { skip: PG_SKIP }, async () => {
    const url = databaseUrl!;
    const schema = `t_${randomBytes(8).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${schema}`);
    } finally {
      await admin.end();
    }
    try {
      const scoped = new URL(url);
      scoped.searchParams.set('options', `-c search_path=${schema}`);
      const store = await openStore({ databaseUrl: scoped.toString(), dataDir: '/nonexistent' });
      try {
        assert.equal(store.kind, 'postgres');
        assert.deepEqual(await store.listCustomers(), []);
        await store.ping();
      } finally {
        await store.close();
      }
    } finally {
      await dropSchema(url, schema);
    }
  });

  void it('fails clearly, without hanging, when PostgreSQL cannot be reached', async () => {
    // Port 1 on the loopback refuses at once; the error must name the problem rather than wait.
    await assert.rejects(openStore({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', dataDir: '/nonexistent' }), /ECONNREFUSED|connect/);
  });
});
