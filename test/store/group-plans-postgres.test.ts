// The group statements' generic plans (register-batch.ts, PLANS): a prepared statement keeps one plan made with the
// statistics of its sixth run, often on a small table, so a lookup that such a plan turns into a sequential scan reads
// the whole table on every group for as long as the plan lives. Checked on the plan PostgreSQL makes when told to
// make a generic one, for the tables as they are when a service starts on a fresh database: no group statement may
// read `orders` or `order_attempts` whole. Skipped, visibly, without INTAKE_TEST_DATABASE_URL (fails in CI).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { completeGroupSql } from '../../src/store/postgres/complete-batch.ts';
import { registerGroupSql } from '../../src/store/postgres/register-batch.ts';
import { singleGroupSql } from '../../src/store/postgres/single-batch.ts';
import { PG_SKIP, withPgInstances } from './pg-schema.ts';

/** The generic plan of `sql` (every parameter of which is cast, so PREPARE infers its types). */
async function genericPlan(url: string, sql: string): Promise<string> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SET plan_cache_mode = force_generic_plan');
    await c.query(`PREPARE g AS ${sql}`);
    const params = Math.max(...[...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
    const { rows } = await c.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE g(${Array(params).fill('NULL').join(', ')})`);
    return rows.map((r) => r['QUERY PLAN']).join('\n');
  } finally {
    await c.end();
  }
}

const WHOLE_TABLE = /Seq Scan on (orders|order_attempts)\b/;

void describe('group statement plans on PostgreSQL', { skip: PG_SKIP }, () => {
  void it('look up existing orders through an index, with or without the outbox', () =>
    withPgInstances(1, async (_stores, schema) => {
      for (const outbox of [true, false]) {
        const plan = await genericPlan(schema.url, registerGroupSql(outbox));
        assert.doesNotMatch(plan, WHOLE_TABLE, plan);
        assert.match(plan, /Index Scan using \w+ on orders/, plan);
        // The claim's fence reads each order's submission by its key, not the table.
        assert.doesNotMatch(plan, /Seq Scan on submissions\b/, plan);
        assert.match(plan, /Index Scan using submissions_pkey on submissions/, plan);
      }
    }));

  void it('look up the existing order of a single order saved processed through an index', () =>
    withPgInstances(1, async (_stores, schema) => {
      const plan = await genericPlan(schema.url, singleGroupSql());
      assert.doesNotMatch(plan, WHOLE_TABLE, plan);
      assert.match(plan, /Index Scan using \w+ on orders/, plan);
    }));

  void it('find an earlier judgement\'s attempts through an index', () =>
    withPgInstances(1, async (_stores, schema) => {
      const plan = await genericPlan(schema.url, completeGroupSql());
      assert.doesNotMatch(plan, WHOLE_TABLE, plan);
      assert.match(plan, /Index Scan using order_attempts_pkey|Bitmap Index Scan on order_attempts_pkey/, plan);
    }));
});
