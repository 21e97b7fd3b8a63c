import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import { JUDGE_BATCH_ORDERS, MAX_ORDERS_PER_FILE } from '../../src/intake/judge.ts';
import { contentHash, yearIn } from '../../src/intake/register.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import type { Principal } from '../../src/domain/types.ts';
import { order } from '../helpers/service.ts';
import { seedIntakeStore } from './seed.ts';

let store: Store;
let intake: Intake;
let principal: Principal;

before(async () => {
  store = await openSqliteStore(':memory:');
  principal = await seedIntakeStore(store);
  intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent'), now: () => new Date('2026-11-20T10:00:00Z') });
});
after(() => store.close());

async function allEvents() {
  const events = [];
  for (let page = await store.readEvents(null, 1000); page.length > 0; page = await store.readEvents(page.at(-1)!.cursor, 1000)) events.push(...page);
  return events;
}

const file = (orders: unknown) => ({ principal, channel: 'ftp' as const, fileName: 'ordini.json', raw: Buffer.from(JSON.stringify(orders)) });

describe('judging a file with several orders', () => {
  it('judges each order on its own and lists every one in the outcome', async () => {
    const { outcome } = await intake.submit(file([
      order('C001', 'F-1'),
      { ...order('C001', 'F-2'), righe: [] },
      order('C001', 'F-3', { righe: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] }),
      order('C999', 'F-4'),
    ]));
    assert.equal(outcome.esito, 'errore');
    const [ok, a, b, other] = outcome.orders;
    assert.equal(ok!.esito, 'ok');
    assert.equal(ok!.numero_ordine, '2026-000001');
    assert.deepEqual(a, { index: 1, codice_cliente: 'C001', riferimento_ordine: 'F-2', esito: 'errore', code: 'VALIDATION', message: ['righe must contain at least 1 elements'] });
    assert.equal(b!.code, 'BUSINESS');
    assert.deepEqual(b!.errori, [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "NOPE"' }]);
    assert.equal(other!.code, 'FORBIDDEN_CUSTOMER');
    assert.equal(await store.getOrderByRef(principal.customerId, 'F-4'), undefined);
  });

  it('a reference repeated in one file: identical is a duplicate of the first, different is a conflict', async () => {
    const { outcome } = await intake.submit(file([order('C001', 'G-1'), order('C001', 'G-1'), order('C001', 'G-1', { data_consegna: '2026-12-31' })]));
    const [first, same, different] = outcome.orders;
    assert.equal(first!.esito, 'ok');
    assert.equal(first!.duplicate, false);
    assert.equal(same!.duplicate, true);
    assert.equal(same!.numero_ordine, first!.numero_ordine);
    assert.equal(different!.code, 'CONFLICT');
  });

  it('a file of more than one batch, its attempts recorded batch by batch: repeats across batches, refusals, reprocessing', async () => {
    const n = JUDGE_BATCH_ORDERS + 500;
    const orders: unknown[] = Array.from({ length: n }, (_, i) => order('C001', `L-${i}`));
    orders[50] = order('C001', 'L-3');
    orders[1200] = order('C001', 'L-0');
    orders[1300] = order('C001', 'L-1', { data_consegna: '2026-12-31' });
    orders[1400] = order('C001', 'L-1400', { righe: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] });
    const { riferimento_ordine: _r, ...noReference } = order('C001', 'x');
    orders[1450] = noReference;
    const { submission, outcome } = await intake.submit(file(orders));
    assert.equal(outcome.orders.length, n);
    outcome.orders.forEach((o, i) => assert.equal(o.index, i));
    assert.deepEqual(outcome.orders[50], { ...outcome.orders[3]!, index: 50, duplicate: true }, 'a repeat in the same batch');
    assert.deepEqual(outcome.orders[1200], { ...outcome.orders[0]!, index: 1200, duplicate: true }, 'a repeat of an order of an earlier batch');
    assert.equal(outcome.orders[1300]!.code, 'CONFLICT');
    assert.match(outcome.orders[1300]!.errori![0]!.messaggio, /compare più volte nel file con contenuti diversi/);
    assert.equal(outcome.orders[1400]!.code, 'BUSINESS');
    assert.equal(outcome.orders[1450]!.code, 'VALIDATION');
    assert.equal(outcome.esito, 'errore');
    assert.equal(outcome.orders.filter((o) => o.esito === 'ok').length, n - 3);
    assert.equal(JSON.stringify((await store.getSubmission(submission.id))!.outcome), JSON.stringify(outcome), 'as the store reads it back');
    const refusals = (await allEvents()).filter((e) => e.type === 'ordine.rifiutato' && String(e.data.riferimento_ordine ?? '').startsWith('L-'));
    assert.equal(refusals.length, 2, 'one event per refused order with a reference, written with the verdict');
    assert.deepEqual(await intake.reprocess(submission.id), outcome, 'judged again: the same outcome');
    assert.equal((await store.getOrderByRef(principal.customerId, `L-${n - 1}`))?.numero_ordine, outcome.orders[n - 1]!.numero_ordine);
    assert.equal(await store.getOrderByRef(principal.customerId, 'L-1400'), undefined, 'the refused order is not registered');
  });

  it('reprocessing a submission gives the same outcome (created, not duplicate) and registers nothing new', async () => {
    const { submission, outcome } = await intake.submit(file([order('C001', 'H-1'), order('C001', 'H-2')]));
    const again = await intake.reprocess(submission.id);
    assert.deepEqual(again, outcome);
    assert.equal((await store.listOrders({ customerId: principal.customerId, limit: 1000 })).filter((o) => o.riferimento_ordine.startsWith('H-')).length, 2);
  });

  it('lower-case customer code and unit are the same identity as upper-case', async () => {
    const a = await intake.submit(file(order('C001', 'I-1')));
    const b = await intake.submit(file(order('c001', 'I-1', { righe: order('C001', 'I-1').righe.map((r) => ({ ...r, unita_misura: 'pz' })) })));
    assert.equal(b.outcome.orders[0]!.duplicate, true);
    assert.equal(b.outcome.orders[0]!.id_ordine, a.outcome.orders[0]!.id_ordine);
  });

  it('an unreadable file is a file-level error, kept with its raw bytes', async () => {
    const { submission, outcome } = await intake.submit({ ...file([]), raw: Buffer.from('<ordine><unclosed>') , fileName: 'x.xml' });
    assert.equal(outcome.fileError?.code, 'NOT_PARSEABLE');
    const kept = await store.getSubmission(submission.id);
    assert.equal(kept!.raw.toString(), '<ordine><unclosed>');
  });
});

describe('judging a large CSV file in batches', () => {
  const HEADER = 'codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura';
  const csvFile = (lines: string[]) => ({ principal, channel: 'sftp' as const, fileName: 'grande.csv', raw: Buffer.from([HEADER, ...lines].join('\n')) });

  it('judges orders across batches as one file: numbers in file order, repeats and errors where they are', async () => {
    const n = JUDGE_BATCH_ORDERS * 2 + 500;
    const lines: string[] = [];
    // K-0 has its rows at both ends of the file; K-7 is refused for an unknown article; K-1500 appears again at
    // the end under another customer (forbidden), K-2400 names an unknown unit.
    lines.push('C001;K-0;2026-11-20;BV-STD;1;PZ');
    for (let i = 1; i < n; i++) {
      const article = i === 7 ? 'NOPE' : 'VOL-A4';
      const unit = i === 2400 ? 'XX' : 'PZ';
      lines.push(`C001;K-${i};2026-11-20;${article};${i};${unit}`);
    }
    lines.push('C001;K-0;2026-11-20;VOL-A4;2;PZ');
    lines.push('C999;K-1500;2026-11-20;VOL-A4;1;PZ');
    const { submission, outcome } = await intake.submit(csvFile(lines));
    assert.equal(outcome.orders.length, n + 1);
    assert.deepEqual(outcome.orders.map((o) => o.index), outcome.orders.map((_, i) => i));
    const ok = outcome.orders.filter((o) => o.esito === 'ok');
    assert.equal(ok.length, n - 2);
    // Numbers follow the file's order across batches.
    const numbers = ok.map((o) => Number(o.numero_ordine!.split('-')[1]));
    assert.deepEqual(numbers, [...numbers].sort((a, b) => a - b));
    const k0 = await store.getOrderByRef(principal.customerId, 'K-0');
    assert.deepEqual(k0?.righe.map((r) => r.quantita), [1, 2]);
    assert.equal(outcome.orders[7]!.code, 'BUSINESS');
    assert.equal(outcome.orders[2400]!.code, 'BUSINESS');
    assert.equal(outcome.orders[n]!.code, 'FORBIDDEN_CUSTOMER');

    // Judging it again (a crash after some batches, or an operator's reprocess) gives the same outcome.
    const again = await intake.reprocess(submission.id);
    assert.deepEqual(again, outcome);
    const last = await store.getOrderByRef(principal.customerId, `K-${n - 1}`);
    assert.equal(last?.numero_ordine, outcome.orders[n - 1]!.numero_ordine);
    assert.equal(last?.submissionId, submission.id);
  });

  it('refuses a file with more orders than allowed as a whole, registering none of them', async () => {
    const lines = Array.from({ length: MAX_ORDERS_PER_FILE + 1 }, (_, i) => `C001;M-${i};2026-11-20;BV-STD;1;PZ`);
    const { outcome } = await intake.submit(csvFile(lines));
    assert.equal(outcome.fileError?.code, 'FILE_TOO_MANY_ORDERS');
    assert.deepEqual(outcome.fileError?.message, ['il file contiene più di 100.000 ordini, il massimo per un singolo file: nessun ordine è stato registrato; dividere gli ordini in più file e inviarli di nuovo']);
    assert.equal(await store.getOrderByRef(principal.customerId, 'M-0'), undefined);
  });

  it('a fault at the end of a CSV file refuses it whole: no batch before it is registered', async () => {
    const lines = Array.from({ length: JUDGE_BATCH_ORDERS + 10 }, (_, i) => `C001;E-${i};2026-11-20;BV-STD;1;PZ`);
    lines.push(`C001;"E-end;2026-11-20;BV-STD;1;PZ`);
    const { outcome } = await intake.submit(csvFile(lines));
    assert.equal(outcome.fileError?.code, 'NOT_PARSEABLE');
    assert.match(outcome.fileError!.message[0]!, /quote that is never closed, opened on line 1012/);
    assert.equal(await store.getOrderByRef(principal.customerId, 'E-0'), undefined);
  });
});

describe('registration helpers', () => {
  it('numbers by the calendar year of the configured time zone', () => {
    assert.equal(yearIn(new Date('2026-12-31T23:30:00Z'), 'Europe/Rome'), 2027);
    assert.equal(yearIn(new Date('2026-12-31T23:30:00Z'), 'UTC'), 2026);
  });

  it('the content hash ignores the format but not the content', () => {
    const o = { codice_cliente: 'C001', riferimento_ordine: 'R', data_ordine: '2026-01-01', righe: [{ codice_articolo: 'A', quantita: 1.5, unita_misura: 'PZ' }] };
    assert.equal(contentHash(o), contentHash(structuredClone(o)));
    assert.notEqual(contentHash(o), contentHash({ ...o, righe: [{ codice_articolo: 'A', quantita: 2, unita_misura: 'PZ' }] }));
  });

  it('the note is part of the content; an order without one hashes as it did before orders had notes', () => {
    const o = { codice_cliente: 'C001', riferimento_ordine: 'R', data_ordine: '2026-01-01', righe: [{ codice_articolo: 'A', quantita: 1.5, unita_misura: 'PZ' }] };
    const before = createHash('sha256').update(JSON.stringify(['C001', 'R', '2026-01-01', null, [['A', 1.5, 'PZ']]])).digest('hex');
    assert.equal(contentHash(o), before);
    assert.notEqual(contentHash({ ...o, note: 'x' }), before);
    assert.notEqual(contentHash({ ...o, note: 'x' }), contentHash({ ...o, note: 'y' }));
  });
});
