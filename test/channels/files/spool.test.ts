/**
 * The spool writer gathers consecutive writes into large disk writes. What must stay true: the file holds what
 * the writes said, in the order they came (SFTP may send WRITEs out of order and overlapping), and a disk write
 * that fails makes the upload fail at the latest at close(), so it is never acknowledged.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SPOOL_BUFFER_BYTES, SpoolWriter, TooLargeError } from '../../../src/channels/files/spool.ts';

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'spool-test-'));
});
after(() => rm(dir, { recursive: true, force: true }));

let n = 0;
const fresh = (max = 64 * 1024 * 1024) => SpoolWriter.open(path.join(dir, `f${n++}`), max, 'exclusive');

/** Deterministic bytes: position-dependent, so a piece written at the wrong place shows. */
function pattern(length: number, seed: number): Buffer {
  const b = Buffer.alloc(length);
  for (let i = 0; i < length; i++) b[i] = (i * 31 + seed * 7) & 0xff;
  return b;
}

void describe('SpoolWriter', () => {
  void it('writes 32 KiB SFTP-style pieces, in flight together, as one file', async () => {
    const data = pattern(3 * SPOOL_BUFFER_BYTES + 12_345, 1);
    const w = await fresh();
    const writes: Promise<void>[] = [];
    for (let at = 0; at < data.length; at += 32 * 1024) writes.push(w.write(data.subarray(at, at + 32 * 1024), at));
    await Promise.all(writes);
    assert.equal(w.size, data.length);
    await w.close();
    assert.deepEqual(await readFile(w.file), data);
  });

  void it('takes a buffer again only once its bytes are on disk: every megabyte keeps its own bytes', async () => {
    // Random bytes, unlike pattern(), differ from one megabyte to the next: a buffer refilled before its disk write
    // ended would put the next megabyte's bytes in its place.
    const data = randomBytes(8 * SPOOL_BUFFER_BYTES + 777);
    for (const inFlight of [1, 64]) {
      const w = await fresh();
      const writes = new Set<Promise<void>>();
      for (let at = 0; at < data.length; at += 32 * 1024) {
        const p = w.write(data.subarray(at, at + 32 * 1024), at).finally(() => writes.delete(p));
        writes.add(p);
        if (writes.size >= inFlight) await Promise.race(writes);
      }
      await Promise.all(writes);
      await w.close();
      assert.ok((await readFile(w.file)).equals(data), `${inFlight} in flight: the file differs from what was written`);
    }
  });

  void it('keeps what out-of-order and overlapping writes say, the later write winning', async () => {
    const w = await fresh();
    const big = SPOOL_BUFFER_BYTES + 1;
    const expected = Buffer.alloc(300_000 + big);
    const apply = (data: Buffer, at: number) => {
      data.copy(expected, at);
      return w.write(data, at);
    };
    // Each write is started in the order listed, without waiting, as an SFTP client with requests in flight does.
    await Promise.all([
      apply(pattern(50_000, 2), 100_000), // a hole before it, filled later
      apply(pattern(50_000, 3), 150_000), // continues the previous one: gathered
      apply(pattern(100_000, 4), 0),
      apply(pattern(10_000, 5), 120_000), // overwrites part of the gathered bytes
      apply(pattern(30_000, 6), 170_000), // and again, across their end
      apply(pattern(big, 7), 300_000), // larger than the buffer, after a hole that stays zeros
      apply(pattern(5, 8), 3),
      apply(pattern(20, 9), 300_000 + big - 10), // overlaps the end of the large write and grows the file
    ]);
    await w.close();
    const want = Buffer.concat([expected, Buffer.alloc(10)]);
    pattern(20, 9).copy(want, 300_000 + big - 10);
    assert.equal(w.size, want.length);
    assert.deepEqual(await readFile(w.file), want);
  });

  void it('appends FTP-style pieces one after the other and resumes a kept file where asked', async () => {
    const file = path.join(dir, 'resume');
    const first = await SpoolWriter.open(file, 1 << 20, 'new');
    await first.write(Buffer.from('hello '));
    await first.write(Buffer.from('wor'));
    await first.close();
    const again = await SpoolWriter.open(file, 1 << 20, 'keep', 6);
    await again.write(Buffer.from('world'));
    await again.close();
    assert.equal(await readFile(file, 'utf8'), 'hello world');
  });

  void it('hashes the file while in-order writes arrive, and gives that up for any other write', async () => {
    const data = randomBytes(2 * SPOOL_BUFFER_BYTES + 4321);
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const inOrder = await fresh();
    const writes: Promise<void>[] = [];
    for (let at = 0; at < data.length; at += 32 * 1024) writes.push(inOrder.write(data.subarray(at, at + 32 * 1024), at));
    await Promise.all(writes);
    assert.equal(inOrder.sha256, undefined, 'no digest before close');
    await inOrder.close({ sync: false });
    assert.equal(inOrder.sha256, sha(await readFile(inOrder.file)));
    assert.equal(inOrder.sha256, sha(data));

    // Out of order: the second piece first. The file is right, but no digest is claimed for it.
    const swapped = await fresh();
    await swapped.write(data.subarray(1000, 2000), 1000);
    await swapped.write(data.subarray(0, 1000), 0);
    await swapped.close();
    assert.deepEqual(await readFile(swapped.file), data.subarray(0, 2000));
    assert.equal(swapped.sha256, undefined);

    // A piece written again over earlier bytes: the digest of what came would not be the file's.
    const rewritten = await fresh();
    await rewritten.write(data.subarray(0, 2000), 0);
    await rewritten.write(Buffer.alloc(10), 500);
    await rewritten.close();
    assert.equal(rewritten.sha256, undefined);

    // Resumed from byte 6 of a kept file: the bytes before were not seen.
    const file = path.join(dir, `f${n++}`);
    const first = await SpoolWriter.open(file, 1 << 20, 'new');
    await first.write(Buffer.from('hello '));
    await first.close();
    assert.equal(first.sha256, sha(Buffer.from('hello ')));
    const again = await SpoolWriter.open(file, 1 << 20, 'keep', 6);
    await again.write(Buffer.from('world'));
    await again.close();
    assert.equal(again.sha256, undefined);
  });

  void it('refuses a write beyond the size limit before taking it', async () => {
    const w = await fresh(1000);
    await w.write(pattern(900, 1), 0);
    await assert.rejects(w.write(pattern(200, 1), 900), TooLargeError);
    await w.discard();
    assert.equal(existsSync(w.file), false);
  });

  void it('a disk write that fails fails the writes after it and close(): nothing is acknowledged', async () => {
    // /dev/full takes the open but answers every write with ENOSPC, like a full disk.
    const full = await SpoolWriter.open('/dev/full', 64 * 1024 * 1024, 'keep');
    await full.write(pattern(1000, 1), 0); // only buffered: nothing has reached the disk yet
    await assert.rejects(full.write(pattern(SPOOL_BUFFER_BYTES, 2), 1000), /ENOSPC/); // fills the buffer: disk write fails
    await assert.rejects(full.write(pattern(10, 3), 5000), /ENOSPC/);
    await assert.rejects(full.close(), /ENOSPC/);

    const small = await SpoolWriter.open('/dev/full', 1 << 20, 'keep');
    await small.write(pattern(100, 1), 0); // a small upload: its only disk write is at close()
    await assert.rejects(small.close(), /ENOSPC/);
  });
});
