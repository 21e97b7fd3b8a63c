// The store contract, streamed uploads (issue 16 target 5, migration 022): pieces written while an upload arrives,
// adopted by the submission saved at its end (which writes only the rest), read back whole as any submission's bytes;
// pieces of an upload that never ended are discarded, or swept once stale, and never those of an adopted one.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { Customer, Store } from '../../src/domain/store/store.ts';
import { UPLOAD_PIECE_BYTES } from '../../src/store/common/upload-pieces.ts';
import { addCustomer, newSubmission, withStore, type StoreFactory } from './fixtures.ts';

const MIB = UPLOAD_PIECE_BYTES;

async function withFile(bytes: Buffer, fn: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pieces-'));
  try {
    const file = path.join(dir, 'upload');
    await writeFile(file, bytes);
    await fn(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function saveStreamed(store: Store, c: Customer, id: string, file: string, bytes: Buffer, staged: number) {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return store.saveSubmission(newSubmission(c, {
    id, channel: 'sftp', raw: Buffer.alloc(0), sha256, rawFile: { path: file, size: bytes.length, sha256, staged: { id, bytes: staged } },
  }));
}

/** An hour ago and an hour from now: the sweep's cut-off on either side of every piece written by the test. */
const past = () => new Date(Date.now() - 3_600_000).toISOString();
const future = () => new Date(Date.now() + 3_600_000).toISOString();

export function uploadPiecesContract(makeStore: StoreFactory): void {
  void describe('streamed uploads', () => {
    void it('a submission adopts the pieces staged while its upload arrived and reads back byte for byte', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'A001');
      const bytes = randomBytes(3 * MIB + 12_345);
      await withFile(bytes, async (file) => {
        const id = randomUUID();
        await store.stageUploadPieces(id, { file, offset: 0, length: MIB });
        await store.stageUploadPieces(id, { file, offset: MIB, length: 2 * MIB });
        const saved = await saveStreamed(store, c, id, file, bytes, 3 * MIB);
        assert.equal(saved.id, id);
        // Stale by now for any cut-off: an adopted upload's pieces are not the sweep's.
        assert.equal(await store.sweepStagedUploads(future()), 0);
        await store.discardStagedUpload(id);
        const got = await store.getSubmission(id);
        assert.ok(got!.raw.equals(bytes), 'the staged pieces and the rest, in order');
        const listed = await store.listSubmissions({ customerId: c.id });
        assert.deepEqual(listed.map((s) => [s.id, s.size]), [[id, bytes.length]]);
        assert.equal((await store.findSubmissionBySha(c.id, saved.sha256))?.size, bytes.length);
      });
    }));

    void it('refuses to adopt pieces that are missing (swept or never staged), and saves nothing', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'A001');
      const bytes = randomBytes(2 * MIB + 10);
      await withFile(bytes, async (file) => {
        const swept = randomUUID();
        await store.stageUploadPieces(swept, { file, offset: 0, length: 2 * MIB });
        assert.equal(await store.sweepStagedUploads(future()), 1);
        await assert.rejects(saveStreamed(store, c, swept, file, bytes, 2 * MIB));
        const holed = randomUUID();
        await store.stageUploadPieces(holed, { file, offset: MIB, length: MIB });
        await assert.rejects(saveStreamed(store, c, holed, file, bytes, 2 * MIB), 'piece 0 was never staged');
        assert.equal(await store.getSubmission(swept), undefined);
        assert.equal(await store.getSubmission(holed), undefined);
        assert.deepEqual(await store.listSubmissions({ customerId: c.id }), []);
      });
    }));

    void it('sweeps only uploads not touched since the cut-off, and discards one on request', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'A001');
      const bytes = randomBytes(MIB + 1);
      await withFile(bytes, async (file) => {
        const [live, cut] = [randomUUID(), randomUUID()];
        await store.stageUploadPieces(live, { file, offset: 0, length: MIB });
        await store.stageUploadPieces(cut, { file, offset: 0, length: MIB });
        assert.equal(await store.sweepStagedUploads(past()), 0, 'both were touched after the cut-off');
        await store.discardStagedUpload(cut);
        await assert.rejects(saveStreamed(store, c, cut, file, bytes, MIB), 'a discarded upload has no pieces left');
        // The one still there is adopted after the other's discard and a sweep that was not due: its pieces are whole.
        await saveStreamed(store, c, live, file, bytes, MIB);
        assert.ok((await store.getSubmission(live))!.raw.equals(bytes));
        assert.equal(await store.sweepStagedUploads(future()), 0, 'nothing unadopted is left');
      });
    }));

    void it('stages whole pieces only', () => withStore(makeStore, async (store) => {
      await withFile(randomBytes(MIB), async (file) => {
        await assert.rejects(store.stageUploadPieces(randomUUID(), { file, offset: 0, length: 1000 }), RangeError);
        await assert.rejects(store.stageUploadPieces(randomUUID(), { file, offset: 10, length: MIB }), RangeError);
      });
    }));
  });
}
