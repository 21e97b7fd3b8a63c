// Queries whose cost must not grow with the size of the database, checked on the plan each engine makes for the
// store's own statement text: a query spelled so that it misses its index still gives the right rows (the contract
// passes) while getting slower with every order, so only the plan shows the mistake.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { FIND_MAIL_SUBMISSIONS_SQL as PG_FIND_MAIL } from '../../src/store/postgres/mail.ts';
import { FIND_MAIL_SUBMISSIONS_SQL as SQLITE_FIND_MAIL } from '../../src/store/sqlite/mail.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { addCustomer, addSubmission, at } from './fixtures.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from './pg-schema.ts';

/**
 * Submissions of one customer, few of them from e-mail: the shape of a busy customer's table, where a range scan
 * on received_at (the other index the query could take) would read every one of them.
 */
const ROWS = 1500;

void describe('query plans', () => {
  void it('sqlite: the parts of one e-mail message are found through the mail id index', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-plan-'));
    const file = path.join(dir, 'intake.sqlite');
    try {
      const store = await openSqliteStore(file);
      try {
        await store.migrate();
        const c = await addCustomer(store, 'C001');
        for (let i = 0; i < ROWS; i++) {
          await addSubmission(store, c, { receivedAt: at(i % 3600), ...(i % 100 === 0 ? { channel: 'email', meta: { mail_id: `m${i}`, mail_part: '0' } } : {}) });
        }
      } finally {
        await store.close();
      }
      const db = new Database(file);
      try {
        db.exec('ANALYZE');
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${SQLITE_FIND_MAIL}`).all('m100', 'x', at(0)) as { detail: string }[])
          .map((r) => r.detail).join('\n');
        assert.match(plan, /USING INDEX submissions_mail_id/, plan);
        const rows = db.prepare(SQLITE_FIND_MAIL).all('m100', (db.prepare('SELECT id FROM customers').get() as { id: string }).id, at(0));
        assert.equal(rows.length, 1, 'the statement finds the one part');
      } finally {
        db.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  void it('postgres: the parts of one e-mail message are found through the mail id index', { skip: PG_SKIP }, async () => {
    const schema = await createSchema(testDatabaseUrl!);
    try {
      const store = await openPostgresStore(testDatabaseUrl!, { schema: schema.name, max: 2 });
      let customerId: string;
      try {
        await store.migrate();
        const c = await addCustomer(store, 'C001');
        customerId = c.id;
        await addSubmission(store, c, { channel: 'email', meta: { mail_id: 'm1', mail_part: '0' } });
        // A busy customer's submissions, few by e-mail: with statistics (ANALYZE below) the planner weighs the mail id
        // index against the customer/time index (migration 010) the way it would on a real table.
        for (let i = 0; i < ROWS; i++) {
          await addSubmission(store, c, { receivedAt: at(i % 3600), ...(i % 100 === 0 ? { channel: 'email', meta: { mail_id: `m${i + 2}`, mail_part: '0' } } : {}) });
        }
      } finally {
        await store.close();
      }
      await adminQuery(schema.url, 'ANALYZE submissions');
      // A small table is cheaper to read whole, so the planner is told not to: what is checked is that the index
      // can serve this statement at all (its expression and the statement's agree), not a cost estimate.
      const url = new URL(schema.url);
      url.searchParams.set('options', `${url.searchParams.get('options') ?? ''} -c enable_seqscan=off`);
      const plan = (await adminQuery<{ 'QUERY PLAN': string }>(url.toString(), `EXPLAIN ${PG_FIND_MAIL}`, ['m1', customerId, at(0)]))
        .map((r) => r['QUERY PLAN']).join('\n');
      assert.match(plan, /submissions_mail_id/, plan);
    } finally {
      await schema.drop();
    }
  });
});
