// `order-intake articles deactivate|activate|remove CODE…`: the real CLI (runCli) against a data directory that an
// intake (as `serve` runs it) uses at the same time. A deactivated article is refused at stage B as no longer
// available, registered orders that name it stay whole, each change is audit-logged (actor "cli"), an unknown code
// changes nothing and fails clearly.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createIntake, type Intake } from '../../src/intake/intake.ts';
import { createLogger } from '../../src/log.ts';
import type { Store } from '../../src/domain/store/store.ts';
import type { Principal } from '../../src/domain/types.ts';
import { openTempStore, tempDataDir, type TempStore } from '../auth/temp-store.ts';
import { seedIntakeStore } from '../intake/seed.ts';
import { failed, ok, runCli } from './run.ts';

void describe('articles deactivate/activate/remove CLI', () => {
  let dir: string;
  let t: TempStore;
  let store: Store;
  let principal: Principal;
  let intake: Intake;

  before(async () => {
    dir = await tempDataDir();
    t = await openTempStore(dir);
    store = t.store;
    principal = await seedIntakeStore(store);
    // Articles found are remembered for a few seconds in production; asked every time here, so that the test sees the
    // CLI's change at once instead of waiting that long.
    intake = createIntake({ store, timeZone: 'Europe/Rome', log: createLogger('silent'), articleMemoryMs: 0 });
    const file = path.join(dir, 'demo.csv');
    await writeFile(file, 'codice_articolo;descrizione;unita_misura\r\nDEMO-1;Demo uno;PZ\r\nDEMO-2;Demo due;PZ\r\nDEMO-3;Demo tre;PZ\r\n');
    ok(await runCli(dir, ['articles', 'import', file]));
  });
  after(async () => {
    await t.store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const send = (ref: string, code: string) => intake.submit({
    principal, channel: 'rest', singleOrder: true,
    raw: Buffer.from(JSON.stringify({
      codice_cliente: 'C001', riferimento_ordine: ref, data_ordine: '2026-11-20', righe: [{ codice_articolo: code, quantita: 1, unita_misura: 'PZ' }],
    })),
  });

  void it('deactivates: orders are refused as no longer available, the registered one stays; activate brings it back', async () => {
    const before = await send('W-1', 'DEMO-1');
    assert.equal(before.outcome.orders[0]!.esito, 'ok');
    const id = before.outcome.orders[0]!.id_ordine!;
    const registered = await store.getOrder(principal.customerId, id);

    const r = ok(await runCli(dir, ['articles', 'deactivate', 'DEMO-1', 'DEMO-2']));
    assert.match(r.stdout, /^DEMO-1: deactivated\nDEMO-2: deactivated\n/);
    assert.match(r.stdout, /the catalog holds \d+ articles in service/);
    const refused = await send('W-2', 'DEMO-1');
    assert.deepEqual(refused.outcome.orders[0]!.errori, [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo non più disponibile: "DEMO-1"' }]);
    const unknown = await send('W-3', 'NOPE-9');
    assert.deepEqual(unknown.outcome.orders[0]!.errori, [{ campo: 'righe[0].codice_articolo', messaggio: 'Articolo sconosciuto: "NOPE-9"' }], 'unknown stays unknown');
    assert.deepEqual(await store.getOrder(principal.customerId, id), registered, 'the registered order is untouched');
    assert.deepEqual((await store.searchArticles({ text: 'DEMO', limit: 10 })).map((a) => a.codice_articolo), ['DEMO-3'], 'not suggested');

    const again = JSON.parse(ok(await runCli(dir, ['articles', 'deactivate', 'DEMO-1', '--json'])).stdout) as Record<string, unknown>;
    assert.deepEqual(again.changed, []);
    assert.deepEqual(again.unchanged, ['DEMO-1']);

    assert.match(ok(await runCli(dir, ['articles', 'activate', 'DEMO-1'])).stdout, /^DEMO-1: active again\n/);
    assert.equal((await send('W-4', 'DEMO-1')).outcome.orders[0]!.esito, 'ok');
    const audit = (await store.listAudit({ limit: 10 })).filter((a) => a.objectType === 'articolo');
    assert.deepEqual(audit.map((a) => [a.actor, a.action, a.objectId]), [
      ['cli', 'articolo.riattiva', 'DEMO-1'], ['cli', 'articolo.disattiva', 'DEMO-2'], ['cli', 'articolo.disattiva', 'DEMO-1'],
    ], 'each change once, newest first; the repeat wrote nothing');
  });

  void it('removes articles that registered orders name, leaving the orders whole', async () => {
    const sent = await send('R-1', 'DEMO-3');
    const id = sent.outcome.orders[0]!.id_ordine!;
    const registered = await store.getOrder(principal.customerId, id);
    const r = JSON.parse(ok(await runCli(dir, ['articles', 'remove', 'DEMO-3', 'DEMO-2', '--json'])).stdout) as { changed: string[] };
    assert.deepEqual(r.changed.sort(), ['DEMO-2', 'DEMO-3'], 'active or deactivated');
    assert.deepEqual(await store.knownArticles(['DEMO-3']), new Set());
    assert.deepEqual(await store.inactiveArticles(['DEMO-2']), new Set());
    assert.deepEqual(await store.getOrder(principal.customerId, id), registered);
    assert.deepEqual((await send('R-2', 'DEMO-3')).outcome.orders[0]!.errori?.[0]?.messaggio, 'Articolo sconosciuto: "DEMO-3"');
  });

  void it('fails clearly for an unknown code and changes nothing', async () => {
    failed(await runCli(dir, ['articles', 'deactivate', 'DEMO-1', 'NOPE']), /no article "NOPE" in the catalog/);
    assert.deepEqual(await store.knownArticles(['DEMO-1']), new Set(['DEMO-1']), 'DEMO-1, named with it, is still in service');
    failed(await runCli(dir, ['articles', 'remove']), /missing required argument/);
  });
});
