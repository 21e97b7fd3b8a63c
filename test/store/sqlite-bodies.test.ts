/**
 * SQLite keeps a submission's raw bytes in pieces beside its row (migration 015, src/store/sqlite/bodies.ts), so
 * that updating the row (claiming it, recording its outcome) does not rewrite the file; a small body stays in the row. SQLite only: PostgreSQL
 * keeps a large bytea out of line and never rewrote it; the store contract (contract.ts) checks on both engines
 * that the bytes come back exactly.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { Outcome } from '../../src/domain/types.ts';
import { INLINE_BODY_BYTES, SUBMISSION_CHUNK_BYTES } from '../../src/store/sqlite/bodies.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { addCustomer, newSubmission } from './fixtures.ts';

async function withFile(fn: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'intake-bodies-'));
  try {
    await fn(path.join(dir, 'intake.sqlite'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void describe('SQLite submission bodies', () => {
  void it('stores the bytes in pieces, leaves the row empty, and gives them back exactly after the outcome is recorded', () => withFile(async (file) => {
    const store = await openSqliteStore(file);
    await store.migrate();
    const customer = await addCustomer(store, 'C001');
    const raw = randomBytes(2 * SUBMISSION_CHUNK_BYTES + 12345);
    const saved = await store.saveSubmission(newSubmission(customer, { raw, channel: 'sftp' }));
    const empty = await store.saveSubmission(newSubmission(customer, { raw: Buffer.alloc(0) }));
    await store.completeSubmission(saved.id, 'processed', { submissionId: saved.id, esito: 'errore', orders: [] }, new Date().toISOString());
    assert.deepEqual((await store.getSubmission(saved.id))!.raw, raw);
    assert.equal((await store.getSubmission(empty.id))!.raw.length, 0);
    const listed = await store.listSubmissions({ customerId: customer.id, limit: 10 });
    assert.deepEqual(listed.map((s) => [s.id, s.size]).sort(), [[saved.id, raw.length], [empty.id, 0]].sort());
    await store.close();

    const db = new Database(file, { readonly: true });
    try {
      assert.equal((db.prepare('SELECT length(raw) AS n FROM submissions WHERE id = ?').get(saved.id) as { n: number }).n, 0);
      const pieces = db.prepare('SELECT seq, length(data) AS n FROM submission_chunks WHERE submission_id = ? ORDER BY seq').all(saved.id);
      assert.deepEqual(pieces, [{ seq: 0, n: SUBMISSION_CHUNK_BYTES }, { seq: 1, n: SUBMISSION_CHUNK_BYTES }, { seq: 2, n: 12345 }]);
    } finally {
      db.close();
    }
  }));

  void it(`keeps a body of up to ${INLINE_BODY_BYTES} bytes in the row, one byte more in pieces, each given back exactly`, () => withFile(async (file) => {
    const store = await openSqliteStore(file);
    await store.migrate();
    const customer = await addCustomer(store, 'C001');
    const small = randomBytes(INLINE_BODY_BYTES);
    const over = randomBytes(INLINE_BODY_BYTES + 1);
    // The REST path's write (through the write thread) and the plain save.
    const a = newSubmission(customer, { raw: small, singleOrder: true });
    const refused = (id: string): Outcome => ({ submissionId: id, esito: 'errore', orders: [] });
    await store.saveSingleOrder(a, { outcome: refused(a.id) }, new Date().toISOString());
    const b = await store.saveSubmission(newSubmission(customer, { raw: over }));
    await store.completeSubmission(b.id, 'processed', refused(b.id), new Date().toISOString());
    assert.deepEqual((await store.getSubmission(a.id))!.raw, small);
    assert.deepEqual((await store.getSubmission(b.id))!.raw, over);
    const listed = await store.listSubmissions({ customerId: customer.id, limit: 10 });
    assert.deepEqual(listed.map((s) => [s.id, s.size]).sort(), [[a.id, small.length], [b.id, over.length]].sort());
    await store.close();

    const db = new Database(file, { readonly: true });
    try {
      const where = (id: string) => ({
        row: (db.prepare('SELECT length(raw) AS n FROM submissions WHERE id = ?').get(id) as { n: number }).n,
        pieces: (db.prepare('SELECT count(*) AS n FROM submission_chunks WHERE submission_id = ?').get(id) as { n: number }).n,
      });
      assert.deepEqual(where(a.id), { row: small.length, pieces: 0 });
      assert.deepEqual(where(b.id), { row: 0, pieces: 1 });
    } finally {
      db.close();
    }
  }));

  void it('still reads a submission saved before migration 015, with its bytes in the row', () => withFile(async (file) => {
    const store = await openSqliteStore(file);
    await store.migrate();
    const customer = await addCustomer(store, 'C001');
    const saved = await store.saveSubmission(newSubmission(customer));
    await store.close();
    // As an older release left it: the bytes in submissions.raw, no pieces.
    const old = Buffer.from('codice_cliente;riferimento_ordine\nC001;OLD-1\n');
    const db = new Database(file);
    db.prepare('DELETE FROM submission_chunks WHERE submission_id = ?').run(saved.id);
    db.prepare('UPDATE submissions SET raw = ? WHERE id = ?').run(old, saved.id);
    db.close();
    const again = await openSqliteStore(file);
    try {
      assert.deepEqual((await again.getSubmission(saved.id))!.raw, old);
      const [listed] = await again.listSubmissions({ customerId: customer.id, limit: 1 });
      assert.equal(listed!.size, old.length);
    } finally {
      await again.close();
    }
  }));
});
