// Half the store contract on SQLite in a file (the other half: store-sqlite-2.test.ts), and what only that engine
// has: its file settings (WAL, migrations recorded, data kept across reopening), and openStore's choice of engine
// when no database URL is set. The backends and why the contract is spread over files: backends.ts.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openStore } from '../../src/store/open.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { sqliteFile } from './backends.ts';
import { storeContract } from './contract.ts';
import { addCustomer, addSubmission } from './fixtures.ts';

storeContract('sqlite (file)', sqliteFile, [1, 2]);

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

  void it('fails clearly, without hanging, when PostgreSQL cannot be reached', async () => {
    // Port 1 on the loopback refuses at once; the error must name the problem rather than wait.
    await assert.rejects(openStore({ databaseUrl: 'postgres://nobody@127.0.0.1:1/none', dataDir: '/nonexistent' }), /ECONNREFUSED|connect/);
  });
});
