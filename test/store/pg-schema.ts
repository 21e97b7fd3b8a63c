// A throw-away PostgreSQL schema per test (the habit of pg-boss and graphile-worker): tests running at the same
// time on one database never see each other's rows, and dropping the schema removes everything a test made.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { skipUnlessPresent } from '../helpers/required.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/domain/store/store.ts';

export const testDatabaseUrl = process.env.INTAKE_TEST_DATABASE_URL?.trim() || undefined;

/**
 * How long a test gives an event committed on PostgreSQL to become readable. xids are cluster-wide: a test file
 * running beside it that holds a table lock over its instances' open transactions (test/multi/takeover.test.ts,
 * instances.test.ts) holds every file's feed back while it does. A bound, not a wait: a passing read returns at once.
 */
export const READABLE_WITHIN_MS = 120_000;

export const SKIP_NO_PG = 'set INTAKE_TEST_DATABASE_URL=postgres://… to run it';

/** The `skip` option of a PostgreSQL test: false when the database is set; a failure in CI when it is not. */
export const PG_SKIP = skipUnlessPresent(testDatabaseUrl ? undefined : SKIP_NO_PG);

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export interface TestSchema {
  name: string;
  /** The database URL with this schema as the search_path: what an operator would put in INTAKE_DATABASE_URL. */
  url: string;
  drop(): Promise<void>;
}

export async function createSchema(baseUrl: string, prefix = 't'): Promise<TestSchema> {
  const name = `${prefix}_${randomBytes(8).toString('hex')}`;
  await admin(baseUrl, (c) => c.query(`CREATE SCHEMA ${name}`));
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    drop: () => admin(baseUrl, (c) => c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)).then(() => undefined),
  };
}

/** Runs one query as an administrator (outside the schema's pools). */
export function adminQuery<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  return admin(url, async (c) => (await c.query<R>(sql, params)).rows);
}

/**
 * `count` migrated store instances (separate pools, as separate service processes have) on one fresh schema, closed
 * and the schema dropped afterwards whatever `fn` does.
 */
export async function withPgInstances(count: number, fn: (stores: Store[], schema: TestSchema) => Promise<void>): Promise<void> {
  const schema = await createSchema(testDatabaseUrl!);
  const stores: Store[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const s = await openPostgresStore(testDatabaseUrl!, { schema: schema.name, max: 4 });
      stores.push(s);
      await s.migrate();
    }
    await fn(stores, schema);
  } finally {
    for (const s of stores) await s.close();
    await schema.drop();
  }
}
