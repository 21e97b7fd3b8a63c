import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import { provisionCustomer } from '../../src/customers/provision.ts';
import { createIntake } from '../../src/intake/intake.ts';
import { createLogger } from '../../src/log.ts';
import { DEMO_ARTICLES, demoOrderJson, seedDemoIfEmpty } from '../../src/seed/demo.ts';
import { openTempStore, type TempStore } from '../auth/temp-store.ts';

interface DemoOrder {
  codice_cliente: string;
  riferimento_ordine: string;
  righe: { codice_articolo: string; unita_misura: string }[];
}

void describe('seedDemoIfEmpty on an empty store', () => {
  let t: TempStore;
  before(async () => {
    t = await openTempStore();
  });
  after(async () => t.cleanup());

  void it('loads units, the demo catalog and the DEMO customer, and returns working credentials', async () => {
    const seeded = await seedDemoIfEmpty(t.store, 'ordini.test');
    assert.ok(seeded);
    assert.equal(seeded.customer.code, 'DEMO');
    assert.equal(seeded.customer.name, 'Cliente dimostrativo');
    assert.match(seeded.mailbox, /^demo-[a-z2-7]{16}@ordini\.test$/);
    assert.equal(seeded.ftpUser, 'demo');

    assert.equal((await t.store.listUnits()).length, DEFAULT_UNITS.length);
    assert.equal(await t.store.countArticles(), DEMO_ARTICLES.length);
    // Marked as the demo's: offered to the DEMO customer (demo: true), never to a real one.
    assert.deepEqual(await t.store.searchArticles({ text: '', limit: 100 }), []);
    assert.equal((await t.store.searchArticles({ text: '', limit: 100, demo: true })).filter((a) => a.demo).length, DEMO_ARTICLES.length);
    const auth = createAuthenticator(t.store);
    assert.equal((await auth.apiKey(seeded.apiKey))?.customerCode, 'DEMO');
    assert.equal((await auth.password('demo', seeded.ftpPassword))?.customerCode, 'DEMO');
  });

  void it('does nothing more the second time', async () => {
    assert.equal(await seedDemoIfEmpty(t.store, 'ordini.test'), undefined);
    assert.equal((await t.store.listCustomers()).length, 1);
  });

  void it('demoOrderJson is fixed, uses demo articles and known units, and the intake accepts it once', async () => {
    const order = demoOrderJson() as DemoOrder;
    assert.deepEqual(demoOrderJson(), order, 'the same order every time (idempotent when sent again)');
    assert.equal(order.codice_cliente, 'DEMO');
    assert.equal(order.riferimento_ordine, 'DEMO-0001');
    const articles = new Set(DEMO_ARTICLES.map((a) => a.codice_articolo));
    for (const r of order.righe) {
      assert.ok(articles.has(r.codice_articolo), r.codice_articolo);
      assert.equal((await t.store.knownUnits([r.unita_misura])).size, 1, r.unita_misura);
    }

    const customer = await t.store.getCustomerByCode('DEMO');
    assert.ok(customer);
    const intake = createIntake({ store: t.store, timeZone: 'Europe/Rome', log: createLogger('silent') });
    const submission = {
      principal: { customerId: customer.id, customerCode: 'DEMO' },
      channel: 'rest' as const,
      mediaType: 'application/json',
      raw: Buffer.from(JSON.stringify(order)),
      singleOrder: true,
    };
    const first = await intake.submit(submission);
    assert.equal(first.outcome.esito, 'ok', JSON.stringify(first.outcome));
    const again = await intake.submit(submission);
    assert.equal(again.outcome.esito, 'ok');
    assert.equal(again.outcome.orders[0]?.duplicate, true);
    assert.equal(again.outcome.orders[0]?.numero_ordine, first.outcome.orders[0]?.numero_ordine);
  });
});

void describe('seedDemoIfEmpty on a store in use', () => {
  let t: TempStore;
  before(async () => {
    t = await openTempStore();
  });
  after(async () => t.cleanup());

  void it('adds missing default units only, keeping the operator\'s descriptions, and seeds nothing else', async () => {
    await provisionCustomer(t.store, { code: 'C001', name: 'Cliente vero' }, 'ordini.test');
    await t.store.upsertUnits([{ code: 'PZ', description: 'Pezzi (nostra descrizione)' }, { code: 'ZZ', description: 'Unità locale' }]);

    assert.equal(await seedDemoIfEmpty(t.store, 'ordini.test'), undefined);

    const units = new Map((await t.store.listUnits()).map((u) => [u.code, u.description]));
    for (const u of DEFAULT_UNITS) assert.ok(units.has(u.code), u.code);
    assert.equal(units.get('PZ'), 'Pezzi (nostra descrizione)');
    assert.equal(units.get('ZZ'), 'Unità locale');
    assert.equal(await t.store.countArticles(), 0);
    assert.deepEqual((await t.store.listCustomers()).map((c) => c.code), ['C001']);
  });
});

void describe('removing the demo catalog', () => {
  void it('docs/operators/install.md names every demo article, and nothing else, in its remove command', () => {
    const page = readFileSync(path.resolve(import.meta.dirname, '../../docs/operators/install.md'), 'utf8');
    const command = /`order-intake articles remove ([^`]+)`/.exec(page.replace(/\n\s*/g, ' '));
    assert.ok(command, 'the command is on the page');
    assert.deepEqual(command[1]!.split(/\s+/).sort(), DEMO_ARTICLES.map((a) => a.codice_articolo).sort());
  });
});
