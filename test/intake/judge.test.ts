import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import { contentHash, yearIn } from '../../src/intake/register.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite.ts';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import type { Store } from '../../src/store/store.ts';
import type { Principal } from '../../src/intake/types.ts';
import { order, TEST_ARTICLES } from '../helpers/service.ts';

let store: Store;
let intake: Intake;
let principal: Principal;

before(async () => {
  store = await openSqliteStore(':memory:');
  await store.migrate();
  await store.upsertUnits(DEFAULT_UNITS);
  await store.upsertArticles(TEST_ARTICLES);
  const c = await store.createCustomer({ id: 'cust-1', code: 'C001', name: 'Uno', mailbox: 'c001-x@ordini.test' });
  principal = { customerId: c.id, customerCode: c.code };
  intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent'), now: () => new Date('2026-11-20T10:00:00Z') });
});
after(() => store.close());

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
});
