// The store contract, orders part: registration (created / duplicate / conflict / reprocess), numbering,
// concurrency across instances, tenant scoping, and the latest attempt per reference.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import type { Outcome } from '../../src/domain/types.ts';
import type { RegisterResult, Store } from '../../src/domain/store/store.ts';
import { addCustomer, addSubmission, at, item, newSubmission, withStore, type StoreFactory } from './fixtures.ts';
import { settled } from './contract-retention.ts';

const isValidation = (e: unknown): boolean => e instanceof IntakeError && e.code === 'VALIDATION';

/** Up to `count` store instances on one database: the handle's own and, where possible, fresh ones. */
async function instances(store: Store, another: (() => Promise<Store>) | undefined, count: number): Promise<Store[]> {
  const list = [store];
  while (another && list.length < count) {
    const s = await another();
    await s.migrate();
    list.push(s);
  }
  return list;
}

export function ordersContract(makeStore: StoreFactory): void {
  void describe('registerOrders', () => {
    void it('numbers new orders per year from 000001 and stores them with their lines', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const [r1, r2, r3, r4] = await store.registerOrders([
        item(c, sub, 'R1'),
        item(c, sub, 'R2', { order: { data_consegna: undefined }, site: 'MI', channel: 'ftp' }),
        item(c, sub, 'R3', { year: 2026 }),
        item(c, sub, 'R4'),
      ]);
      assert.deepEqual([r1?.status, r2?.status, r3?.status, r4?.status], ['created', 'created', 'created', 'created']);
      assert.deepEqual([r1?.numero_ordine, r2?.numero_ordine, r3?.numero_ordine, r4?.numero_ordine],
        ['2025-000001', '2025-000002', '2026-000001', '2025-000003']);
      const [r5] = await store.registerOrders([item(c, sub, 'R5', { year: 2026 })]);
      assert.equal(r5?.numero_ordine, '2026-000002');

      const o1 = await store.getOrder(c.id, r1!.id_ordine);
      assert.deepEqual(o1, {
        ...item(c, sub, 'R1').order, id_ordine: r1!.id_ordine, numero_ordine: '2025-000001', customerId: c.id,
        submissionId: sub, channel: 'rest', registeredAt: at(10), versione: 1,
      });
      const o2 = await store.getOrderByRef(c.id, 'R2');
      assert.ok(o2 && !('data_consegna' in o2), 'data_consegna is omitted when absent');
      assert.equal(o2.sito_produzione, 'MI');
      assert.equal(o2.channel, 'ftp');
      assert.deepEqual(o2.righe.map((l) => l.codice_articolo), ['BV-STD', 'VOL-A4'], 'lines keep their order');
      assert.equal(o2.righe[1]!.quantita, 2.5);
    }));

    void it('reads several orders by id, with their lines, only the customer\'s', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const other = await addCustomer(store, 'C002');
      const sub = await addSubmission(store, c);
      const subOther = await addSubmission(store, other);
      const [r1, r2] = await store.registerOrders([item(c, sub, 'R1'), item(c, sub, 'R2')]);
      const [o1] = await store.registerOrders([item(other, subOther, 'R1')]);
      const got = await store.getOrders(c.id, [r2!.id_ordine, r1!.id_ordine, o1!.id_ordine, 'no-such-id', r1!.id_ordine]);
      assert.deepEqual(got.map((o) => o.riferimento_ordine).sort(), ['R1', 'R2'], "another customer's order is not read");
      assert.deepEqual(got.find((o) => o.id_ordine === r2!.id_ordine), await store.getOrder(c.id, r2!.id_ordine));
      assert.deepEqual(await store.getOrders(c.id, []), []);
    }));

    void it('keeps many lines in their order', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      // Not a multiple of the lines the SQLite store inserts per statement (LINES_PER_INSERT): full ones and a rest.
      const righe = Array.from({ length: 1203 }, (_, i) => ({ codice_articolo: `A${1202 - i}`, quantita: i + 0.25, unita_misura: 'PZ' }));
      const [r] = await store.registerOrders([item(c, sub, 'BIG', { order: { righe } })]);
      assert.deepEqual((await store.getOrder(c.id, r!.id_ordine))?.righe, righe);
    }));

    void it('answers duplicate for identical content from another submission and conflict for different content', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const first = await addSubmission(store, c);
      const second = await addSubmission(store, c, { channel: 'email' });
      const [created] = await store.registerOrders([item(c, first, 'R1')]);
      const [dup] = await store.registerOrders([item(c, second, 'R1', { channel: 'email' })]);
      assert.deepEqual(dup, { ...created, status: 'duplicate' });
      const [conflict] = await store.registerOrders([item(c, second, 'R1', { contentHash: 'changed', order: { data_ordine: '2025-04-01' } })]);
      assert.deepEqual(conflict, { ...created, status: 'conflict' });
      const stored = await store.getOrderByRef(c.id, 'R1');
      assert.equal(stored?.data_ordine, '2025-03-01', 'a conflict writes nothing');
      assert.equal(stored?.submissionId, first);
      assert.equal((await store.listOrders({ customerId: c.id })).length, 1);
      // Nothing registered since the first order consumed a number.
      const [next] = await store.registerOrders([item(c, second, 'R2')]);
      assert.equal(next?.numero_ordine, '2025-000002');
    }));

    void it('gives a reprocessed submission the answer it got the first time, consuming no number', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const first = await store.registerOrders([item(c, sub, 'R1'), item(c, sub, 'R2')]);
      // The core picks fresh ids on every run; the stored ones must come back.
      const again = await store.registerOrders([item(c, sub, 'R1'), item(c, sub, 'R2')]);
      assert.deepEqual(again, first);
      assert.ok(again.every((r) => r.status === 'created'));
      const [next] = await store.registerOrders([item(c, sub, 'R3')]);
      assert.equal(next?.numero_ordine, '2025-000003');
    }));

    void it('says an order id is taken only when it is the id that is', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const [first] = await store.registerOrders([item(c, sub, 'R1')]);
      // Another order (its own reference) under the id already given: the caller's fault, named as such.
      await assert.rejects(store.registerOrders([item(c, sub, 'R2', { id: first!.id_ordine })]), /an order id is already taken/);
      assert.equal(await store.getOrderByRef(c.id, 'R2'), undefined);
    }));

    void it('lets a later item of the same call see an earlier one with the same identity', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const [a, same, changed] = await store.registerOrders([
        item(c, sub, 'R1'),
        item(c, sub, 'R1'),
        item(c, sub, 'R1', { contentHash: 'other' }),
      ]);
      assert.equal(a?.status, 'created');
      assert.deepEqual(same, a);
      assert.deepEqual(changed, { ...a, status: 'conflict' });
      assert.equal((await store.listOrders({})).length, 1);
    }));

    void it('stores all items of a call or none', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      await assert.rejects(store.registerOrders([item(c, sub, 'R1'), item(c, 'no-such-submission', 'R2')]));
      assert.equal(await store.getOrderByRef(c.id, 'R1'), undefined);
      assert.deepEqual(await store.listOrders({}), [], 'nothing of the failed call is stored');
      // The failed call may have used a number (PostgreSQL's sequences are not rolled back: a gap), never one
      // that is given again: the numbers after it are new and keep increasing.
      const [r1] = await store.registerOrders([item(c, sub, 'R1')]);
      const [r2] = await store.registerOrders([item(c, sub, 'R2')]);
      assert.match(r1!.numero_ordine, /^2025-\d{6}$/);
      assert.ok(r2!.numero_ordine > r1!.numero_ordine, `${r2!.numero_ordine} follows ${r1!.numero_ordine}`);
      assert.deepEqual(await store.registerOrders([]), []);
    }));

    void it('registers many single orders sent at once (as REST requests are) each on its own terms', () => withStore(makeStore, async (store) => {
      // On PostgreSQL these go in groups, one statement for many (store/postgres/register-batch.ts): a faulty order, or two
      // orders of one group with the same identity, must come out exactly as they would alone.
      const c = await addCustomer(store, 'C001');
      const subs = await Promise.all(Array.from({ length: 4 }, () => addSubmission(store, c)));
      const lazy = { durable: false } as const;
      const calls = Array.from({ length: 120 }, (_, k) => store.registerOrders([item(c, subs[k % 4]!, `G${k}`, {
        order: { righe: Array.from({ length: 1 + (k % 3) }, (_, i) => ({ codice_articolo: `A${k}-${i}`, quantita: i + 0.5, unita_misura: 'PZ' })) },
      })], lazy));
      // Its rejection is awaited now (a rejection nobody awaits yet would count as unhandled).
      const faulty = assert.rejects(store.registerOrders([item(c, 'no-such-submission', 'BAD')], lazy));
      const same = [
        store.registerOrders([item(c, subs[0]!, 'TWICE')], lazy),
        store.registerOrders([item(c, subs[1]!, 'TWICE')], lazy),
        store.registerOrders([item(c, subs[2]!, 'TWICE', { contentHash: 'other' })], lazy),
      ];
      const results = (await Promise.all(calls)).flat();
      await faulty;
      const twice = (await Promise.all(same)).flat();
      assert.ok(results.every((r) => r.status === 'created'));
      const numbers = results.map((r) => r.numero_ordine);
      assert.equal(new Set(numbers).size, 120, 'no number given twice');
      // Whichever of the three is registered first wins (they race); the others are judged against its content.
      const hashes = ['hash-TWICE', 'hash-TWICE', 'other'];
      const won = twice.findIndex((r) => r.status === 'created');
      assert.ok(won >= 0 && twice.filter((r) => r.status === 'created').length === 1, JSON.stringify(twice));
      twice.forEach((r, i) => {
        if (i !== won) assert.equal(r.status, hashes[i] === hashes[won] ? 'duplicate' : 'conflict', `TWICE #${i}`);
      });
      assert.equal(new Set(twice.map((r) => r.numero_ordine)).size, 1, 'the duplicate and the conflict name the one registered');
      assert.equal(await store.getOrderByRef(c.id, 'BAD'), undefined);
      for (const k of [0, 1, 2, 59, 119]) {
        const o = await store.getOrderByRef(c.id, `G${k}`);
        assert.equal(o?.numero_ordine, results[k]!.numero_ordine);
        assert.deepEqual(o?.righe.map((l) => l.codice_articolo), Array.from({ length: 1 + (k % 3) }, (_, i) => `A${k}-${i}`));
      }
      assert.equal((await store.listOrders({ limit: 500 })).length, 121);
    }));

    void it('keeps an order\'s note on every way an order is written, in the order and in its event', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const note = 'Consegna al magazzino B,\n\tpiano terra: «urgente» 😀';
      // Several in one call (one transaction), one alone (one statement on PostgreSQL), one lazy (grouped with others
      // on PostgreSQL), one saved with its submission (the REST path): each engine writes these differently.
      await store.registerOrders([item(c, sub, 'N1', { order: { note } }), item(c, sub, 'N0')]);
      await store.registerOrders([item(c, sub, 'N2', { order: { note } })]);
      await store.registerOrders([item(c, sub, 'N3', { order: { note } })], { durable: false });
      const single = newSubmission(c, { singleOrder: true });
      await store.saveSingleOrder(single, { item: item(c, single.id, 'N4', { order: { note } }) }, at(20));
      for (const ref of ['N1', 'N2', 'N3', 'N4']) assert.equal((await store.getOrderByRef(c.id, ref))?.note, note, ref);
      const without = await store.getOrderByRef(c.id, 'N0');
      assert.ok(without && !('note' in without), 'no note: no note key');
      const events = await settled(store, 5);
      assert.deepEqual(events.map((e) => [e.data.riferimento_ordine, e.data.note]).sort(),
        [['N0', undefined], ['N1', note], ['N2', note], ['N3', note], ['N4', note]]);
      assert.deepEqual(Object.keys(events.find((e) => e.data.riferimento_ordine === 'N1')!.data).slice(0, 8),
        ['stato', 'id_ordine', 'numero_ordine', 'codice_cliente', 'riferimento_ordine', 'data_ordine', 'data_consegna', 'note'], 'the view\'s key order');
      await assert.rejects(store.registerOrders([item(c, sub, 'N5', { order: { note: 'a\0b' } })]), (e: unknown) => isValidation(e) && /note/.test((e as Error).message));
    }));

    void it('refuses items the engines would store differently, with a clear error', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      await assert.rejects(store.registerOrders([item(c, sub, 'R\0')]), (e: unknown) => isValidation(e) && /riferimento_ordine/.test((e as Error).message));
      await assert.rejects(store.registerOrders([item(c, sub, 'R1', { order: { data_ordine: '2025-02-30' } })]), isValidation);
      await assert.rejects(store.registerOrders([item(c, sub, 'R1', {
        order: { righe: [{ codice_articolo: 'A', quantita: Number.NaN, unita_misura: 'PZ' }] },
      })]), isValidation);
      await assert.rejects(store.registerOrders([item(c, sub, 'R1', { order: { righe: [] } })]), isValidation);
      assert.deepEqual(await store.listOrders({}), []);
    }));

    void it('registers one order when instances race on the same identity', () => withStore(makeStore, async (store, handle) => {
      const stores = await instances(store, handle.another, 3);
      try {
        const c = await addCustomer(store, 'C001');
        const contenders = await Promise.all(Array.from({ length: 8 }, async (_, k) => ({
          sub: await addSubmission(store, c),
          hash: k % 2 === 0 ? 'even' : 'odd',
        })));
        const results = await Promise.all(contenders.map(({ sub, hash }, k) =>
          stores[k % stores.length]!.registerOrders([item(c, sub, 'RACE', { contentHash: hash })]).then((r) => r[0]!)));
        const winners = results.filter((r) => r.status === 'created');
        assert.equal(winners.length, 1, JSON.stringify(results));
        const winnerHash = contenders[results.indexOf(winners[0]!)]!.hash;
        results.forEach((r, k) => {
          assert.equal(r.id_ordine, winners[0]!.id_ordine);
          assert.equal(r.numero_ordine, winners[0]!.numero_ordine);
          if (r !== winners[0]) assert.equal(r.status, contenders[k]!.hash === winnerHash ? 'duplicate' : 'conflict');
        });
        assert.equal((await store.listOrders({})).length, 1);
      } finally {
        for (const s of stores.slice(1)) await s.close();
      }
    }));

    void it('never repeats a number when instances register different orders at once', () => withStore(makeStore, async (store, handle) => {
      const stores = await instances(store, handle.another, 3);
      try {
        const c = await addCustomer(store, 'C001');
        const sub = await addSubmission(store, c);
        const results = await Promise.all(Array.from({ length: 24 }, (_, k) =>
          stores[k % stores.length]!.registerOrders([item(c, sub, `P${k}`), item(c, sub, `Q${k}`)])));
        const numbers = results.flat().map((r: RegisterResult) => r.numero_ordine).sort();
        assert.equal(new Set(numbers).size, 48);
        assert.deepEqual(numbers, Array.from({ length: 48 }, (_, i) => `2025-${String(i + 1).padStart(6, '0')}`));
      } finally {
        for (const s of stores.slice(1)) await s.close();
      }
    }));

    void it('numbers calls spanning two years correctly when they run at once', () => withStore(makeStore, async (store, handle) => {
      const stores = await instances(store, handle.another, 3);
      try {
        const c = await addCustomer(store, 'C001');
        const sub = await addSubmission(store, c);
        const results = await Promise.all(Array.from({ length: 8 }, (_, k) => {
          const [first, second] = k % 2 === 0 ? [2025, 2026] : [2026, 2025];
          return stores[k % stores.length]!.registerOrders([
            item(c, sub, `X${k}`, { year: first }), item(c, sub, `Y${k}`, { year: second }),
          ]);
        }));
        assert.ok(results.flat().every((r) => r.status === 'created'));
        const numbers = results.flat().map((r) => r.numero_ordine).sort();
        const series = (y: number) => Array.from({ length: 8 }, (_, i) => `${y}-${String(i + 1).padStart(6, '0')}`);
        assert.deepEqual(numbers, [...series(2025), ...series(2026)]);
      } finally {
        for (const s of stores.slice(1)) await s.close();
      }
    }));
  });

  void describe('reading orders', () => {
    void it('shows a customer only its own orders', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const subA = await addSubmission(store, a);
      const subB = await addSubmission(store, b);
      const [ra] = await store.registerOrders([item(a, subA, 'SHARED-REF', { registeredAt: at(1) }), item(a, subA, 'A2', { registeredAt: at(3) })]);
      const [rb] = await store.registerOrders([item(b, subB, 'SHARED-REF', { registeredAt: at(2) })]);
      assert.notEqual(ra?.id_ordine, rb?.id_ordine, 'the identity includes the customer code');
      assert.equal(await store.getOrder(b.id, ra!.id_ordine), undefined);
      assert.equal((await store.getOrder(a.id, ra!.id_ordine))?.customerId, a.id);
      assert.equal((await store.getOrderByRef(a.id, 'SHARED-REF'))?.id_ordine, ra!.id_ordine);
      assert.equal((await store.getOrderByRef(b.id, 'SHARED-REF'))?.id_ordine, rb!.id_ordine);
      assert.equal(await store.getOrderByRef(b.id, 'A2'), undefined);
      assert.deepEqual((await store.listOrders({ customerId: a.id })).map((o) => o.riferimento_ordine), ['A2', 'SHARED-REF']);
      assert.deepEqual((await store.listOrders({ customerId: b.id })).map((o) => o.customerId), [b.id]);
      assert.deepEqual((await store.listOrders({})).map((o) => o.registeredAt), [at(3), at(2), at(1)]);
      assert.equal((await store.listOrders({ limit: 2 })).length, 2);
      assert.ok((await store.listOrders({})).every((o) => o.righe.length === 2));
      assert.deepEqual(await store.listOrders({ customerId: 'nobody' }), []);
    }));

    void it('registers the same way with { durable: false }, visible at once to every instance', () => withStore(makeStore, async (store, handle) => {
      const stores = await instances(store, handle.another, 2);
      try {
        const c = await addCustomer(store, 'C001');
        const sub = await stores[0]!.saveSubmission(newSubmission(c), { durable: false });
        const other = stores[stores.length - 1]!;
        assert.equal((await other.getSubmission(sub.id))?.state, 'received', 'committed when the promise resolves');
        const [first] = await store.registerOrders([item(c, sub.id, 'L1')], { durable: false });
        assert.equal(first?.status, 'created');
        assert.deepEqual((await other.getOrder(c.id, first!.id_ordine))?.numero_ordine, first!.numero_ordine);
        const again = await other.registerOrders([item(c, sub.id, 'L1'), item(c, sub.id, 'L2')], { durable: false });
        assert.deepEqual(again.map((r) => r.status), ['created', 'created']);
        assert.equal(again[0]!.numero_ordine, first!.numero_ordine, 'the same submission gets the same answer');
        const dup = await store.registerOrders([item(c, await addSubmission(store, c), 'L2')], { durable: false });
        assert.equal(dup[0]?.status, 'duplicate');
        assert.equal(dup[0]?.numero_ordine, again[1]!.numero_ordine);
      } finally {
        for (const s of stores.slice(1)) await s.close();
      }
    }));

    void it('remembers the latest attempt per reference, rewritten when a submission is processed again', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const early = await addSubmission(store, a, { receivedAt: at(1), channel: 'ftp' });
      const late = await addSubmission(store, a, { receivedAt: at(2), channel: 'email' });
      const refused: Outcome = {
        submissionId: early, esito: 'errore', orders: [
          { index: 0, codice_cliente: 'A001', riferimento_ordine: 'R1', esito: 'errore', code: 'BUSINESS', errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto' }] },
          { index: 1, riferimento_ordine: 'R2', esito: 'ok', id_ordine: 'id-2', numero_ordine: '2025-000001' },
          { index: 2, esito: 'errore', code: 'VALIDATION', message: ['riferimento_ordine must be a string'] },
        ],
      };
      await store.completeSubmission(early, 'processed', refused, at(3));
      const accepted: Outcome = { submissionId: late, esito: 'ok', orders: [{ index: 0, riferimento_ordine: 'R1', esito: 'ok', id_ordine: 'id-1', numero_ordine: '2025-000002' }] };
      await store.completeSubmission(late, 'processed', accepted, at(4));
      assert.deepEqual(await store.latestAttempt(a.id, 'R1'), { submissionId: late, channel: 'email', receivedAt: at(2), outcome: accepted.orders[0] });
      assert.deepEqual(await store.latestAttempt(a.id, 'R2'), { submissionId: early, channel: 'ftp', receivedAt: at(1), outcome: refused.orders[1] });
      assert.equal(await store.latestAttempt(b.id, 'R1'), undefined, 'another customer sees nothing');
      assert.equal(await store.latestAttempt(a.id, 'R9'), undefined);
      // Processing the early submission again replaces what it said before.
      await store.resetSubmission(early);
      await store.completeSubmission(early, 'processed', { submissionId: early, esito: 'ok', orders: [refused.orders[0]!] }, at(5));
      assert.equal(await store.latestAttempt(a.id, 'R2'), undefined);
      assert.equal((await store.latestAttempt(a.id, 'R1'))?.submissionId, late);
    }));
  });
}
