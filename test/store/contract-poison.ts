// The store contract, poison-work part (issue 19, item 7): the counters that bound how often a submission or a mail
// message is taken up again before it is given up, kept in the store so that a crash loop counts too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import { addCustomer, addSubmission, at, withStore, type StoreFactory } from './fixtures.ts';

const notFound = (e: unknown) => e instanceof IntakeError && e.code === 'NOT_FOUND';

export function poisonContract(makeStore: StoreFactory): void {
  void describe('poison counters', () => {
    void it('counts retries of a submission, shows them, and an operator reset starts again from 0', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const id = await addSubmission(store, c, { receivedAt: at(0) });
      assert.equal((await store.getSubmission(id))?.retries, 0);
      assert.equal(await store.countRetry(id), 1);
      assert.equal(await store.countRetry(id), 2);
      assert.equal((await store.getSubmission(id))?.retries, 2);
      assert.equal((await store.listSubmissions({ customerId: c.id }))[0]?.retries, 2, 'listed with its retries');
      await store.completeSubmission(id, 'failed', { submissionId: id, esito: 'errore', orders: [], fileError: { code: 'INTERNAL', message: ['x'] } }, at(1));
      assert.equal((await store.getSubmission(id))?.state, 'failed');
      await store.resetSubmission(id);
      assert.equal((await store.getSubmission(id))?.retries, 0);
      await assert.rejects(store.countRetry('no-such-submission'), notFound);
    }));

    void it('counts the attempts at deriving a mail message and shows them', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      await store.saveMailMessages([{
        id: 'mail-poison-1', customerId: c.id, source: 'smtp', envelopeFrom: 'a@cliente.it', recipients: [c.mailbox],
        raw: Buffer.from('Subject: x\r\n\r\nciao\r\n'), sha256: 'f'.repeat(64), receivedAt: at(0),
      }]);
      assert.equal((await store.getMailMessage('mail-poison-1'))?.attempts, 0);
      assert.equal(await store.countMailAttempt('mail-poison-1'), 1);
      assert.equal(await store.countMailAttempt('mail-poison-1'), 2);
      assert.equal((await store.getMailMessage('mail-poison-1'))?.attempts, 2);
      assert.equal((await store.listMailMessages({ customerId: c.id }))[0]?.attempts, 2);
      await assert.rejects(store.countMailAttempt('no-such-mail'), notFound);
    }));
  });
}
