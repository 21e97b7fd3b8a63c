// The first quarter of the store contract on PostgreSQL (the others: store-postgres-2, -3, -4.test.ts; see
// backends.ts), and openStore's choice of PostgreSQL when a database URL is set. Without INTAKE_TEST_DATABASE_URL:
// skipped with its reason on a developer's machine, a failure in CI.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import pg from 'pg';
import { openStore } from '../../src/store/open.ts';
import { dropSchema, postgresContract } from './backends.ts';
import { PG_SKIP } from './pg-schema.ts';

const databaseUrl = process.env.INTAKE_TEST_DATABASE_URL?.trim() || undefined;

postgresContract(1);

void describe('openStore', () => {
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

});
