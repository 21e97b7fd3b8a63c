// The fixture both query-plan files share (query-plans.test.ts, query-plans-web.test.ts): a store of each engine
// migrated by the service's own code and filled through the store port, then handed over for EXPLAIN outside it,
// and removed afterwards whatever the test does.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Customer, Store } from '../../src/domain/store/store.ts';
import { addCustomer } from './fixtures.ts';
import { adminQuery, createSchema, testDatabaseUrl } from './pg-schema.ts';

/** Rows a plan test puts in the store: one customer C001 is made first, `fill` adds the rest. */
export type Fill = (store: Store, customer: Customer) => Promise<void>;

/** Migrates `store`, adds C001 and what `fill` adds, and closes it; resolves with C001's id. */
async function filled(store: Store, fill: Fill): Promise<string> {
  try {
    await store.migrate();
    const c = await addCustomer(store, 'C001');
    await fill(store, c);
    return c.id;
  } finally {
    await store.close();
  }
}

/** A migrated, filled SQLite file with statistics (ANALYZE), opened with better-sqlite3 for EXPLAIN QUERY PLAN. */
export async function withSqlitePlans(fill: Fill, fn: (db: Database.Database, customerId: string) => void): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'intake-plan-'));
  const file = path.join(dir, 'intake.sqlite');
  try {
    const customerId = await filled(await openSqliteStore(file), fill);
    const db = new Database(file);
    try {
      db.exec('ANALYZE');
      fn(db, customerId);
    } finally {
      db.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface PgPlans {
  /** `ANALYZE` these tables after filling (the planner then weighs indexes with real statistics). */
  analyze?: string[];
  /**
   * Planner settings for the EXPLAIN connection (`-c enable_seqscan=off …`). A small table is cheaper to read whole,
   * so the planner is told not to: what the tests check is that an index can serve a statement, not a cost estimate.
   */
  planner: string;
}

/** The same on a fresh PostgreSQL schema; `explain` returns the plan text of one statement, `query` its rows. */
export async function withPgPlans(
  fill: Fill, opts: PgPlans,
  fn: (explain: (sql: string, values: unknown[]) => Promise<string>, customerId: string, query: (sql: string) => Promise<unknown[]>) => Promise<void>,
): Promise<void> {
  const schema = await createSchema(testDatabaseUrl!);
  try {
    const customerId = await filled(await openPostgresStore(testDatabaseUrl!, { schema: schema.name, max: 2 }), fill);
    for (const table of opts.analyze ?? []) await adminQuery(schema.url, `ANALYZE ${table}`);
    const url = new URL(schema.url);
    url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} ${opts.planner}`);
    const explain = async (sql: string, values: unknown[]) =>
      (await adminQuery<{ 'QUERY PLAN': string }>(url.toString(), `EXPLAIN ${sql}`, values)).map((r) => r['QUERY PLAN']).join('\n');
    await fn(explain, customerId, (sql) => adminQuery(schema.url, sql));
  } finally {
    await schema.drop();
  }
}
