import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { IntakeError } from '../../src/domain/errors.ts';
import { findCustomerByCode } from '../../src/customers/find.ts';
import { provisionCustomer, rotateApiKey } from '../../src/customers/provision.ts';
import { openTempStore, type TempStore } from '../auth/temp-store.ts';

function isCode(code: string) {
  return (e: unknown) => e instanceof IntakeError && e.code === code;
}

void describe('provisionCustomer', () => {
  let t: TempStore;
  before(async () => {
    t = await openTempStore();
  });
  after(async () => t.cleanup());

  void it('creates the customer and returns its secrets once, storing only hashes', async () => {
    const p = await provisionCustomer(t.store, { code: 'Tip.Rossi_01', name: '  Tipografia Rossi ' }, 'Ordini.Example.TEST');
    assert.equal(p.customer.code, 'Tip.Rossi_01', 'the code is kept as given');
    assert.equal(p.customer.name, 'Tipografia Rossi');
    assert.match(p.mailbox, /^tip\.rossi_01-[a-z2-7]{16}@ordini\.example\.test$/);
    assert.equal(p.customer.mailbox, p.mailbox);
    assert.equal(p.ftpUser, 'tip.rossi_01');
    assert.match(p.apiKey, /^oik_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    assert.match(p.ftpPassword, /^[0-9A-Za-z]{20}$/);

    assert.equal((await t.store.getCustomerByCode('Tip.Rossi_01'))?.id, p.customer.id);
    assert.equal((await t.store.getCustomerByMailbox(p.mailbox))?.id, p.customer.id);
    const key = await t.store.findCredential('api_key', p.apiKey.slice(4, 16));
    assert.equal(key?.customerId, p.customer.id);
    assert.match(key?.secretHash ?? '', /^sha256:[0-9a-f]{64}$/);
    const pw = await t.store.findCredential('password', 'tip.rossi_01');
    assert.equal(pw?.customerId, p.customer.id);
    assert.match(pw?.secretHash ?? '', /^scrypt\$/);
    assert.ok(!pw?.secretHash.includes(p.ftpPassword));
  });

  void it('gives every customer its own unguessable mailbox', async () => {
    const a = await provisionCustomer(t.store, { code: 'MB1', name: 'A' }, 'ordini.test');
    const b = await provisionCustomer(t.store, { code: 'MB2', name: 'B' }, 'ordini.test');
    const suffix = (m: string) => m.split('@')[0]?.split('-').at(-1);
    assert.notEqual(suffix(a.mailbox), suffix(b.mailbox));
  });

  void it('refuses invalid codes and names with a clear error', async () => {
    for (const code of ['', '-C1', '.C1', 'C 1', 'C/1', 'C1@x', 'À1', 'X'.repeat(33)]) {
      await assert.rejects(provisionCustomer(t.store, { code, name: 'x' }, 'ordini.test'), (e: unknown) =>
        isCode('VALIDATION')(e) && /customer code .* is not valid/.test((e as Error).message), code);
    }
    await assert.doesNotReject(provisionCustomer(t.store, { code: 'X'.repeat(32), name: 'x' }, 'ordini.test'));
    await assert.rejects(provisionCustomer(t.store, { code: 'N1', name: '   ' }, 'ordini.test'), isCode('VALIDATION'));
  });

  void it('refuses a code that exists, whatever its case', async () => {
    await provisionCustomer(t.store, { code: 'DUP', name: 'x' }, 'ordini.test');
    await assert.rejects(provisionCustomer(t.store, { code: 'DUP', name: 'y' }, 'ordini.test'),
      (e: unknown) => isCode('CONFLICT')(e) && /a customer with code DUP already exists/.test((e as Error).message));
    await assert.rejects(provisionCustomer(t.store, { code: 'dup', name: 'y' }, 'ordini.test'), isCode('CONFLICT'));
    assert.equal((await t.store.listCustomers()).filter((c) => c.code.toLowerCase() === 'dup').length, 1);
  });

  void it('finds customers by code ignoring case', async () => {
    const p = await provisionCustomer(t.store, { code: 'Case1', name: 'x' }, 'ordini.test');
    assert.equal((await findCustomerByCode(t.store, 'CASE1'))?.id, p.customer.id);
    assert.equal(await findCustomerByCode(t.store, 'nobody'), undefined);
  });
});

void describe('rotateApiKey', () => {
  let t: TempStore;
  before(async () => {
    t = await openTempStore();
  });
  after(async () => t.cleanup());

  void it('revokes the active key and issues a new one', async () => {
    const p = await provisionCustomer(t.store, { code: 'R1', name: 'x' }, 'ordini.test');
    const fresh = await rotateApiKey(t.store, 'r1');
    assert.notEqual(fresh, p.apiKey);
    assert.equal(await t.store.findCredential('api_key', p.apiKey.slice(4, 16)), undefined);
    assert.equal((await t.store.findCredential('api_key', fresh.slice(4, 16)))?.customerId, p.customer.id);
    // The password is untouched.
    assert.ok(await t.store.findCredential('password', 'r1'));
  });

  void it('says so when the customer does not exist', async () => {
    await assert.rejects(rotateApiKey(t.store, 'NOPE'), (e: unknown) => isCode('NOT_FOUND')(e) && /no customer with code NOPE/.test((e as Error).message));
  });
});
