// The store contract, shared-work part: claims on received submissions (who processes what, takeover when a
// lease passes) and named leases. Time passing is observed, never slept on: a short lease elsewhere is polled
// until it has run out, and that is the witness that the time has gone by.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import type { Outcome } from '../../src/domain/types.ts';
import { ClaimLostError, type Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, item, withStore, type StoreFactory } from './fixtures.ts';
import { waitUntil } from '../helpers/wait.ts';

const isValidation = (e: unknown): boolean => e instanceof IntakeError && e.code === 'VALIDATION';
const LONG = 60_000;
const SHORT = 500;

/** Polls `check` every 20 ms until it is true; fails after `timeoutMs`. */
const until = (check: () => Promise<boolean>, what: string, timeoutMs = 5_000) => waitUntil(check, what, timeoutMs);

function outcome(id: string): Outcome {
  return { submissionId: id, esito: 'ok', orders: [] };
}

async function pending(store: Store, n: number): Promise<string[]> {
  const c = await addCustomer(store, 'C001');
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await addSubmission(store, c, { receivedAt: at(i) }));
  return ids;
}

export function workContract(makeStore: StoreFactory): void {
  void describe('claims', () => {
    void it('hands out received submissions oldest first, each to one holder', () => withStore(makeStore, async (store) => {
      const [s0, s1, s2, s3, s4] = await pending(store, 5);
      await store.completeSubmission(s1!, 'processed', outcome(s1!), at(9));
      assert.deepEqual(await store.claimSubmissions('a', 2, LONG), [s0, s2]);
      assert.deepEqual(await store.claimSubmissions('b', 10, LONG), [s3, s4], 'held and processed ones are skipped');
      assert.deepEqual(await store.claimSubmissions('a', 10, LONG), [], 'a holder is not handed its own claims again');
      assert.deepEqual(await store.claimSubmissions('c', 10, LONG), []);
      // The plain listing of pending work is unaffected by claims.
      assert.deepEqual(await store.pendingSubmissionIds(10), [s0, s2, s3, s4]);
    }));

    void it('gives one submission to whoever claims it first, and again to the same holder', () => withStore(makeStore, async (store) => {
      const [s0, s1] = await pending(store, 2);
      assert.equal(await store.claimSubmission(s0!, 'a', LONG), true);
      assert.equal(await store.claimSubmission(s0!, 'b', LONG), false);
      assert.equal(await store.claimSubmission(s0!, 'a', LONG), true, 'claiming again extends one\'s own claim');
      assert.deepEqual(await store.claimSubmissions('b', 10, LONG), [s1]);
      assert.equal(await store.claimSubmission('no-such-id', 'a', LONG), false);
      await store.completeSubmission(s1!, 'processed', outcome(s1!), at(9));
      assert.equal(await store.claimSubmission(s1!, 'b', LONG), false, 'a processed submission is not work');
    }));

    void it('clears the claim when the outcome is recorded or the submission is reset', () => withStore(makeStore, async (store) => {
      const [s0, s1] = await pending(store, 2);
      assert.deepEqual(await store.claimSubmissions('a', 10, LONG), [s0, s1]);
      await store.completeSubmission(s0!, 'processed', outcome(s0!), at(9));
      await store.resetSubmission(s0!);
      assert.equal(await store.claimSubmission(s0!, 'b', LONG), true, 'a reprocess is free for anyone');
      await store.resetSubmission(s1!);
      assert.deepEqual(await store.claimSubmissions('c', 10, LONG), [s1]);
      assert.deepEqual(await store.renewClaims('a', [s0!, s1!], LONG), [], 'the first holder lost both');
    }));

    void it('lets another holder take over once a lease passes, and only then', () => withStore(makeStore, async (store) => {
      const [s0, s1] = await pending(store, 2);
      assert.deepEqual(await store.claimSubmissions('dead', 1, SHORT), [s0]);
      assert.deepEqual(await store.claimSubmissions('alive', 1, LONG), [s1]);
      assert.equal(await store.claimSubmission(s0!, 'heir', LONG), false);
      let taken: string[] = [];
      await until(async () => (taken = await store.claimSubmissions('heir', 10, LONG)).length > 0, 'the short lease to pass');
      assert.deepEqual(taken, [s0], 'the live holder keeps its claim');
      assert.deepEqual(await store.renewClaims('dead', [s0!], LONG), [], 'the first holder learns it lost the claim');
      assert.deepEqual(await store.renewClaims('heir', [s0!, s1!], LONG), [s0], 'no one renews a claim it does not hold');
    }));

    void it('keeps a renewed claim past its first lease', () => withStore(makeStore, async (store) => {
      const [s0, s1] = await pending(store, 2);
      assert.deepEqual(await store.claimSubmissions('a', 2, SHORT), [s0, s1]);
      assert.deepEqual(await store.renewClaims('a', [s1!, s1!], LONG), [s1]);
      // s0 was not renewed: once another holder gets it, the first lease has certainly passed.
      await until(async () => store.claimSubmission(s0!, 'b', LONG), 'the unrenewed claim to lapse');
      assert.equal(await store.claimSubmission(s1!, 'b', LONG), false, 'the renewed claim still runs');
      assert.deepEqual(await store.claimSubmissions('b', 10, LONG), []);
      assert.deepEqual(await store.renewClaims('a', [], LONG), []);
    }));

    void it('fences a registration by its claim: nothing is registered once another holder took it, or it was finished', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const [s0, s1, s2] = [await addSubmission(store, c, { receivedAt: at(0) }), await addSubmission(store, c, { receivedAt: at(1) }), await addSubmission(store, c, { receivedAt: at(2) })];
      assert.equal(await store.claimSubmission(s0, 'stalled', SHORT), true);
      assert.equal(await store.claimSubmission(s1, 'stalled', LONG), true);
      // Registered under its own claim, whole or one order at a time (the grouped path), lazily as judging does.
      const kept = await store.registerOrders([item(c, s1, 'K-1'), item(c, s1, 'K-2')], { durable: false, heldBy: 'stalled' });
      assert.deepEqual(kept.map((r) => r.status), ['created', 'created']);
      assert.equal((await store.registerOrders([item(c, s1, 'K-3')], { durable: false, heldBy: 'stalled' }))[0]!.status, 'created');
      // The short claim lapses and another holder takes the submission over.
      await until(async () => store.claimSubmission(s0, 'heir', LONG), 'the stalled claim to lapse');
      const refused = async (items: ReturnType<typeof item>[]) => {
        await assert.rejects(store.registerOrders(items, { durable: false, heldBy: 'stalled' }), (e: unknown) => {
          assert.ok(e instanceof ClaimLostError, String(e));
          assert.deepEqual(e.submissionIds, [s0]);
          return true;
        });
      };
      await refused([item(c, s0, 'L-1')]);
      await refused([item(c, s0, 'L-2'), item(c, s0, 'L-3')]);
      // Several submissions in one transaction: one lost fences them all.
      await refused([item(c, s1, 'L-4'), item(c, s0, 'L-5')]);
      assert.equal(await store.getOrderByRef(c.id, 'L-1'), undefined, 'nothing registered by the holder that lost its claim');
      assert.equal(await store.getOrderByRef(c.id, 'L-2'), undefined);
      assert.equal(await store.getOrderByRef(c.id, 'L-4'), undefined, 'the other submission\'s order went with the transaction');
      assert.equal((await store.registerOrders([item(c, s0, 'L-1')], { durable: false, heldBy: 'heir' }))[0]!.status, 'created', 'the heir registers');
      // At once, as concurrent judgements call it (PostgreSQL groups them; a group that fails on one order registers
      // the others one by one, fenced the same way): each answered for itself.
      const [held, faulty, lost] = await Promise.allSettled([
        store.registerOrders([item(c, s1, 'P-1')], { durable: false, heldBy: 'stalled' }),
        store.registerOrders([item(c, s1, 'P-2', { customerId: 'no-such-customer' })], { durable: false, heldBy: 'stalled' }),
        store.registerOrders([item(c, s0, 'P-3')], { durable: false, heldBy: 'stalled' }),
      ]);
      assert.equal(held.status === 'fulfilled' && held.value[0]!.status, 'created');
      assert.equal(faulty.status, 'rejected');
      assert.ok(!(faulty.status === 'rejected' && faulty.reason instanceof ClaimLostError), 'refused for its own fault, not the claim');
      assert.ok(lost.status === 'rejected' && lost.reason instanceof ClaimLostError, String(lost.status === 'rejected' ? lost.reason : 'fulfilled'));
      assert.equal(await store.getOrderByRef(c.id, 'P-3'), undefined);
      // Finished: no holder registers any more; without a holder (a tool, a test) the store does not ask.
      await store.completeSubmission(s1, 'processed', outcome(s1), at(9));
      await assert.rejects(store.registerOrders([item(c, s1, 'K-4')], { durable: false, heldBy: 'stalled' }), ClaimLostError);
      assert.equal((await store.registerOrders([item(c, s2, 'M-1')]))[0]!.status, 'created');
    }));

    void it('fences an outcome by its claim: a holder that lost it records nothing over the one that took over', () => withStore(makeStore, async (store) => {
      const [s0, s1, s2, s3] = await pending(store, 4);
      for (const id of [s0!, s1!, s2!]) assert.equal(await store.claimSubmission(id, 'stalled', SHORT), true);
      assert.equal(await store.claimSubmission(s3!, 'stalled', LONG), true);
      // Each lease runs from its own claim's time (s1's a little after s0's): each is waited for.
      await until(async () => store.claimSubmission(s0!, 'heir', LONG), 'the stalled claim to lapse');
      await until(async () => store.claimSubmission(s1!, 'heir', LONG), 'the stalled claim on the second to lapse');
      const lostTo = (p: Promise<unknown>, id: string) => assert.rejects(p, (e: unknown) => {
        assert.ok(e instanceof ClaimLostError, String(e));
        assert.deepEqual(e.submissionIds, [id]);
        return true;
      });
      await lostTo(store.completeSubmission(s0!, 'processed', outcome(s0!), at(9), { heldBy: 'stalled' }), s0!);
      await lostTo(store.completeSubmission(s0!, 'failed', outcome(s0!), at(9), { heldBy: 'stalled', attemptsRecorded: true }), s0!);
      // A large file's attempts, batch by batch: its outcome is read back from them.
      const refusal = { index: 0, codice_cliente: 'C001', riferimento_ordine: 'A-1', esito: 'errore' as const, code: 'BUSINESS' as const, errori: [] };
      const customerId = (await store.getSubmission(s0!))!.customerId;
      await lostTo(store.recordAttempts(s0!, [refusal], { durable: false, heldBy: 'stalled' }), s0!);
      assert.equal(await store.latestAttempt(customerId, 'A-1'), undefined, 'no attempt written by the holder that lost its claim');
      await store.recordAttempts(s3!, [refusal], { durable: false, heldBy: 'stalled' });
      assert.equal((await store.latestAttempt(customerId, 'A-1'))?.submissionId, s3, 'written under a claim still held');
      // At once, as concurrent judgements call it (PostgreSQL records them with one statement): each answered for itself.
      const [lost, held, lapsed] = await Promise.allSettled([
        store.completeSubmission(s1!, 'processed', outcome(s1!), at(9), { heldBy: 'stalled' }),
        store.completeSubmission(s3!, 'processed', outcome(s3!), at(9), { heldBy: 'stalled' }),
        // Lapsed, but taken by no one: still this holder's to finish.
        store.completeSubmission(s2!, 'processed', outcome(s2!), at(9), { heldBy: 'stalled' }),
      ]);
      assert.ok(lost.status === 'rejected' && lost.reason instanceof ClaimLostError, String(lost.status === 'rejected' ? lost.reason : 'fulfilled'));
      assert.deepEqual([held.status === 'fulfilled' && held.value, lapsed.status === 'fulfilled' && lapsed.value], [true, true]);
      assert.equal((await store.getSubmission(s0!))?.state, 'received', 'nothing recorded by the holder that lost its claim');
      assert.equal((await store.getSubmission(s1!))?.state, 'received');
      assert.equal(await store.completeSubmission(s0!, 'processed', outcome(s0!), at(9), { heldBy: 'heir' }), true, 'the heir records');
      // Finished: the late one is told its outcome is not the one that stands, as without a holder.
      assert.equal(await store.completeSubmission(s0!, 'processed', outcome(s0!), at(10), { heldBy: 'stalled' }), false);
      await assert.rejects(store.completeSubmission('no-such-id', 'processed', outcome('no-such-id'), at(9), { heldBy: 'stalled' }),
        (e: unknown) => e instanceof IntakeError && e.code === 'NOT_FOUND');
    }));

    void it('tells which of some references a submission registered', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const d = await addCustomer(store, 'C002');
      const [s0, s1] = [await addSubmission(store, c), await addSubmission(store, c)];
      await store.registerOrders([item(c, s0, 'R-1'), item(d, s0, 'R-1'), item(c, s0, 'R-2')]);
      await store.registerOrders([item(c, s1, 'R-3')]);
      const found = await store.registeredBySubmission(s0, ['R-1', 'R-3', 'R-4', 'R-1']);
      assert.deepEqual(found.map((r) => `${r.codice_cliente}/${r.riferimento_ordine}`).sort(), ['C001/R-1', 'C002/R-1']);
      assert.deepEqual(await store.registeredBySubmission(s1, ['R-3']), [{ codice_cliente: 'C001', riferimento_ordine: 'R-3' }]);
      assert.deepEqual(await store.registeredBySubmission(s1, []), []);
    }));

    void it('gives claims back on release, for another holder to take at once', () => withStore(makeStore, async (store) => {
      const [s0, s1, s2] = await pending(store, 3);
      assert.deepEqual(await store.claimSubmissions('a', 3, LONG), [s0, s1, s2]);
      await store.completeSubmission(s2!, 'processed', outcome(s2!), at(9));
      assert.equal(await store.releaseClaims('a'), 2, 'only unprocessed work is given back');
      assert.equal(await store.releaseClaims('a'), 0);
      assert.deepEqual(await store.claimSubmissions('b', 10, LONG), [s0, s1]);
    }));

    void it('never gives one id to two holders claiming at the same time', () => withStore(makeStore, async (store) => {
      const ids = await pending(store, 60);
      const holders = ['h1', 'h2', 'h3', 'h4', 'h5'];
      const got = await Promise.all(holders.map(async (h) => {
        const mine: string[] = [];
        for (;;) {
          const batch = await store.claimSubmissions(h, 4, LONG);
          if (batch.length === 0) return mine;
          mine.push(...batch);
        }
      }));
      const all = got.flat();
      assert.equal(all.length, ids.length, 'every id handed out once');
      assert.deepEqual(new Set(all), new Set(ids));
    }));

    void it('refuses bad arguments clearly', () => withStore(makeStore, async (store) => {
      await assert.rejects(store.claimSubmissions('', 1, LONG), isValidation);
      await assert.rejects(store.claimSubmissions('a', 0, LONG), isValidation);
      await assert.rejects(store.claimSubmissions('a', 1, 0), isValidation);
      await assert.rejects(store.claimSubmission('x', 'a', 1.5), isValidation);
      await assert.rejects(store.renewClaims('a', ['x'], -1), isValidation);
      await assert.rejects(store.releaseClaims('a'.repeat(500)), isValidation);
    }));
  });

  void describe('named leases', () => {
    void it('is held by one holder at a time until released', () => withStore(makeStore, async (store) => {
      assert.equal(await store.acquireLease('imap:c001', 'a', LONG), true);
      assert.equal(await store.acquireLease('imap:c001', 'b', LONG), false);
      assert.equal(await store.acquireLease('imap:c001', 'a', LONG), true, 'acquiring again extends one\'s own lease');
      assert.equal(await store.acquireLease('imap:c002', 'b', LONG), true, 'names are independent');
      assert.equal(await store.renewLease('imap:c001', 'a', LONG), true);
      assert.equal(await store.renewLease('imap:c001', 'b', LONG), false);
      await store.releaseLease('imap:c001', 'b');
      assert.equal(await store.acquireLease('imap:c001', 'b', LONG), false, 'only the holder can release');
      await store.releaseLease('imap:c001', 'a');
      assert.equal(await store.renewLease('imap:c001', 'a', LONG), false, 'a released lease cannot be renewed');
      assert.equal(await store.acquireLease('imap:c001', 'b', LONG), true);
      await store.releaseLease('never-taken', 'a');
    }));

    void it('passes to another holder once it expires, and the first learns it on renewal', () => withStore(makeStore, async (store) => {
      assert.equal(await store.acquireLease('watch', 'dead', SHORT), true);
      await until(() => store.acquireLease('watch', 'heir', LONG), 'the lease to expire');
      assert.equal(await store.renewLease('watch', 'dead', LONG), false);
      assert.equal(await store.acquireLease('watch', 'dead', LONG), false);
    }));

    void it('is won by exactly one of several holders racing for it', () => withStore(makeStore, async (store) => {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.acquireLease('race', `h${i}`, LONG)));
      assert.equal(results.filter(Boolean).length, 1);
    }));

    void it('refuses bad arguments clearly', () => withStore(makeStore, async (store) => {
      await assert.rejects(store.acquireLease('', 'a', LONG), isValidation);
      await assert.rejects(store.acquireLease('x', 'a', 0), isValidation);
      await assert.rejects(store.renewLease('x', '', LONG), isValidation);
      await assert.rejects(store.releaseLease('x\0', 'a'), isValidation);
    }));
  });
}
