// Migration 026 rebuilds the orders table (its identity led by the reference, UNIQUE (year, seq) gone) on databases
// that already hold orders: a file migrated up to 025, filled through the store, then migrated by the service's own
// runner. Nothing may be lost, nothing referencing an order may point nowhere, and the order identity must still
// hold. The store's statements name no index, so they run on either shape.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { migrationsDir, readMigrations } from '../../src/store/common/migrate.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Outcome } from '../../src/domain/types.ts';
import { addCustomer, addSubmission, at, item } from './fixtures.ts';

/** Applies the migrations before `version` as the runner would (foreign keys off where a file says so). */
async function migrateBefore(file: string, version: number): Promise<void> {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT');
    for (const m of (await readMigrations(migrationsDir('sqlite'))).filter((x) => x.version < version)) {
      db.pragma(`foreign_keys = ${m.sql.startsWith('-- sqlite:foreign_keys=off') ? 'OFF' : 'ON'}`);
      db.transaction(() => {
        db.exec(m.sql);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, at(0));
      })();
    }
  } finally {
    db.close();
  }
}

const ordersIndexes = (db: Database.Database) => (db.prepare(`SELECT il.name, il.[unique] AS u,
  (SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_index_info(il.name) ORDER BY seqno)) AS cols
  FROM pragma_index_list('orders') il ORDER BY cols`).all() as { name: string; u: number; cols: string }[]).map((r) => `${r.u ? 'unique ' : ''}${r.cols}`);

void describe('sqlite migration 026 (reference indexes)', () => {
  void it('rebuilds orders with everything in it: rows, lines, numbers, identity, and what references them', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'intake-026-'));
    const file = path.join(dir, 'intake.sqlite');
    try {
      await migrateBefore(file, 26);
      // This release's store writes the order's note (migration 033): the column is added here so that it can fill
      // the old shape. 026 rebuilds orders without it, and 031 adds it again.
      const raw = new Database(file);
      raw.exec('ALTER TABLE orders ADD COLUMN note TEXT');
      raw.close();
      const old = await openSqliteStore(file);
      const [a, b] = [await addCustomer(old, 'C001'), await addCustomer(old, 'C002')];
      const sub = await addSubmission(old, a, { channel: 'ftp', singleOrder: false });
      const made = await old.registerOrders([item(a, sub, 'R1'), item(a, sub, 'R2'), item(a, sub, 'SHARED')]);
      const subB = await addSubmission(old, b, { channel: 'ftp', singleOrder: false });
      const [shared] = await old.registerOrders([item(b, subB, 'SHARED')]);
      const refused = await addSubmission(old, a, { channel: 'ftp', singleOrder: false });
      const outcome: Outcome = { submissionId: refused, esito: 'errore', orders: [{ index: 0, riferimento_ordine: 'R9', esito: 'errore', code: 'BUSINESS' }] };
      await old.completeSubmission(refused, 'processed', outcome, at(2));
      await old.close();

      const store = await openSqliteStore(file);
      try {
        assert.equal((await store.migrate())[0], '026_reference_indexes.sql');
        const r1 = await store.getOrderByRef(a.id, 'R1');
        assert.equal(r1?.numero_ordine, made[0]!.numero_ordine);
        assert.equal(r1?.righe.length, 2, 'the lines are kept');
        assert.equal((await store.getOrderByRef(b.id, 'SHARED'))?.numero_ordine, shared!.numero_ordine, "each customer's own order of a shared reference");
        assert.equal((await store.getOrderByRef(a.id, 'SHARED'))?.numero_ordine, made[2]!.numero_ordine);
        assert.equal((await store.latestAttempt(a.id, 'R9'))?.submissionId, refused, 'the attempts are kept');

        // The identity still holds, and numbering goes on after the numbers already given.
        const again = await addSubmission(store, a, { channel: 'ftp', singleOrder: false });
        const [dup, next] = await store.registerOrders([item(a, again, 'R1'), item(a, again, 'R3')]);
        assert.deepEqual([dup!.status, dup!.numero_ordine], ['duplicate', made[0]!.numero_ordine]);
        assert.deepEqual([next!.status, next!.numero_ordine], ['created', '2025-000005']);
      } finally {
        await store.close();
      }

      const db = new Database(file, { readonly: true });
      try {
        assert.deepEqual(db.pragma('foreign_key_check'), [], 'nothing points to an order that is gone');
        assert.equal((db.prepare('SELECT count(*) AS n FROM order_lines').get() as { n: number }).n, 10);
        assert.deepEqual(ordersIndexes(db), [
          'channel,registered_at,id', 'customer_id,registered_at,id', 'unique id', 'unique numero_ordine', 'registered_at,id',
          'unique riferimento_ordine,codice_cliente', 'submission_id',
        ]);
      } finally {
        db.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
