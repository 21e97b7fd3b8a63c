// The store contract, web part: operators, server-side sessions (ended by logout, password reset and disabling),
// the audit log, the cookie key, and the console's filtered keyset lists (see src/domain/store/web.ts).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { v7 as uuidv7 } from 'uuid';
import { IntakeError } from '../../src/domain/errors.ts';
import type { Outcome } from '../../src/domain/types.ts';
import type { Store } from '../../src/domain/store/store.ts';
import type { OrderSearch, SubmissionSearch } from '../../src/domain/store/web.ts';
import { addCustomer, addSubmission, at, item, withStore, type StoreFactory } from './fixtures.ts';

const isCode = (code: IntakeError['code']) => (e: unknown) => e instanceof IntakeError && e.code === code;
const future = () => new Date(Date.now() + 3_600_000).toISOString();

async function session(store: Store, subjectId: string, kind: 'operator' | 'customer' = 'operator', expiresAt = future()): Promise<string> {
  const tokenHash = randomUUID();
  await store.createWebSession({ tokenHash, kind, subjectId, createdAt: new Date().toISOString(), expiresAt });
  return tokenHash;
}

function outcome(id: string, esito: 'ok' | 'errore', ref: string): Outcome {
  return { submissionId: id, esito, orders: [{ index: 0, riferimento_ordine: ref, esito, ...(esito === 'errore' ? { errori: [{ campo: 'righe[0].codice_articolo', messaggio: 'x' }] } : {}) }] };
}

export function webContract(makeStore: StoreFactory): void {
  void describe('web', () => {
    void it('creates operators with lower-case e-mail, refuses a second one, lists them', () => withStore(makeStore, async (store) => {
      const op = await store.createOperator({ id: randomUUID(), email: ' Ops@Example.com ', role: 'admin', passwordHash: 'scrypt$x' });
      assert.equal(op.email, 'ops@example.com');
      await assert.rejects(store.createOperator({ id: randomUUID(), email: 'OPS@example.com', role: 'viewer', passwordHash: 'h' }), isCode('CONFLICT'));
      await store.createOperator({ id: randomUUID(), email: 'a@example.com', role: 'viewer', passwordHash: 'h' });
      assert.deepEqual((await store.listOperators()).map((o) => [o.email, o.role]), [['a@example.com', 'viewer'], ['ops@example.com', 'admin']]);
      assert.equal((await store.getOperatorByEmail('OPS@EXAMPLE.COM'))?.id, op.id);
      assert.equal((await store.getOperator(op.id))?.passwordHash, 'scrypt$x');
    }));

    void it('ends sessions: deleted, expired, password reset and disabling all stop a session', () => withStore(makeStore, async (store) => {
      const op = await store.createOperator({ id: randomUUID(), email: 'o@example.com', role: 'operator', passwordHash: 'h1' });
      const s1 = await session(store, op.id);
      const s2 = await session(store, op.id);
      const expired = await session(store, op.id, 'operator', new Date(Date.now() - 1000).toISOString());
      assert.equal((await store.getWebSession(s1))?.subjectId, op.id);
      assert.equal(await store.getWebSession(expired), undefined, 'an expired session is not returned');
      await store.deleteWebSession(s1);
      assert.equal(await store.getWebSession(s1), undefined, 'a deleted session is gone');
      assert.ok(await store.getWebSession(s2));
      assert.equal(await store.setOperatorPassword(op.id, 'h2'), true);
      assert.equal(await store.getWebSession(s2), undefined, 'a password reset ends every session');
      assert.equal((await store.getOperator(op.id))?.passwordHash, 'h2');
      const s3 = await session(store, op.id);
      await store.setOperatorDisabled(op.id, true);
      assert.equal(await store.getWebSession(s3), undefined, 'disabling ends every session');
      assert.ok((await store.getOperator(op.id))?.disabledAt);
      await store.setOperatorDisabled(op.id, false);
      assert.equal((await store.getOperator(op.id))?.disabledAt, undefined);
      assert.equal(await store.setOperatorPassword(randomUUID(), 'h'), false);
      const c = await session(store, 'cust-1', 'customer');
      assert.equal(await store.deleteWebSessionsOf('customer', 'cust-1'), 1);
      assert.equal(await store.getWebSession(c), undefined);
    }));

    void it('extends a session', () => withStore(makeStore, async (store) => {
      const s = await session(store, 'x', 'customer', new Date(Date.now() + 60_000).toISOString());
      const later = new Date(Date.now() + 7_200_000).toISOString();
      await store.extendWebSession(s, later);
      assert.equal((await store.getWebSession(s))?.expiresAt, later);
    }));

    void it('keeps the audit log newest first, paged by id, filtered by object', () => withStore(makeStore, async (store) => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const id = uuidv7();
        ids.push(id);
        await store.addAudit({ id, at: at(i), actor: 'ops@example.com', action: 'invio.rielabora', objectType: 'invio', objectId: i % 2 ? 'A' : 'B', detail: { n: i } });
      }
      const first = await store.listAudit({ limit: 2 });
      assert.deepEqual(first.map((e) => e.id), [ids[4], ids[3]]);
      assert.deepEqual(first[0]?.detail, { n: 4 });
      assert.equal(first[0]?.at, at(4));
      const next = await store.listAudit({ limit: 10, before: first[1]!.id });
      assert.deepEqual(next.map((e) => e.id), [ids[2], ids[1], ids[0]]);
      assert.deepEqual((await store.listAudit({ limit: 10, objectType: 'invio', objectId: 'A' })).map((e) => e.detail.n), [3, 1]);
    }));

    void it('keeps the first web key stored', () => withStore(makeStore, async (store) => {
      assert.equal(await store.webKey('cookie', 'one'), 'one');
      assert.equal(await store.webKey('cookie', 'two'), 'one');
    }));

    void it('searches submissions by customer, channel, outcome, dates and reference, in keyset pages', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'C001');
      const b = await addCustomer(store, 'C002');
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const c = i % 2 ? b : a;
        const id = await addSubmission(store, c, { receivedAt: at(i * 10), channel: i < 3 ? 'ftp' : 'portal' });
        ids.push(id);
        if (i !== 5) await store.completeSubmission(id, 'processed', outcome(id, i % 3 === 0 ? 'errore' : 'ok', `R${i}`), at(i * 10 + 1));
      }
      const all = await store.searchSubmissions({ limit: 10 });
      assert.deepEqual(all.map((s) => s.id), [...ids].reverse());
      assert.equal(all[1]?.esito, 'ok');
      const page1 = await store.searchSubmissions({ limit: 4 });
      const page2 = await store.searchSubmissions({ limit: 4, after: { at: page1[3]!.receivedAt, id: page1[3]!.id } });
      assert.deepEqual([...page1, ...page2].map((s) => s.id), [...ids].reverse(), 'pages join without gap or repeat');
      assert.deepEqual((await store.searchSubmissions({ limit: 10, customerId: b.id })).map((s) => s.id), [ids[5], ids[3], ids[1]]);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, channel: 'ftp' })).map((s) => s.id), [ids[2], ids[1], ids[0]]);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, outcome: 'errore' })).map((s) => s.id), [ids[3], ids[0]]);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, outcome: 'received' })).map((s) => s.id), [ids[5]]);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, outcome: 'ok' })).map((s) => s.id), [ids[4], ids[2], ids[1]]);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, outcome: 'failed' })).map((s) => s.id), []);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, from: at(10), to: at(30) })).map((s) => s.id), [ids[2], ids[1]]);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, riferimento: 'R4' })).map((s) => s.id), [ids[4]]);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, customerId: a.id, outcome: 'ok', channel: 'portal' })).map((s) => s.id), [ids[4]]);
      assert.equal(await store.countRefused(at(0)), 2);
      assert.equal(await store.countRefused(at(5)), 1);
    }));

    void it('searches orders in keyset pages and counts them per channel and customer', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'C001');
      const b = await addCustomer(store, 'C002');
      const sa = await addSubmission(store, a);
      const sb = await addSubmission(store, b);
      await store.registerOrders([
        item(a, sa, 'A1', { registeredAt: at(1), channel: 'rest' }), item(a, sa, 'A2', { registeredAt: at(2), channel: 'rest' }),
        item(b, sb, 'B1', { registeredAt: at(3), channel: 'portal' }),
      ]);
      const all = await store.searchOrders({ limit: 10 });
      assert.deepEqual(all.map((o) => o.riferimento_ordine), ['B1', 'A2', 'A1']);
      assert.equal('righe' in all[0]!, false);
      const next = await store.searchOrders({ limit: 10, after: { at: all[0]!.registeredAt, id: all[0]!.id_ordine } });
      assert.deepEqual(next.map((o) => o.riferimento_ordine), ['A2', 'A1']);
      assert.deepEqual((await store.searchOrders({ limit: 10, customerId: a.id, riferimento: 'A1' })).map((o) => o.riferimento_ordine), ['A1']);
      assert.deepEqual((await store.searchOrders({ limit: 10, customerId: a.id, riferimento: 'B1' })), [], 'another customer\'s reference is not found');
      assert.deepEqual((await store.searchOrders({ limit: 10, channel: 'portal' })).map((o) => o.codice_cliente), ['C002']);
      const counts = await store.orderCounts(at(2));
      assert.deepEqual(counts.map((c) => [c.channel, c.codice_cliente, c.count]).sort(), [['portal', 'C002', 1], ['rest', 'C001', 1]]);
    }));

    void it('finds articles by a part of the code or the description, in any case, % and _ literally, demo ones only when asked', () => withStore(makeStore, async (store) => {
      await store.upsertArticles([
        { codice_articolo: 'BV-STD', descrizione: 'Biglietti da visita', unita_misura: 'PZ' },
        { codice_articolo: 'BV_X', descrizione: 'Busta 100% riciclata', unita_misura: 'PZ' },
        { codice_articolo: 'VOL-A4', descrizione: 'Volantini A4', unita_misura: 'PZ' },
        { codice_articolo: 'XBVX', descrizione: 'Cartellina', unita_misura: 'PZ' },
        { codice_articolo: 'DEMO-1', descrizione: 'Biglietti dimostrativi', unita_misura: 'PZ', demo: true },
      ]);
      const codes = async (text: string, demo?: boolean) => (await store.searchArticles({ text, limit: 10, ...(demo ? { demo } : {}) })).map((a) => a.codice_articolo);
      assert.deepEqual(await codes('bv'), ['BV-STD', 'BV_X', 'XBVX'], 'anywhere in the code, any case');
      assert.deepEqual(await codes('VISITA'), ['BV-STD'], 'anywhere in the description');
      assert.deepEqual(await codes('biglietti'), ['BV-STD'], 'a demo article is not offered by default');
      assert.deepEqual(await codes('biglietti', true), ['BV-STD', 'DEMO-1']);
      assert.deepEqual(await codes('V_'), ['BV_X'], '_ is a character, not any character');
      assert.deepEqual(await codes('0%'), ['BV_X'], '% is a character, not any text');
      assert.deepEqual(await codes('%'), ['BV_X']);
      assert.deepEqual(await codes('\\'), []);
      assert.equal((await store.searchArticles({ text: '', limit: 2 })).length, 2);
      assert.deepEqual((await store.searchArticles({ text: 'dimostrativi', limit: 10, demo: true }))[0],
        { codice_articolo: 'DEMO-1', descrizione: 'Biglietti dimostrativi', unita_misura: 'PZ', demo: true });
      // An import under a demo code makes it a real article.
      await store.upsertArticles([{ codice_articolo: 'DEMO-1', descrizione: 'Biglietti veri', unita_misura: 'PZ' }]);
      assert.deepEqual(await codes('biglietti'), ['BV-STD', 'DEMO-1']);
    }));

    void it('finds orders and submissions by a part of the reference and of the customer\'s code or name, in any case', () => withStore(makeStore, async (store) => {
      const ferri = await store.createCustomer({ id: 'cust-ferri', code: 'C101', name: 'Tipografia Ferri', mailbox: 'ferri@ordini.test' });
      const other = await store.createCustomer({ id: 'cust-rossi', code: 'C202', name: 'Studio Rossi 100%', mailbox: 'rossi@ordini.test' });
      const sf = await addSubmission(store, ferri, { receivedAt: at(1) });
      const so = await addSubmission(store, other, { receivedAt: at(2) });
      await store.registerOrders([
        item(ferri, sf, 'PO-1213', { registeredAt: at(1), order: { note: 'Piano terra' } }), item(ferri, sf, 'po_77', { registeredAt: at(2) }),
        item(other, so, 'X%1', { registeredAt: at(3) }), item(other, so, 'PO-9', { registeredAt: at(4) }),
      ]);
      await store.completeSubmission(sf, 'processed', outcome(sf, 'ok', 'PO-1213'), at(5));
      await store.completeSubmission(so, 'processed', outcome(so, 'ok', 'X%1'), at(6));
      const refs = async (q: Omit<OrderSearch, 'limit'>) => (await store.searchOrders({ limit: 10, ...q })).map((o) => o.riferimento_ordine);
      assert.deepEqual(await refs({ riferimento: '121' }), ['PO-1213'], 'a part of the reference');
      assert.equal((await store.searchOrders({ limit: 10, riferimento: '121' }))[0]?.note, 'Piano terra', 'the list carries the note (the CSV export)');
      assert.deepEqual(await refs({ riferimento: 'po' }), ['PO-9', 'po_77', 'PO-1213'], 'in any case');
      assert.deepEqual(await refs({ riferimento: 'o_' }), ['po_77'], '_ is a character');
      assert.deepEqual(await refs({ riferimento: '%' }), ['X%1'], '% is a character');
      assert.deepEqual(await refs({ customer: 'ferri' }), ['po_77', 'PO-1213'], 'a part of the customer\'s name');
      assert.deepEqual(await refs({ customer: 'c2' }), ['PO-9', 'X%1'], 'a part of the customer\'s code');
      assert.deepEqual(await refs({ customer: '0%' }), ['PO-9', 'X%1']);
      assert.deepEqual(await refs({ customer: 'nessuno' }), []);
      // A customer's own code names that customer alone (the console links to its lists so), not others containing it.
      const c10 = await store.createCustomer({ id: 'cust-c10', code: 'C10', name: 'Legatoria', mailbox: 'c10@ordini.test' });
      const s10 = await addSubmission(store, c10, { receivedAt: at(3) });
      await store.registerOrders([item(c10, s10, 'L-1', { registeredAt: at(5) })]);
      assert.deepEqual(await refs({ customer: 'C10' }), ['L-1']);
      assert.deepEqual(await refs({ customer: 'C1' }), ['L-1', 'po_77', 'PO-1213'], 'a part of two codes: both customers');
      assert.deepEqual(await refs({ customerId: ferri.id, riferimento: 'PO' }), ['po_77', 'PO-1213'], 'within one customer');
      assert.deepEqual(await refs({ customerId: ferri.id, riferimento: '9' }), [], 'another customer\'s reference is not found');
      const subs = async (q: Omit<SubmissionSearch, 'limit'>) => (await store.searchSubmissions({ limit: 10, ...q })).map((x) => x.id);
      assert.deepEqual(await subs({ riferimento: '121' }), [sf]);
      assert.deepEqual(await subs({ riferimento: 'x%' }), [so]);
      assert.deepEqual(await subs({ riferimento: '_' }), []);
      assert.deepEqual(await subs({ customer: 'FERRI' }), [sf]);
      assert.deepEqual(await subs({ customer: 'rossi', riferimento: '121' }), []);
    }));

    void it('tells a partly accepted file from a refused one, in the list and in the week\'s count', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const ids: string[] = [];
      const outcomes: Outcome['orders'][] = [
        [{ index: 0, riferimento_ordine: 'P1', esito: 'ok', numero_ordine: '2026-000001' }, { index: 1, riferimento_ordine: 'P2', esito: 'errore', code: 'BUSINESS' }],
        [{ index: 0, riferimento_ordine: 'P3', esito: 'errore', code: 'BUSINESS' }],
        [{ index: 0, riferimento_ordine: 'P4', esito: 'ok', numero_ordine: '2026-000002' }],
      ];
      for (const [i, orders] of outcomes.entries()) {
        const id = await addSubmission(store, c, { receivedAt: at(i + 1), channel: 'sftp', singleOrder: false });
        ids.push(id);
        await store.completeSubmission(id, 'processed', { submissionId: id, esito: orders.every((o) => o.esito === 'ok') ? 'ok' : 'errore', orders }, at(i + 2));
      }
      const file = await addSubmission(store, c, { receivedAt: at(9), channel: 'sftp', singleOrder: false });
      await store.completeSubmission(file, 'processed', { submissionId: file, esito: 'errore', fileError: { code: 'VALIDATION', message: ['x'] }, orders: [] }, at(10));
      const listed = await store.searchSubmissions({ limit: 10 });
      assert.deepEqual(listed.map((s) => [s.esito, s.partial ?? false]), [['errore', false], ['ok', false], ['errore', false], ['errore', true]]);
      assert.deepEqual((await store.searchSubmissions({ limit: 10, outcome: 'errore' })).map((s) => s.partial ?? false), [false, false, true]);
      assert.equal(await store.countRefused(at(0)), 3, 'refused as a whole or in part');
      assert.equal(await store.countPartial(at(0)), 1);
      assert.equal(await store.countPartial(at(2)), 0, 'since a time, as countRefused');
    }));

    void it('lists orders with what production last reported and its history', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const sub = await addSubmission(store, c);
      const [shipped, waiting] = await store.registerOrders([item(c, sub, 'S1', { registeredAt: at(1) }), item(c, sub, 'S2', { registeredAt: at(2) })]);
      const report = (from: 'in_lavorazione' | null, to: 'in_lavorazione' | 'spedito', n: number, nota?: string) => store.setProductionState({
        orderId: shipped!.id_ordine, from, to, nota, at: at(n), integration: 'MIS',
        event: { id: uuidv7(), type: 'ordine.stato_aggiornato' as const, time: at(n), orderId: shipped!.id_ordine, customerId: c.id, data: {} },
      });
      assert.equal(await report(null, 'in_lavorazione', 20), true);
      assert.equal(await report('in_lavorazione', 'spedito', 21, 'BRT 123'), true);
      const listed = await store.searchOrders({ limit: 10, customerId: c.id });
      assert.deepEqual(listed.map((o) => [o.riferimento_ordine, o.productionState]), [['S2', undefined], ['S1', 'spedito']]);
      assert.deepEqual(listed[1]?.productionHistory, [{ stato: 'in_lavorazione', aggiornato_il: at(20) }, { stato: 'spedito', nota: 'BRT 123', aggiornato_il: at(21) }]);
      assert.equal('productionHistory' in listed[0]!, false, 'nothing reported: no history');
      void waiting;
    }));
  });
}
