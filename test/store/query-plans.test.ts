// Queries whose cost must not grow with the size of the database, checked on the plan each engine makes for the
// store's own statement text: a query spelled so that it misses its index still gives the right rows (the contract
// passes) while getting slower with every order, so only the plan shows the mistake.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Customer, Store } from '../../src/domain/store/store.ts';
import { FIND_MAIL_SUBMISSIONS_SQL as PG_FIND_MAIL } from '../../src/store/postgres/mail.ts';
import { FIND_MAIL_SUBMISSIONS_SQL as SQLITE_FIND_MAIL } from '../../src/store/sqlite/mail.ts';
import { findBySha as pgFindBySha } from '../../src/store/postgres/store.ts';
import { findBySha as sqliteFindBySha } from '../../src/store/sqlite/store.ts';
import { addSubmission, at } from './fixtures.ts';
import { PG_SKIP } from './pg-schema.ts';
import { withPgPlans, withSqlitePlans } from './plans.ts';

/**
 * Submissions of one customer, few of them from e-mail: the shape of a busy customer's table, where a range scan
 * on received_at (the other index the query could take) would read every one of them.
 */
const ROWS = 1500;

/**
 * A customer's submissions, most of them single orders (REST) and a few files: the same file is looked up through the
 * (customer_id, sha256) index, which holds the files only (migration 025). Spelled without its `single_order` term
 * the statement would still find the file (the contract passes) by reading every one of the customer's submissions.
 */
const fillShas = async (store: Store, c: Customer) => {
  for (let i = 0; i < ROWS; i++) {
    const file = i % 100 === 0;
    await addSubmission(store, c, { receivedAt: at(i % 3600), sha256: `sha-${i}`, singleOrder: !file, channel: file ? 'sftp' : 'rest' });
  }
};

void describe('query plans', () => {
  void it('sqlite: the same file is found through the files-only hash index', async () => {
    await withSqlitePlans(fillShas, (db, customerId) => {
      for (const byChannel of [false, true]) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sqliteFindBySha(byChannel)}`).all({ customerId, sha256: 'sha-100', channel: 'sftp' }) as
          { detail: string }[]).map((r) => r.detail).join('\n');
        assert.match(plan, /USING INDEX submissions_customer_sha/, plan);
      }
      const row = db.prepare(sqliteFindBySha(false)).get({ customerId, sha256: 'sha-100' }) as { channel: string } | undefined;
      assert.equal(row?.channel, 'sftp', 'the statement finds the file');
      assert.equal(db.prepare(sqliteFindBySha(false)).get({ customerId, sha256: 'sha-101' }), undefined, 'not a REST body');
    });
  });

  void it('postgres: the same file is found through the files-only hash index', { skip: PG_SKIP }, async () => {
    await withPgPlans(fillShas, { analyze: ['submissions'], planner: '-c enable_seqscan=off' }, async (explain, customerId) => {
      assert.match(await explain(pgFindBySha(false), [customerId, 'sha-100']), /submissions_customer_sha/);
      assert.match(await explain(pgFindBySha(true), [customerId, 'sha-100', 'sftp']), /submissions_customer_sha/);
    });
  });


  void it('sqlite: the parts of one e-mail message are found through the mail id index', async () => {
    const fill = async (store: Store, c: Customer) => {
      for (let i = 0; i < ROWS; i++) {
        await addSubmission(store, c, { receivedAt: at(i % 3600), ...(i % 100 === 0 ? { channel: 'email', meta: { mail_id: `m${i}`, mail_part: '0' } } : {}) });
      }
    };
    await withSqlitePlans(fill, (db, customerId) => {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${SQLITE_FIND_MAIL}`).all('m100', 'x', at(0)) as { detail: string }[])
        .map((r) => r.detail).join('\n');
      assert.match(plan, /USING INDEX submissions_mail_id/, plan);
      const rows = db.prepare(SQLITE_FIND_MAIL).all('m100', customerId, at(0));
      assert.equal(rows.length, 1, 'the statement finds the one part');
    });
  });

  void it('postgres: the parts of one e-mail message are found through the mail id index', { skip: PG_SKIP }, async () => {
    const fill = async (store: Store, c: Customer) => {
      await addSubmission(store, c, { channel: 'email', meta: { mail_id: 'm1', mail_part: '0' } });
      // A busy customer's submissions, few by e-mail: with statistics (ANALYZE) the planner weighs the mail id index
      // against the customer/time index (migration 010) the way it would on a real table.
      for (let i = 0; i < ROWS; i++) {
        await addSubmission(store, c, { receivedAt: at(i % 3600), ...(i % 100 === 0 ? { channel: 'email', meta: { mail_id: `m${i + 2}`, mail_part: '0' } } : {}) });
      }
    };
    await withPgPlans(fill, { analyze: ['submissions'], planner: '-c enable_seqscan=off' }, async (explain, customerId) => {
      const plan = await explain(PG_FIND_MAIL, ['m1', customerId, at(0)]);
      assert.match(plan, /submissions_mail_id/, plan);
    });
  });
});
