/**
 * A submission whose bytes are in a local file (Submission.rawFile: an FTP/SFTP upload in the spool) is stored with
 * exactly those bytes on both engines, answered without them (judging reads the file), and refused when the file is
 * not the size that was hashed: what is stored must be what was hashed and acknowledged.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Store } from '../../src/domain/store/store.ts';
import { SUBMISSION_CHUNK_BYTES } from '../../src/store/sqlite/bodies.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { addCustomer, newSubmission } from './fixtures.ts';
import { PG_SKIP, withPgInstances } from './pg-schema.ts';

async function check(store: Store, dir: string): Promise<void> {
  const customer = await addCustomer(store, 'C001');
  const raw = randomBytes(2 * SUBMISSION_CHUNK_BYTES + 777);
  const file = path.join(dir, 'upload');
  await writeFile(file, raw);
  const sha256 = createHash('sha256').update(raw).digest('hex');
  const saved = await store.saveSubmission(newSubmission(customer, { raw: Buffer.alloc(0), rawFile: { path: file, size: raw.length, sha256 }, sha256, channel: 'ftp' }));
  assert.equal(saved.raw.length, 0, 'answered without the bytes');
  assert.deepEqual(saved.rawFile, { path: file, size: raw.length, sha256 });
  const back = await store.getSubmission(saved.id);
  assert.deepEqual(back!.raw, raw);
  assert.equal(back!.rawFile, undefined, 'a submission read back has its bytes, not the file');
  assert.equal((await store.listSubmissions({ customerId: customer.id, limit: 5 }))[0]!.size, raw.length);
  await assert.rejects(store.saveSubmission(newSubmission(customer, { raw: Buffer.alloc(0), rawFile: { path: file, size: raw.length + 1, sha256 }, sha256 })));
  assert.equal((await store.listSubmissions({ customerId: customer.id, limit: 5 })).length, 1, 'nothing saved from a file of the wrong size');
}

async function inTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'intake-rawfile-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void describe('submissions saved from a local file', () => {
  void it('SQLite: stored in pieces from the file, exactly', () => inTempDir(async (dir) => {
    const store = await openSqliteStore(path.join(dir, 'intake.sqlite'));
    try {
      await store.migrate();
      await check(store, dir);
    } finally {
      await store.close();
    }
  }));

  void it('PostgreSQL: stored from the file, exactly', { skip: PG_SKIP }, () => inTempDir((dir) => withPgInstances(1, ([store]) => check(store!, dir))));
});
