// The store contract, file-listing part: what FTP/SFTP listings read without loading a file (its size, its outcome).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Outcome } from '../../src/domain/types.ts';
import { addCustomer, addSubmission, at, withStore, type StoreFactory } from './fixtures.ts';

export function filesContract(makeStore: StoreFactory): void {
  void describe('file listings', () => {
    void it('summaries carry the byte size of the raw body, without the body', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const big = Buffer.alloc(300_000, 0xe8); // not valid UTF-8: bytes are counted, not characters
      const id = await addSubmission(store, a, { raw: big, sha256: 'big', receivedAt: at(1) });
      const empty = await addSubmission(store, a, { raw: Buffer.alloc(0), receivedAt: at(2) });
      const list = await store.listSubmissions({ customerId: a.id });
      assert.deepEqual(list.map((s) => [s.id, s.size]), [[empty, 0], [id, 300_000]]);
      for (const s of list) assert.ok(!('raw' in s));
      assert.equal((await store.findSubmissionBySha(a.id, 'big'))?.size, 300_000);
      assert.ok(!('size' in (await store.getSubmission(id))!), 'a full read has the bytes themselves');
    }));

    void it('lists only the channels asked for, before the limit', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const file = await addSubmission(store, a, { channel: 'sftp', receivedAt: at(1) });
      const ftp = await addSubmission(store, a, { channel: 'ftp', receivedAt: at(2) });
      for (let i = 3; i < 6; i++) await addSubmission(store, a, { channel: 'rest', singleOrder: true, receivedAt: at(i) });
      const files = await store.listSubmissions({ customerId: a.id, channels: ['ftp', 'sftp'], limit: 2 });
      assert.deepEqual(files.map((s) => s.id), [ftp, file], 'newer REST bodies do not take the window of the files');
      assert.equal((await store.listSubmissions({ customerId: a.id, limit: 2 })).length, 2);
      assert.deepEqual(await store.listSubmissions({ customerId: a.id, channels: [] }), []);
    }));

    void it('gives the outcomes of a customer\'s processed submissions by id, and nobody else\'s', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const done = await addSubmission(store, a, { receivedAt: at(1) });
      const waiting = await addSubmission(store, a, { receivedAt: at(2) });
      const other = await addSubmission(store, b, { receivedAt: at(3) });
      const outcome: Outcome = { submissionId: done, esito: 'errore', orders: [{ index: 0, esito: 'errore', riferimento_ordine: 'R1', message: ['righe must contain at least 1 elements'] }] };
      await store.completeSubmission(done, 'processed', outcome, at(4));
      await store.completeSubmission(other, 'processed', { submissionId: other, esito: 'ok', orders: [] }, at(5));
      const got = await store.getSubmissionOutcomes(a.id, [done, waiting, other, 'missing']);
      assert.deepEqual([...got.keys()], [done], 'unprocessed, unknown and other customers\' submissions are left out');
      assert.deepEqual(got.get(done), outcome);
      assert.equal((await store.getSubmissionOutcomes(a.id, [])).size, 0);
    }));
  });
}
