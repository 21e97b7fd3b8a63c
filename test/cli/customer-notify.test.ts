// `order-intake customer notify set|show`: the real CLI against a data directory. Off until turned on; turning on adds
// the hand-off subscriber that produces the notifications (once, however often it is turned on); the address is
// checked (one plain address, lower-cased) and kept or removed as asked; each change audit-logged; clear errors.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { MAIL_SUBSCRIBER_ID, REQUEST_SUBSCRIBER_ID } from '../../src/handoff/notify.ts';
import { openTempStore, tempDataDir } from '../auth/temp-store.ts';
import { failed, ok, runCli } from './run.ts';

void describe('customer notify CLI', () => {
  let dir: string;
  before(async () => {
    dir = await tempDataDir();
    ok(await runCli(dir, ['customer', 'add', '--code', 'C001', '--name', 'Tipografia Rossi']));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const json = async (args: string[]) => JSON.parse(ok(await runCli(dir, [...args, '--json'])).stdout) as Record<string, unknown>;

  void it('is off until turned on; on, with an address kept, removed, and off again', async () => {
    assert.deepEqual(await json(['customer', 'notify', 'show', '--code', 'C001']), { codice_cliente: 'C001', enabled: false, address: null, updated_at: null });
    const on = await json(['customer', 'notify', 'set', '--code', 'C001', '--on', '--address', 'Produzione@Cliente.IT']);
    assert.deepEqual([on.enabled, on.address], [true, 'produzione@cliente.it']);
    assert.match(ok(await runCli(dir, ['customer', 'notify', 'set', '--code', 'C001', '--on'])).stdout, /other orders:\s+produzione@cliente\.it/, 'the address is kept');
    const bare = await json(['customer', 'notify', 'set', '--code', 'C001', '--on', '--no-address']);
    assert.deepEqual([bare.enabled, bare.address], [true, null]);
    const off = await json(['customer', 'notify', 'set', '--code', 'C001', '--off']);
    assert.equal(off.enabled, false);

    const t = await openTempStore(dir);
    try {
      const subs = (await t.store.listSubscribers({})).filter((s) => s.kind === 'mail');
      assert.deepEqual(subs.map((s) => [s.id, s.events]).sort(), [[MAIL_SUBSCRIBER_ID, ['ordine.stato_aggiornato']], [REQUEST_SUBSCRIBER_ID, ['ordine.richiesta_esito']]],
        'one notification subscriber of each kind of event');
      const audit = await t.store.listAudit({ limit: 10 });
      assert.deepEqual(audit.slice(0, 4).map((a) => a.action), ['cliente.notifiche_spente', 'cliente.notifiche_attive', 'cliente.notifiche_attive', 'cliente.notifiche_attive']);
    } finally {
      await t.store.close();
    }
  });

  void it('fails clearly', async () => {
    failed(await runCli(dir, ['customer', 'notify', 'set', '--code', 'C001']), /exactly one of --on and --off/);
    failed(await runCli(dir, ['customer', 'notify', 'set', '--code', 'C001', '--on', '--off']), /exactly one of --on and --off/);
    failed(await runCli(dir, ['customer', 'notify', 'set', '--code', 'NOPE', '--on']), /no customer with code NOPE/);
    failed(await runCli(dir, ['customer', 'notify', 'set', '--code', 'C001', '--on', '--address', 'a@b.it, c@d.it']), /is not one e-mail address/);
    failed(await runCli(dir, ['customer', 'notify', 'set', '--code', 'C001', '--on', '--address', 'senza-chiocciola']), /is not one e-mail address/);
  });
});
