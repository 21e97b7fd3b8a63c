// E-mail notifications on the console's customer page, over real HTTP (server on port 0, form posts with the CSRF
// token): off at first, turned on with an address, a bad address refused in Italian with the form kept, turned off;
// each change stored and audit-logged; a viewer is not offered the form and cannot post it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addOperator } from '../../../src/operators/accounts.ts';
import type { TestService } from '../../helpers/service.ts';
import { Client, startWithOperator } from '../../e2e/browser.ts';

void describe('console: e-mail notifications of a customer', () => {
  let t: TestService;
  let ops: Client;
  const settings = async () => t.service.store.getNotifySettings((await t.service.store.getCustomerByCode('C001'))!.id);

  before(async () => {
    const started = await startWithOperator();
    t = started.t;
    await t.customer('C001');
    ops = new Client(t.url);
    await ops.login('console', started.email, started.password);
  });
  after(async () => t?.close());

  void it('shows them off, turns them on with an address, refuses a bad address, turns them off', async () => {
    const page = await ops.send('GET', '/console/clienti/C001');
    assert.match(page.body, /Disattivate<\/span> Il cliente non riceve e-mail sullo stato di produzione/);

    let _csrf = await ops.token('/console/clienti/C001');
    const on = await ops.send('POST', '/console/clienti/C001/notifiche', { _csrf, attive: 'on', indirizzo: 'Produzione@Cliente.it' });
    assert.equal(on.status, 303);
    assert.equal(on.headers.location, '/console/clienti/C001?fatto=notifiche');
    assert.deepEqual([(await settings()).enabled, (await settings()).address], [true, 'produzione@cliente.it']);
    const shown = await ops.send('GET', '/console/clienti/C001?fatto=notifiche');
    assert.match(shown.body, /Impostazione delle notifiche salvata/);
    assert.match(shown.body, /gli ordini non arrivati per e-mail sono notificati a <code>produzione@cliente\.it<\/code>/);

    _csrf = await ops.token('/console/clienti/C001');
    const bad = await ops.send('POST', '/console/clienti/C001/notifiche', { _csrf, attive: 'on', indirizzo: 'a@b.it\r\nBcc: x@y.it' });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /Indirizzo non valido: scrivete un solo indirizzo e-mail/);
    assert.equal((await settings()).address, 'produzione@cliente.it', 'unchanged');

    _csrf = await ops.token('/console/clienti/C001');
    assert.equal((await ops.send('POST', '/console/clienti/C001/notifiche', { _csrf, indirizzo: '' })).status, 303);
    assert.deepEqual(await settings(), { enabled: false, updatedAt: (await settings()).updatedAt }, 'off, address removed');
    const audit = await t.service.store.listAudit({ limit: 5 });
    assert.deepEqual(audit.slice(0, 2).map((a) => a.action), ['cliente.notifiche_spente', 'cliente.notifiche_attive']);
  });

  void it('a viewer sees the setting but not the form, and cannot post it', async () => {
    const { password } = await addOperator(t.service.store, { email: 'viewer@example.com', role: 'viewer' });
    const viewer = new Client(t.url);
    await viewer.login('console', 'viewer@example.com', password);
    const page = await viewer.send('GET', '/console/clienti/C001');
    assert.match(page.body, /Notifiche e-mail dello stato di produzione/);
    assert.doesNotMatch(page.body, /action="\/console\/clienti\/C001\/notifiche"/);
    const _csrf = await viewer.token('/console/clienti/C001').catch(() => 'none');
    assert.equal((await viewer.send('POST', '/console/clienti/C001/notifiche', { _csrf, attive: 'on' })).status, 403);
    assert.equal((await settings()).enabled, false);
  });
});
