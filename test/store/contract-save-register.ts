// The store contract, the synchronous path's first write: saveAndRegister saves a submission already claimed and
// registers its orders in one write (one transaction; on PostgreSQL one group statement shared by the requests in
// flight). What it must promise: both or neither, the claim held from the start, the usual registration rules,
// and a faulty request in a crowd failing alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addCustomer, item, newSubmission, withStore, type StoreFactory } from './fixtures.ts';

const CLAIM = { holder: 'instance-a', leaseMs: 60_000 };

export function saveAndRegisterContract(makeStore: StoreFactory): void {
  void describe('saveAndRegister', () => {
    void it('saves the submission, claimed, and registers its order in one write', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const s = newSubmission(c, { singleOrder: true, raw: Buffer.from('{"riferimento_ordine":"R1"}') });
      const [r] = await store.saveAndRegister(s, [item(c, s.id, 'R1')], CLAIM);
      assert.equal(r?.status, 'created');
      const saved = await store.getSubmission(s.id);
      assert.equal(saved?.state, 'received');
      assert.deepEqual(saved?.raw, s.raw);
      assert.equal((await store.getOrder(c.id, r!.id_ordine))?.submissionId, s.id);
      // Claimed from the start: no other holder gets it, by id or by sweeping; its own holder keeps it.
      assert.equal(await store.claimSubmission(s.id, 'instance-b', 60_000), false);
      assert.deepEqual(await store.claimSubmissions('instance-b', 10, 60_000), []);
      assert.equal(await store.claimSubmission(s.id, CLAIM.holder, 60_000), true);
    }));

    void it('with nothing to register (a refused order) saves the submission claimed', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const s = newSubmission(c, { singleOrder: true });
      assert.deepEqual(await store.saveAndRegister(s, [], CLAIM), []);
      assert.equal((await store.getSubmission(s.id))?.state, 'received');
      assert.deepEqual(await store.claimSubmissions('instance-b', 10, 60_000), []);
    }));

    void it('answers a repeat as a duplicate and a changed repeat as a conflict', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const first = newSubmission(c, { singleOrder: true });
      const [a] = await store.saveAndRegister(first, [item(c, first.id, 'R1')], CLAIM);
      const again = newSubmission(c, { singleOrder: true });
      const [b] = await store.saveAndRegister(again, [item(c, again.id, 'R1')], CLAIM);
      const changed = newSubmission(c, { singleOrder: true });
      const [x] = await store.saveAndRegister(changed, [item(c, changed.id, 'R1', { contentHash: 'other' })], CLAIM);
      assert.equal(a?.status, 'created');
      assert.deepEqual(b, { status: 'duplicate', id_ordine: a!.id_ordine, numero_ordine: a!.numero_ordine });
      assert.equal(x?.status, 'conflict');
      // Every submission is saved, whatever its order's answer.
      for (const s of [first, again, changed]) assert.ok(await store.getSubmission(s.id));
    }));

    void it('many at once: every submission saved and every order numbered once; a faulty one fails alone, leaving nothing',
      () => withStore(makeStore, async (store) => {
        const c = await addCustomer(store, 'C001');
        const subs = Array.from({ length: 40 }, () => newSubmission(c, { singleOrder: true }));
        // One names a customer that does not exist: its write fails, with its submission, and no other.
        const bad = 17;
        const calls = subs.map((s, k) => store.saveAndRegister(s, [item(k === bad ? { ...c, id: 'no-such-customer' } : c, s.id, `R${k}`)], CLAIM));
        const settled = await Promise.allSettled(calls);
        settled.forEach((r, k) => assert.equal(r.status, k === bad ? 'rejected' : 'fulfilled', `request ${k}`));
        assert.equal(await store.getSubmission(subs[bad]!.id), undefined, 'the faulty request left no submission behind');
        const numbers = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value[0]!.numero_ordine] : []));
        assert.equal(new Set(numbers).size, subs.length - 1);
        for (const [k, s] of subs.entries()) if (k !== bad) assert.equal((await store.getSubmission(s.id))?.state, 'received');
      }));
  });
}
