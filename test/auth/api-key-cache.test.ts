// The authenticator's short memory of accepted API keys (src/auth/authenticator.ts, apiKeyCacheMs): what it saves
// (the store is not asked again), and what it costs (a revocation made elsewhere takes effect within the bound).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { API_KEY_CACHE_MS, createAuthenticator } from '../../src/auth/authenticator.ts';
import { generateApiKey } from '../../src/auth/secrets.ts';
import { provisionCustomer, rotateApiKey } from '../../src/customers/provision.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { openTempStore, type TempStore } from './temp-store.ts';

/** The store, counting the credential lookups made through it. */
function counting(store: Store): { store: Store; lookups: () => number } {
  let n = 0;
  const wrapped = Object.setPrototypeOf({
    findCredential: (...args: Parameters<Store['findCredential']>) => {
      n++;
      return store.findCredential(...args);
    },
  }, store) as Store;
  return { store: wrapped, lookups: () => n };
}

void describe('API key cache', () => {
  let t: TempStore;
  before(async () => {
    t = await openTempStore();
  });
  after(async () => t.cleanup());

  void it('asks the store once per key within the bound, and again after it', async () => {
    const c = await provisionCustomer(t.store, { code: 'K001', name: 'Cache' }, 'ordini.test');
    let clock = 1_000_000;
    const s = counting(t.store);
    const auth = createAuthenticator(s.store, { now: () => clock });
    const expected = { customerId: c.customer.id, customerCode: 'K001' };
    assert.deepEqual(await auth.apiKey(c.apiKey), expected);
    assert.deepEqual(await auth.apiKey(c.apiKey), expected);
    assert.equal(s.lookups(), 1);
    clock += API_KEY_CACHE_MS;
    assert.deepEqual(await auth.apiKey(c.apiKey), expected);
    assert.equal(s.lookups(), 2);
  });

  void it('a key revoked elsewhere is refused once the bound has passed', async () => {
    const c = await provisionCustomer(t.store, { code: 'K002', name: 'Revoca' }, 'ordini.test');
    let clock = 1_000_000;
    const auth = createAuthenticator(t.store, { now: () => clock });
    assert.equal((await auth.apiKey(c.apiKey))?.customerCode, 'K002');
    const fresh = await rotateApiKey(t.store, 'K002');
    clock += API_KEY_CACHE_MS - 1;
    assert.equal((await auth.apiKey(c.apiKey))?.customerCode, 'K002', 'the documented delay');
    clock += 1;
    assert.equal(await auth.apiKey(c.apiKey), undefined);
    assert.equal((await auth.apiKey(fresh))?.customerCode, 'K002', 'a new key works at once');
  });

  void it('with apiKeyCacheMs 0 a revocation takes effect at once', async () => {
    const c = await provisionCustomer(t.store, { code: 'K003', name: 'Subito' }, 'ordini.test');
    const auth = createAuthenticator(t.store, { apiKeyCacheMs: 0 });
    assert.equal((await auth.apiKey(c.apiKey))?.customerCode, 'K003');
    await rotateApiKey(t.store, 'K003');
    assert.equal(await auth.apiKey(c.apiKey), undefined);
  });

  void it('never remembers a refusal, and a wrong secret is refused even right after the right key', async () => {
    const c = await provisionCustomer(t.store, { code: 'K004', name: 'Rifiuti' }, 'ordini.test');
    const s = counting(t.store);
    const auth = createAuthenticator(s.store);
    const last = c.apiKey.at(-1) === 'a' ? 'b' : 'a';
    const wrong = `${c.apiKey.slice(0, -1)}${last}`;
    assert.equal((await auth.apiKey(c.apiKey))?.customerCode, 'K004');
    assert.equal(await auth.apiKey(wrong), undefined);
    assert.equal(await auth.apiKey(wrong), undefined);
    assert.equal(s.lookups(), 3, 'each refusal asked the store');
    assert.equal(await auth.apiKey(generateApiKey().token), undefined);
  });

  void it('hands out a copy: a caller that changes its principal does not change the next answer', async () => {
    const c = await provisionCustomer(t.store, { code: 'K005', name: 'Copia' }, 'ordini.test');
    const auth = createAuthenticator(t.store);
    const p = await auth.apiKey(c.apiKey);
    p!.customerCode = 'X';
    assert.equal((await auth.apiKey(c.apiKey))?.customerCode, 'K005');
  });

  void it('requests that arrive together with one key share one lookup; a wrong secret beside them does not', async () => {
    const c = await provisionCustomer(t.store, { code: 'K006', name: 'Insieme' }, 'ordini.test');
    const s = counting(t.store);
    const auth = createAuthenticator(s.store);
    const last = c.apiKey.at(-1) === 'a' ? 'b' : 'a';
    const wrong = `${c.apiKey.slice(0, -1)}${last}`;
    // 32 in flight when the key's entry has run out (or, here, was never made), and a wrong secret of the same key id.
    const answers = await Promise.all([...Array.from({ length: 32 }, () => auth.apiKey(c.apiKey)), auth.apiKey(wrong)]);
    assert.equal(s.lookups(), 2, 'one lookup for the 32, one for the wrong secret');
    assert.deepEqual(answers.slice(0, 32).map((a) => a?.customerCode), Array.from({ length: 32 }, () => 'K006'));
    assert.equal(answers[32], undefined);
    answers[0]!.customerCode = 'X';
    assert.equal(answers[1]!.customerCode, 'K006', 'each caller has its own copy');
  });
});
