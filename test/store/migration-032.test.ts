// Migration 032 marks the demo catalog of a database seeded before it: the seed's articles (code and the seed's own
// description) where the DEMO customer exists; an article an import changed, and every real one, stay real. Run on
// each engine against a migrated store whose demo column is dropped first, so the file is applied as an older
// database would get it.
import assert from 'node:assert/strict';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { migrationsDir } from '../../src/store/common/migrate.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { DEMO_ARTICLES, DEMO_CUSTOMER } from '../../src/seed/demo.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from './pg-schema.ts';

const sql = (engine: 'sqlite' | 'postgres') => readFile(new URL('032_article_demo.sql', migrationsDir(engine)), 'utf8');

/** A catalog as an older release left it: the seed's articles, one of them changed by an import, and a real one. */
async function seededBefore032(store: Store, withDemoCustomer: boolean): Promise<void> {
  if (withDemoCustomer) await store.createCustomer({ id: 'demo', code: DEMO_CUSTOMER.code, name: DEMO_CUSTOMER.name, mailbox: 'demo@ordini.test' });
  await store.upsertArticles(DEMO_ARTICLES.map(({ demo: _demo, ...a }) => a));
  await store.upsertArticles([
    { codice_articolo: 'VOL-A4', descrizione: 'Volantini A4 del nostro listino', unita_misura: 'PZ' },
    { codice_articolo: 'REAL-1', descrizione: 'Articolo vero', unita_misura: 'PZ' },
  ]);
}

async function demoCodes(store: Store): Promise<string[]> {
  return (await store.searchArticles({ text: '', limit: 100, demo: true })).filter((a) => a.demo).map((a) => a.codice_articolo).sort();
}

const expected = DEMO_ARTICLES.map((a) => a.codice_articolo).filter((c) => c !== 'VOL-A4').sort();

async function onSqlite(withDemoCustomer: boolean): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), 'intake-032-'));
  const file = path.join(dir, 'intake.sqlite');
  try {
    const store = await openSqliteStore(file);
    await store.migrate();
    await seededBefore032(store, withDemoCustomer);
    await store.close();
    const db = new Database(file);
    db.exec('ALTER TABLE articles DROP COLUMN demo');
    db.exec(await sql('sqlite'));
    db.close();
    const again = await openSqliteStore(file);
    try {
      return await demoCodes(again);
    } finally {
      await again.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void describe('migration 032 (demo articles)', () => {
  void it('sqlite: marks the seed\'s articles where the DEMO customer exists, and nothing else', async () => {
    assert.deepEqual(await onSqlite(true), expected);
    assert.deepEqual(await onSqlite(false), [], 'no DEMO customer: the seed never ran, these are real articles');
  });

  void it('postgres: the same', { skip: PG_SKIP }, async () => {
    for (const withDemoCustomer of [true, false]) {
      const schema = await createSchema(testDatabaseUrl!, 'm032');
      try {
        const store = await openPostgresStore(schema.url, { max: 2 });
        try {
          await store.migrate();
          await seededBefore032(store, withDemoCustomer);
          await adminQuery(schema.url, 'ALTER TABLE articles DROP COLUMN demo');
          await adminQuery(schema.url, await sql('postgres'));
          assert.deepEqual(await demoCodes(store), withDemoCustomer ? expected : []);
        } finally {
          await store.close();
        }
      } finally {
        await schema.drop();
      }
    }
  });
});
