// `order-intake customer deactivate|reactivate CODE`: the real CLI against a data directory; the state is stored,
// listed, audit-logged (actor "cli"), repeating a command changes nothing, and an unknown code fails clearly.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { openTempStore, tempDataDir } from '../auth/temp-store.ts';
import { failed, ok, runCli } from './run.ts';

void describe('customer deactivate/reactivate CLI', () => {
  let dir: string;
  before(async () => {
    dir = await tempDataDir();
    ok(await runCli(dir, ['customer', 'add', '--code', 'C001', '--name', 'Tipografia Rossi']));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function stored() {
    const t = await openTempStore(dir);
    try {
      return { c: await t.store.getCustomerByCode('C001'), audit: await t.store.listAudit({ limit: 10 }) };
    } finally {
      await t.store.close();
    }
  }

  void it('deactivates, lists the state, reactivates; each change audit-logged once', async () => {
    const off = JSON.parse(ok(await runCli(dir, ['customer', 'deactivate', 'c001', '--json'])).stdout) as Record<string, unknown>;
    assert.equal(off.codice_cliente, 'C001');
    assert.equal(off.active, false);
    assert.equal(off.changed, true);
    assert.match(String(off.deactivated_at), /^\d{4}-\d\d-\d\dT/);
    let s = await stored();
    assert.equal(s.c?.deactivatedAt, off.deactivated_at);
    assert.deepEqual([s.audit[0]?.actor, s.audit[0]?.action, s.audit[0]?.objectId], ['cli', 'cliente.disattiva', 'C001']);

    assert.match(ok(await runCli(dir, ['customer', 'deactivate', 'C001'])).stdout, /Customer C001 was already deactivated\./);
    assert.match(ok(await runCli(dir, ['customer', 'list'])).stdout, /C001\s+Tipografia Rossi\s+\S+\s+\S+\s+deactivated /);

    assert.match(ok(await runCli(dir, ['customer', 'reactivate', 'C001'])).stdout, /Customer C001 is now active\./);
    s = await stored();
    assert.equal(s.c?.deactivatedAt, undefined);
    assert.deepEqual(s.audit.slice(0, 2).map((a) => a.action), ['cliente.riattiva', 'cliente.disattiva'], 'the repeat wrote nothing');
    const list = JSON.parse(ok(await runCli(dir, ['customer', 'list', '--json'])).stdout) as { deactivated_at: unknown }[];
    assert.equal(list[0]?.deactivated_at, null);
  });

  void it('fails clearly for an unknown code', async () => {
    failed(await runCli(dir, ['customer', 'deactivate', 'NOPE']), /no customer with code NOPE/);
  });
});
