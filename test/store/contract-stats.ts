// The store contract, monitoring part: queue depths (countQueue) follow the work as it is received and finished.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { QUEUE_NAMES } from '../../src/domain/store/stats.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, withStore, type StoreFactory } from './fixtures.ts';

async function depths(store: Store): Promise<Record<string, number>> {
  return Object.fromEntries(await Promise.all(QUEUE_NAMES.map(async (q) => [q, await store.countQueue(q)] as const)));
}

export function statsContract(makeStore: StoreFactory): void {
  void describe('queue depths', () => {
    void it('count received submissions, received mail and pending replies, and drop as they are finished', () => withStore(makeStore, async (store) => {
      assert.deepEqual(await depths(store), { submissions_received: 0, mail_received: 0, replies_pending: 0 });
      const c = await addCustomer(store, 'C001');
      const s1 = await addSubmission(store, c);
      await addSubmission(store, c);
      const mailId = randomUUID();
      await store.saveMailMessages([{
        id: mailId, customerId: c.id, source: 'smtp', envelopeFrom: 'buyer@example.it', recipients: [c.mailbox],
        messageId: `<${randomUUID()}@example.it>`, raw: Buffer.from('Subject: ordine\r\n\r\nciao\r\n'), sha256: 'abc', remote: '192.0.2.1', receivedAt: at(1),
      }]);
      assert.deepEqual(await depths(store), { submissions_received: 2, mail_received: 1, replies_pending: 0 });

      await store.completeSubmission(s1, 'processed', { submissionId: s1, esito: 'ok', orders: [] }, at(2));
      const replyId = randomUUID();
      await store.finishMail(mailId, { esito: 'ok', submissions: [], replyId }, {
        id: replyId, mailId, customerId: c.id, recipient: 'buyer@example.it', subject: 'Re: ordine', raw: Buffer.from('Subject: Re\r\n\r\nok\r\n'),
      });
      assert.deepEqual(await depths(store), { submissions_received: 1, mail_received: 0, replies_pending: 1 });
      await store.markReplySent(replyId);
      assert.equal(await store.countQueue('replies_pending'), 0);
    }));
  });
}
