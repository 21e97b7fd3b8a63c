// The console's lists must stay fast with millions of submissions and orders: each filter combination the pages
// use is checked on the plan each engine makes for the store's own statement text. What must not appear is a
// full scan of the table or a sort of it (a "USE TEMP B-TREE FOR ORDER BY" / Sort node over the whole table):
// with an index serving both the filter and the order, a page reads about as many rows as it shows. The text filters
// (a part of the reference, of the customer's code or name, of an article's code or description) have no index that
// finds them: their statements walk the index of the list's order and stop at the page's limit, never sorting.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pgArticleSearch, pgOrderSearch, pgSubmissionSearch } from '../../src/store/postgres/web.ts';
import { sqliteArticleSearch, sqliteOrderSearch, sqliteSubmissionSearch } from '../../src/store/sqlite/web.ts';
import type { ArticleSearch, OrderSearch, SubmissionSearch } from '../../src/domain/store/web.ts';
import { addSubmission, at } from './fixtures.ts';
import { PG_SKIP } from './pg-schema.ts';
import { withPgPlans, withSqlitePlans } from './plans.ts';

const AFTER = { at: at(100), id: '01a2f000-0000-7000-8000-000000000000' };

/** The searches the console's pages make: first page and a later page, with each filter the forms offer. */
function submissionSearches(customerId: string): SubmissionSearch[] {
  return [
    { limit: 50 }, { limit: 50, after: AFTER },
    { limit: 50, customerId }, { limit: 50, customerId, after: AFTER },
    { limit: 50, channel: 'ftp' }, { limit: 50, channel: 'ftp', after: AFTER },
    { limit: 50, outcome: 'errore' }, { limit: 50, outcome: 'errore', after: AFTER },
    { limit: 50, outcome: 'received' }, { limit: 50, outcome: 'failed' }, { limit: 50, outcome: 'ok' },
    { limit: 50, from: at(0), to: at(500) },
    { limit: 50, riferimento: 'R1' }, { limit: 50, riferimento: 'R1', after: AFTER },
    { limit: 50, customer: 'ferri' }, { limit: 50, customer: 'ferri', riferimento: '12', after: AFTER },
  ];
}

function orderSearches(customerId: string): OrderSearch[] {
  return [
    { limit: 50 }, { limit: 50, after: AFTER }, { limit: 50, customerId }, { limit: 50, customerId, after: AFTER },
    { limit: 50, channel: 'portal', after: AFTER }, { limit: 50, riferimento: 'R1' }, { limit: 50, from: at(0), to: at(500) },
    // The portal's "I miei ordini" and the console's filters by a part of the reference and of the customer.
    { limit: 50, customerId, riferimento: '121' }, { limit: 50, customerId, riferimento: '121', after: AFTER },
    { limit: 50, customer: 'ferri' }, { limit: 50, customer: 'ferri', riferimento: '121', after: AFTER },
  ];
}

/** The suggestions of the order forms and the console's catalog page. */
const articleSearches: ArticleSearch[] = [{ text: '', limit: 200 }, { text: 'bv', limit: 50 }, { text: 'bv', limit: 100, demo: true }];

void describe('query plans of the console lists', () => {
  void it('sqlite: every list search uses an index for its filter and its order', async () => {
    await withSqlitePlans(async (store, c) => {
      for (let i = 0; i < 300; i++) await addSubmission(store, c, { receivedAt: at(i), channel: i % 3 ? 'rest' : 'ftp' });
    }, (db, customerId) => {
      const plans = [
        ...submissionSearches(customerId).map(sqliteSubmissionSearch),
        ...orderSearches(customerId).map(sqliteOrderSearch),
        ...articleSearches.map(sqliteArticleSearch),
      ].map(({ sql, values }) => ({ sql, plan: (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[]).map((r) => r.detail).join('\n') }));
      for (const { sql, plan } of plans) {
        assert.doesNotMatch(plan, /^SCAN (submissions|orders)$/m, `${sql}\n${plan}`);
        assert.doesNotMatch(plan, /TEMP B-TREE FOR ORDER BY/, `${sql}\n${plan}`);
        // A submission's attempts are looked up by its key, once per submission the walk meets.
        if (sql.includes('order_attempts')) assert.match(plan, /SEARCH a EXISTS USING PRIMARY KEY \(submission_id=\?\)/, `${sql}\n${plan}`);
        // The lists of refused, received and failed submissions read the partial indexes that hold only those (027).
        // (The select list's `partial` column spells the same term: only the filter after FROM counts.)
        if (sql.split(' FROM submissions')[1]?.includes("= 'errore'")) assert.match(plan, /INDEX submissions_esito_received/, `${sql}\n${plan}`);
        if (sql.includes('state = ?')) assert.match(plan, /INDEX submissions_state_received/, `${sql}\n${plan}`);
      }
    });
  });

  void it('postgres: every list search can be served by an index without sorting the table', { skip: PG_SKIP }, async () => {
    // Told not to sort either: what is checked is that an index can serve each statement's filter and its order.
    await withPgPlans(async () => undefined, { planner: '-c enable_seqscan=off -c enable_sort=off' }, async (explain, customerId) => {
      const all = [
        ...submissionSearches(customerId).map(pgSubmissionSearch), ...orderSearches(customerId).map(pgOrderSearch),
        ...articleSearches.map(pgArticleSearch),
      ];
      for (const { sql, values } of all) {
        const plan = await explain(sql, values);
        assert.doesNotMatch(plan, /Seq Scan on (submissions|orders|articles|order_attempts)/, `${sql}\n${plan}`);
        // Only a full Sort is a problem; an Incremental Sort on a presorted key orders ties of one timestamp.
        assert.doesNotMatch(plan, /(^|->)\s*Sort\s+\(/m, `${sql}\n${plan}`);
      }
    });
  });
});
