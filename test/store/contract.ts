// The store contract: one suite every backend must pass unchanged (see src/domain/store/store.ts). store-sqlite,
// store-memory and store-postgres.test.ts run it for each backend; a behaviour not pinned here is not part of the contract.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { connectorCustomersContract } from './contract-connector-customers.ts';
import { connectorsContract } from './contract-connectors.ts';
import { eventsContract } from './contract-events.ts';
import { handoffContract } from './contract-handoff.ts';
import { retentionContract } from './contract-retention.ts';
import { filesContract } from './contract-files.ts';
import { uploadPiecesContract } from './contract-upload-pieces.ts';
import { outcomesContract } from './contract-outcomes.ts';
import { mailContract } from './contract-mail.ts';
import { ordersContract } from './contract-orders.ts';
import { orderListContract } from './contract-order-list.ts';
import { saveSingleOrderContract } from './contract-save-single.ts';
import { statsContract } from './contract-stats.ts';
import { poisonContract } from './contract-poison.ts';
import { workContract } from './contract-work.ts';
import { webContract } from './contract-web.ts';
import { customerStateContract } from './contract-customer-state.ts';
import { lifecycleContract } from './contract-lifecycle.ts';
import { addCustomer, addSubmission, at, newSubmission, withStore, type StoreFactory } from './fixtures.ts';

export type { StoreFactory, StoreHandle } from './fixtures.ts';

function isCode(code: IntakeError['code']): (e: unknown) => boolean {
  return (e: unknown) => e instanceof IntakeError && e.code === code;
}

/** Migrations, customers and their credentials. */
function basicsContract(makeStore: StoreFactory): void {
  void describe('migrations', () => {
    void it('migrates a fresh database once, even when two instances start together', async () => {
      const handle = await makeStore();
      const extra: Store[] = [];
      try {
        const second = handle.another ? await handle.another() : handle.store;
        if (second !== handle.store) extra.push(second);
        const [a, b] = await Promise.all([handle.store.migrate(), second.migrate()]);
        const applied = [...a, ...b].sort();
        assert.deepEqual(applied.slice(0, 2), ['001_init.sql', '002_work.sql'], 'each migration applied once, in order');
        assert.equal(new Set(applied).size, applied.length, 'no migration applied twice');
        assert.deepEqual(await handle.store.migrate(), [], 'nothing left to apply');
        await handle.store.ping();
        assert.deepEqual(await second.listCustomers(), []);
      } finally {
        for (const s of extra) await s.close();
        await handle.cleanup();
      }
    });
  });

  void describe('customers and credentials', () => {
    void it('creates customers and finds them by id, code and mailbox (case-insensitive)', () => withStore(makeStore, async (store) => {
      const c = await store.createCustomer({ id: 'c-1', code: 'C001', name: 'Tipografia Rossi', mailbox: 'C001-AbC@Ordini.Test' });
      assert.equal(c.mailbox, 'c001-abc@ordini.test');
      assert.match(c.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.deepEqual(await store.getCustomer('c-1'), c);
      assert.deepEqual(await store.getCustomerByCode('C001'), c);
      assert.deepEqual(await store.getCustomerByMailbox('C001-ABC@ORDINI.TEST'), c);
      assert.equal(await store.getCustomer('nope'), undefined);
      assert.equal(await store.getCustomerByCode('c001'), undefined, 'customer codes are exact');
      await store.createCustomer({ id: 'c-0', code: 'A000', name: 'Prima', mailbox: 'a@ordini.test', createdAt: '2025-01-01T01:00:00+01:00' });
      const list = await store.listCustomers();
      assert.deepEqual(list.map((x) => x.code), ['A000', 'C001']);
      assert.equal(list[0]!.createdAt, '2025-01-01T00:00:00.000Z', 'timestamps come back in UTC');
    }));

    void it('refuses a second customer with the same code or mailbox', () => withStore(makeStore, async (store) => {
      await store.createCustomer({ id: 'c-1', code: 'C001', name: 'A', mailbox: 'a@ordini.test' });
      await assert.rejects(store.createCustomer({ id: 'c-2', code: 'C001', name: 'B', mailbox: 'b@ordini.test' }), isCode('CONFLICT'));
      await assert.rejects(store.createCustomer({ id: 'c-3', code: 'C003', name: 'C', mailbox: 'A@Ordini.test' }), isCode('CONFLICT'));
      assert.equal((await store.listCustomers()).length, 1);
    }));

    void it('finds active credentials only, and revokes them', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      await store.addCredential({ id: 'k1', customerId: c.id, kind: 'api_key', lookup: 'KEYID1', secretHash: 'sha256:aa' });
      await store.addCredential({ id: 'p1', customerId: c.id, kind: 'password', lookup: 'c001', secretHash: 'scrypt$x' });
      // The same lookup under another kind is a different credential.
      await store.addCredential({ id: 'k2', customerId: c.id, kind: 'connector', lookup: 'KEYID1', secretHash: 'sha256:bb' });
      const found = await store.findCredential('api_key', 'KEYID1');
      assert.equal(found?.id, 'k1');
      assert.equal(found?.customerId, c.id);
      assert.equal(found?.secretHash, 'sha256:aa');
      assert.equal(found?.revokedAt, undefined);
      assert.equal(await store.findCredential('api_key', 'keyid1'), undefined, 'lookups are exact');
      await assert.rejects(
        store.addCredential({ id: 'k3', customerId: c.id, kind: 'api_key', lookup: 'KEYID1', secretHash: 'sha256:cc' }),
        isCode('CONFLICT'),
      );
      assert.equal(await store.revokeCredentials(c.id, 'api_key'), 1);
      assert.equal(await store.findCredential('api_key', 'KEYID1'), undefined);
      assert.equal((await store.findCredential('password', 'c001'))?.id, 'p1', 'other kinds stay active');
      assert.equal((await store.findCredential('connector', 'KEYID1'))?.id, 'k2');
      assert.equal(await store.revokeCredentials(c.id, 'api_key'), 0);
      // A revoked lookup may be issued again.
      await store.addCredential({ id: 'k4', customerId: c.id, kind: 'api_key', lookup: 'KEYID1', secretHash: 'sha256:dd' });
      assert.equal((await store.findCredential('api_key', 'KEYID1'))?.id, 'k4');
    }));

    void it('refuses a credential for an unknown customer', () => withStore(makeStore, async (store) => {
      await assert.rejects(
        store.addCredential({ id: 'k1', customerId: 'ghost', kind: 'api_key', lookup: 'K', secretHash: 'h' }),
        isCode('NOT_FOUND'),
      );
    }));
  });

}

/** The catalogue, and submissions as received. */
function catalogContract(makeStore: StoreFactory): void {
  void describe('catalog', () => {
    void it('upserts articles in batches and counts them', () => withStore(makeStore, async (store) => {
      assert.equal(await store.countArticles(), 0);
      await store.upsertArticles([]);
      const batch = Array.from({ length: 5000 }, (_, i) => ({ codice_articolo: `ART-${i}`, descrizione: `Articolo ${i}`, unita_misura: 'PZ' }));
      await store.upsertArticles(batch);
      assert.equal(await store.countArticles(), 5000);
      // An update, a new row, and the same code twice in one batch (the later row wins).
      await store.upsertArticles([
        { codice_articolo: 'ART-1', descrizione: 'Biglietti', unita_misura: 'CF' },
        { codice_articolo: 'NEW', descrizione: 'prima', unita_misura: 'PZ' },
        { codice_articolo: 'NEW', descrizione: 'dopo', unita_misura: 'FG' },
      ]);
      assert.equal(await store.countArticles(), 5001);
      assert.deepEqual(await store.knownArticles(['ART-1', 'NEW', 'ART-99999']), new Set(['ART-1', 'NEW']));
      // The recap of registered lines (src/render/recap.ts) reads descriptions by code, exactly, over several chunks.
      const asked = [...Array.from({ length: 1200 }, (_, i) => `ART-${i}`), 'NEW', 'NEW', 'new', 'ART-99999'];
      const descriptions = await store.articleDescriptions(asked);
      assert.equal(descriptions.size, 1201);
      assert.equal(descriptions.get('ART-1'), 'Biglietti');
      assert.equal(descriptions.get('ART-1199'), 'Articolo 1199');
      assert.equal(descriptions.get('NEW'), 'dopo');
      assert.equal(descriptions.has('new'), false);
      assert.deepEqual(await store.articleDescriptions([]), new Map());
    }));

    void it('answers knownArticles for more than 1,000 codes, comparing codes exactly', () => withStore(makeStore, async (store) => {
      await store.upsertArticles(Array.from({ length: 1200 }, (_, i) => ({ codice_articolo: `A${i}`, descrizione: 'x', unita_misura: 'PZ' })));
      const asked = [...Array.from({ length: 1500 }, (_, i) => `A${i}`), 'a1', 'A1', ''];
      const known = await store.knownArticles(asked);
      assert.equal(known.size, 1200);
      assert.ok(known.has('A0') && known.has('A1199') && !known.has('A1200') && !known.has('a1') && !known.has(''));
      assert.deepEqual(await store.knownArticles([]), new Set());
    }));

    void it('keeps unit codes upper case and compares them case-insensitively', () => withStore(makeStore, async (store) => {
      await store.upsertUnits([{ code: 'pz', description: 'pezzi' }, { code: 'CF', description: 'confezione' }]);
      await store.upsertUnits([{ code: 'Pz', description: 'pezzo' }]);
      assert.deepEqual(await store.listUnits(), [{ code: 'CF', description: 'confezione' }, { code: 'PZ', description: 'pezzo' }]);
      // The answer holds the codes as asked, so callers can test the line's own spelling.
      assert.deepEqual(await store.knownUnits(['pz', 'PZ', 'cf', 'KG']), new Set(['pz', 'PZ', 'cf']));
      assert.deepEqual(
        await store.knownUnits(Array.from({ length: 1100 }, (_, i) => (i % 2 ? `U${i}` : 'pz'))),
        new Set(['pz']),
      );
    }));

    void it('refuses catalog rows with NUL characters or empty codes, writing nothing', () => withStore(makeStore, async (store) => {
      await assert.rejects(store.upsertArticles([
        { codice_articolo: 'OK', descrizione: 'x', unita_misura: 'PZ' },
        { codice_articolo: 'BAD', descrizione: 'a\0b', unita_misura: 'PZ' },
      ]), isCode('VALIDATION'));
      await assert.rejects(store.upsertArticles([{ codice_articolo: ' ', descrizione: 'x', unita_misura: 'PZ' }]), isCode('VALIDATION'));
      await assert.rejects(store.upsertUnits([{ code: 'P\0Z', description: 'x' }]), isCode('VALIDATION'));
      assert.equal(await store.countArticles(), 0);
      assert.deepEqual(await store.listUnits(), []);
    }));
  });

  void describe('submissions', () => {
    void it('keeps raw bytes byte-exact (invalid UTF-8 included) and metadata as given', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const raw = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0x00])]);
      const input = newSubmission(c, {
        channel: 'connector', raw, fileName: 'ordine è.csv', mediaType: 'text/csv', charset: 'windows-1252',
        meta: { remote: '10.0.0.1', messageId: '<a"b\'c@x>', note: 'àèìòù €\n\t\\' }, singleOrder: true, site: 'MI',
        sites: ['MI', 'TO'], connectorId: 'conn-1', reservedOrderId: 'order-1', receivedAt: '2025-02-01T10:00:00+01:00',
      });
      const saved = await store.saveSubmission(input);
      const expected = {
        ...input, receivedAt: '2025-02-01T09:00:00.000Z', state: 'received', attempts: 0, retries: 0,
      };
      assert.deepEqual(saved, expected);
      const read = await store.getSubmission(input.id);
      assert.deepEqual(read, expected);
      assert.ok(read!.raw.equals(raw));
      assert.equal(await store.getSubmission('missing'), undefined);
    }));

    void it('omits absent optional fields, keeps an empty body and replaces NUL in descriptive text', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const input = newSubmission(c, { raw: Buffer.alloc(0), fileName: 'a\0b.json' });
      const saved = await store.saveSubmission(input);
      assert.equal(saved.raw.length, 0);
      assert.equal(saved.fileName, 'a\uFFFDb.json');
      assert.equal(saved.singleOrder, false);
      for (const key of ['mediaType', 'charset', 'site', 'sites', 'connectorId', 'reservedOrderId', 'outcome', 'processedAt']) {
        assert.ok(!(key in saved), `${key} should be absent`);
      }
    }));

    void it('gives pending submissions oldest first, completes and resets them', () => withStore(makeStore, async (store) => {
      const c = await addCustomer(store, 'C001');
      const s3 = await addSubmission(store, c, { receivedAt: at(3) });
      const s1 = await addSubmission(store, c, { receivedAt: at(1) });
      const s2 = await addSubmission(store, c, { receivedAt: at(2) });
      assert.deepEqual(await store.pendingSubmissionIds(10), [s1, s2, s3]);
      assert.deepEqual(await store.pendingSubmissionIds(2), [s1, s2]);
      const outcome = { submissionId: s1, esito: 'ok' as const, orders: [{ index: 0, riferimento_ordine: 'R1', esito: 'ok' as const, id_ordine: 'x', numero_ordine: '2025-000001' }] };
      await store.completeSubmission(s1, 'processed', outcome, at(5));
      await store.completeSubmission(s2, 'failed', { submissionId: s2, esito: 'errore', orders: [] }, at(6));
      assert.deepEqual(await store.pendingSubmissionIds(10), [s3]);
      const done = await store.getSubmission(s1);
      assert.equal(done?.state, 'processed');
      assert.deepEqual(done?.outcome, outcome);
      assert.equal(done?.processedAt, at(5));
      assert.equal(done?.attempts, 1);
      await store.resetSubmission(s1);
      const reset = await store.getSubmission(s1);
      assert.equal(reset?.state, 'received');
      assert.equal(reset?.outcome, undefined);
      assert.equal(reset?.attempts, 1, 'attempts count every processing');
      assert.deepEqual(await store.pendingSubmissionIds(10), [s1, s3]);
      await store.completeSubmission(s1, 'processed', outcome, at(7));
      assert.equal((await store.getSubmission(s1))?.attempts, 2);
      await assert.rejects(store.completeSubmission('missing', 'processed', outcome, at(8)), isCode('NOT_FOUND'));
      await assert.rejects(store.resetSubmission('missing'), isCode('NOT_FOUND'));
    }));

    void it('lists submission summaries newest first, filtered, without raw bytes', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      const a1 = await addSubmission(store, a, { receivedAt: at(1) });
      const b1 = await addSubmission(store, b, { receivedAt: at(2) });
      const a2 = await addSubmission(store, a, { receivedAt: at(3) });
      await store.completeSubmission(a1, 'processed', { submissionId: a1, esito: 'errore', orders: [] }, at(4));
      const all = await store.listSubmissions({});
      assert.deepEqual(all.map((s) => s.id), [a2, b1, a1]);
      for (const s of all) assert.ok(!('raw' in s) && !('outcome' in s));
      assert.equal(all[2]!.esito, 'errore');
      assert.ok(!('esito' in all[0]!));
      assert.deepEqual((await store.listSubmissions({ customerId: a.id })).map((s) => s.id), [a2, a1]);
      assert.deepEqual((await store.listSubmissions({ state: 'received' })).map((s) => s.id), [a2, b1]);
      assert.deepEqual((await store.listSubmissions({ state: 'processed', customerId: b.id })).map((s) => s.id), []);
      assert.deepEqual((await store.listSubmissions({ limit: 1 })).map((s) => s.id), [a2]);
      await assert.rejects(store.listSubmissions({ limit: 0 }), isCode('VALIDATION'));
    }));

    void it('finds a customer\'s earlier file by hash, and a submission by reserved order id', () => withStore(makeStore, async (store) => {
      const a = await addCustomer(store, 'A001');
      const b = await addCustomer(store, 'B001');
      // The same bytes sent first as a REST call's body: a single order, not a file, so not "the same file again".
      await addSubmission(store, a, { sha256: 'same', channel: 'rest', singleOrder: true, receivedAt: at(0) });
      await addSubmission(store, a, { sha256: 'only-rest', channel: 'rest', singleOrder: true, receivedAt: at(0) });
      const first = await addSubmission(store, a, { sha256: 'same', channel: 'ftp', receivedAt: at(1) });
      await addSubmission(store, a, { sha256: 'same', channel: 'sftp', receivedAt: at(2) });
      await addSubmission(store, b, { sha256: 'other', reservedOrderId: 'order-b' });
      assert.equal((await store.findSubmissionBySha(a.id, 'same'))?.id, first);
      assert.equal((await store.findSubmissionBySha(a.id, 'same', 'sftp'))?.receivedAt, at(2));
      assert.equal(await store.findSubmissionBySha(a.id, 'same', 'rest'), undefined);
      assert.equal(await store.findSubmissionBySha(a.id, 'only-rest'), undefined, 'a single order is not a file');
      assert.equal(await store.findSubmissionBySha(a.id, 'other'), undefined, 'another customer\'s file is not seen');
      assert.ok(!('raw' in (await store.findSubmissionBySha(a.id, 'same'))!));
      assert.equal((await store.findSubmissionByReservedOrderId(b.id, 'order-b'))?.customerId, b.id);
      assert.equal(await store.findSubmissionByReservedOrderId(a.id, 'order-b'), undefined);
    }));
  });
}

/**
 * The contract in four quarters of about the same length on PostgreSQL (its slowest backend: a fresh schema per test),
 * so that a backend's contract can be spread over several test files that the runner runs side by side.
 */
const QUARTERS: readonly (readonly ((makeStore: StoreFactory) => void)[])[] = [
  [basicsContract, ordersContract, saveSingleOrderContract, lifecycleContract],
  [catalogContract, workContract, orderListContract],
  [mailContract, poisonContract, connectorsContract, connectorCustomersContract, eventsContract],
  [handoffContract, retentionContract, customerStateContract, filesContract, uploadPiecesContract, outcomesContract, statsContract, webContract],
];

export type Quarter = 1 | 2 | 3 | 4;

/** The contract for one backend: all of it, or the quarters named (each backend's files together run all four). */
export function storeContract(name: string, makeStore: StoreFactory, quarters: readonly Quarter[] = [1, 2, 3, 4]): void {
  const label = quarters.length === QUARTERS.length ? name : `${name}, part ${quarters.join(' and ')} of ${QUARTERS.length}`;
  void describe(`store contract: ${label}`, () => {
    for (const q of quarters) for (const part of QUARTERS[q - 1]!) part(makeStore);
  });
}
