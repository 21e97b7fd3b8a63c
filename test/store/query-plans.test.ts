// Queries whose cost must not grow with the size of the database, checked on the plan each engine makes for the
// store's own statement text: a query spelled so that it misses its index still gives the right rows (the contract
// passes) while getting slower with every order, so only the plan shows the mistake.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Customer, Store } from '../../src/domain/store/store.ts';
import type { Outcome } from '../../src/domain/types.ts';
import { connectorLatestAttemptSql as pgConnectorLatest } from '../../src/store/postgres/connector-tenants.ts';
import { connectorLatestAttemptSql as sqliteConnectorLatest } from '../../src/store/sqlite/connector-tenants.ts';
import { FIND_MAIL_SUBMISSIONS_SQL as PG_FIND_MAIL } from '../../src/store/postgres/mail.ts';
import { FIND_MAIL_SUBMISSIONS_SQL as SQLITE_FIND_MAIL } from '../../src/store/sqlite/mail.ts';
import {
  findBySha as pgFindBySha, LATEST_ATTEMPT_SQL as PG_LATEST, ORDER_BY_REF_SQL as PG_BY_REF, PENDING_SQL as PG_PENDING,
} from '../../src/store/postgres/store.ts';
import { listSubmissionsSql as pgListSubmissions } from '../../src/store/postgres/store.ts';
import { listSubmissionsSql as sqliteListSubmissions } from '../../src/store/sqlite/store.ts';
import {
  findBySha as sqliteFindBySha, LATEST_ATTEMPT_SQL as SQLITE_LATEST, ORDER_BY_REF_SQL as SQLITE_BY_REF,
} from '../../src/store/sqlite/store.ts';
import { IDENTITY_SQL as SQLITE_IDENTITY } from '../../src/store/sqlite/write-ops.ts';
import { RECEIVED_IDS_SQL as SQLITE_RECEIVED } from '../../src/store/sqlite/work.ts';
import { COUNT_PARTIAL_SQL as SQLITE_COUNT_PARTIAL, COUNT_REFUSED_SQL as SQLITE_COUNT_REFUSED } from '../../src/store/sqlite/web.ts';
import { COUNT_PARTIAL_SQL as PG_COUNT_PARTIAL, COUNT_REFUSED_SQL as PG_COUNT_REFUSED } from '../../src/store/postgres/web.ts';
import { CLAIM_SQL as PG_CLAIM } from '../../src/store/postgres/work.ts';
import { addCustomer, addSubmission, at, item } from './fixtures.ts';
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

/**
 * Orders and refused attempts of two customers under the same references: each table has one index led by the
 * reference (migration 026), and every lookup by reference must seek it rather than read a customer's rows or the
 * table. A lookup spelled so that it misses the index still finds the order (the contract passes).
 */
const fillRefs = async (store: Store, c: Customer) => {
  const other = await addCustomer(store, 'C002');
  for (const who of [c, other]) {
    const sub = await addSubmission(store, who, { channel: 'ftp', singleOrder: false });
    await store.registerOrders(Array.from({ length: ROWS / 2 }, (_, i) => item(who, sub, `R${i}`)));
    const refused = await addSubmission(store, who, { channel: 'ftp', singleOrder: false });
    const outcome: Outcome = {
      submissionId: refused, esito: 'errore',
      orders: Array.from({ length: ROWS / 2 }, (_, i) => ({ index: i, riferimento_ordine: `X${i}`, esito: 'errore' as const, code: 'BUSINESS' as const })),
    };
    await store.completeSubmission(refused, 'processed', outcome, at(1));
  }
};

/** SQLite's plan seeks an index by the reference: `SEARCH <table> USING … INDEX <name> (riferimento_ordine=?…`. */
const SQLITE_SEEKS_REF = /SEARCH (orders|order_attempts|a) USING (COVERING )?INDEX \S+ \(riferimento_ordine=\?/;

/**
 * Mostly REST orders (written processed and accepted), with a few files still received, a few failed and a few
 * refused: the partial state and esito indexes (migration 027) hold only those few, and the statements that read
 * them must spell the index's term for SQLite to take it. Spelled without it, the sweeper still finds its rows (the
 * contract passes) by reading every submission.
 */
const fillStates = async (store: Store, c: Customer) => {
  for (let i = 0; i < ROWS; i++) {
    const id = await addSubmission(store, c, { receivedAt: at(i % 3600), singleOrder: i % 50 !== 0, channel: i % 50 ? 'rest' : 'sftp' });
    if (i % 50 === 0) continue;
    const esito = i % 97 === 0 ? 'errore' : 'ok';
    const outcome: Outcome = { submissionId: id, esito, orders: [] };
    await store.completeSubmission(id, i % 199 === 0 ? 'failed' : 'processed', outcome, at(i % 3600));
  }
};

void describe('query plans', () => {
  void it('sqlite: the sweeper and the refusals read the partial state and esito indexes', async () => {
    await withSqlitePlans(fillStates, (db) => {
      const explain = (sql: string, values: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[])
        .map((r) => r.detail).join('\n');
      assert.match(explain(SQLITE_RECEIVED, [10]), /SEARCH submissions USING INDEX submissions_state_received \(state=\?\)/);
      assert.match(explain(SQLITE_COUNT_REFUSED, [at(0)]), /USING (COVERING )?INDEX submissions_esito_received/);
      assert.match(explain(SQLITE_COUNT_PARTIAL, [at(0)]), /SEARCH submissions USING INDEX submissions_esito_received/);
      assert.equal((db.prepare(SQLITE_RECEIVED).all(1000) as unknown[]).length, ROWS / 50, 'the statement finds the received files');
      const partial = db.prepare(`SELECT name, partial FROM pragma_index_list('submissions') WHERE name IN ('submissions_state_received', 'submissions_esito_received')`).all();
      assert.deepEqual(partial.map((r) => (r as { partial: number }).partial), [1, 1], 'both indexes are partial');
      assert.equal((db.prepare(`SELECT count(*) AS n FROM submissions INDEXED BY submissions_state_received WHERE state = 'failed' AND state <> 'processed'`).get() as { n: number }).n,
        (db.prepare(`SELECT count(*) AS n FROM submissions WHERE state = 'failed'`).get() as { n: number }).n, 'the failed rows are in it');
    });
  });

  void it('postgres: the sweeper, recovery and the refusals read partial indexes', { skip: PG_SKIP }, async () => {
    await withPgPlans(fillStates, { analyze: ['submissions'], planner: '-c enable_seqscan=off -c enable_bitmapscan=off' }, async (explain, _c, query) => {
      const defs = await query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()
        AND indexname IN ('submissions_state_received', 'submissions_esito_received') ORDER BY indexname`) as { indexdef: string }[];
      assert.deepEqual(defs.map((d) => / WHERE /.test(d.indexdef)), [true, true], 'both indexes are partial');
      // PostgreSQL's sweeper has had its own partial index of received rows since migration 002 (submissions_claimable).
      assert.match(await explain(PG_CLAIM, ['h', 10, 1000]), /Index Scan using submissions_(claimable|state_received) on submissions/);
      assert.match(await explain(PG_PENDING, [10]), /Index Scan using submissions_(claimable|state_received) on submissions/);
      assert.match(await explain(PG_COUNT_REFUSED, [at(0)]), /Index (Only )?Scan using submissions_esito_received on submissions/);
      assert.match(await explain(PG_COUNT_PARTIAL, [at(0)]), /Index Scan using submissions_esito_received on submissions/);
    });
  });

  void it('sqlite: every lookup by reference seeks the one index led by the reference', async () => {
    await withSqlitePlans(fillRefs, (db, customerId) => {
      const explain = (sql: string, values: unknown[]) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...values) as { detail: string }[])
        .map((r) => r.detail).join('\n');
      const cases: [string, unknown[]][] = [
        [SQLITE_IDENTITY, ['C001', 'R7']], [SQLITE_BY_REF, [customerId, 'R7']], [SQLITE_LATEST, [customerId, 'X7']],
        [sqliteConnectorLatest(true), ['X7', customerId, 'k', 'k']], [sqliteConnectorLatest(false), ['X7', 'owner', 'k', 'k']],
      ];
      for (const [sql, values] of cases) assert.match(explain(sql, values), SQLITE_SEEKS_REF, `${sql}\n${explain(sql, values)}`);
      assert.equal((db.prepare(SQLITE_BY_REF).get(customerId, 'R7') as { codice_cliente: string }).codice_cliente, 'C001', 'the statement finds the order');
      const indexes = (table: string) => (db.prepare(`SELECT il.name FROM pragma_index_list(?) il
        WHERE (SELECT name FROM pragma_index_info(il.name) WHERE seqno = 0) = 'riferimento_ordine'`).all(table) as { name: string }[]).length;
      assert.deepEqual([indexes('orders'), indexes('order_attempts')], [1, 1], 'one index led by the reference per table');
    });
  });

  void it('postgres: every lookup by reference seeks the one index led by the reference', { skip: PG_SKIP }, async () => {
    await withPgPlans(fillRefs, { analyze: ['orders', 'order_attempts'], planner: '-c enable_seqscan=off -c enable_bitmapscan=off' }, async (explain, customerId) => {
      const cases: [string, unknown[], RegExp][] = [
        [PG_BY_REF, [customerId, 'R7'], /Index Scan using orders_identity on orders/],
        [PG_LATEST, [customerId, 'X7'], /Index Scan (Backward )?using order_attempts_ref on order_attempts/],
        [pgConnectorLatest(true), ['k', 'X7', customerId], /Index Scan (Backward )?using order_attempts_ref on order_attempts/],
        [pgConnectorLatest(false), ['k', 'X7', 'owner'], /Index Scan (Backward )?using order_attempts_ref on order_attempts/],
      ];
      for (const [sql, values, index] of cases) {
        const plan = await explain(sql, values);
        assert.match(plan, index, `${sql}\n${plan}`);
        assert.match(plan, /Index Cond: \(+riferimento_ordine = /, `${sql}\n${plan}`);
      }
    });
  });

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


  // The FTP/SFTP tree's window (tree.ts): a customer's newest files among many more REST orders (fillShas: one in a
  // hundred is a file). Through the index of all the customer's submissions it would read past every newer REST order.
  void it('sqlite: the FTP/SFTP window reads the files-only index', async () => {
    await withSqlitePlans(fillShas, (db, customerId) => {
      // The channels the tree asks for: its files and the order desk's corrections of them.
      const sql = sqliteListSubmissions({ state: false, customerId: true, channels: ['console', 'ftp', 'sftp'] });
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all({ customerId, limit: 10 }) as { detail: string }[]).map((r) => r.detail).join('\n');
      assert.match(plan, /USING INDEX submissions_customer_files/, plan);
      const rows = db.prepare(sql).all({ customerId, limit: 10 }) as { channel: string }[];
      assert.equal(rows.length, 10);
      assert.ok(rows.every((r) => r.channel === 'sftp'), 'files only');
    });
  });

  void it('postgres: the FTP/SFTP window reads the files-only index', { skip: PG_SKIP }, async () => {
    await withPgPlans(fillShas, { analyze: ['submissions'], planner: '-c enable_seqscan=off' }, async (explain, customerId) => {
      const plan = await explain(pgListSubmissions({ state: false, customerId: true, channels: ['sftp', 'console', 'ftp'] }), [customerId, 10]);
      assert.match(plan, /submissions_customer_files/, plan);
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
