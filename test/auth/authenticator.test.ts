import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import { createAccountThrottle } from '../../src/auth/account-throttle.ts';
import { createLockout } from '../../src/auth/lockout.ts';
import { generateApiKey } from '../../src/auth/secrets.ts';
import { provisionCustomer, rotateApiKey, type ProvisionedCustomer } from '../../src/customers/provision.ts';
import { openTempStore, type TempStore } from './temp-store.ts';

const MINUTE = 60_000;

void describe('authenticator', () => {
  let t: TempStore;
  let c1: ProvisionedCustomer;
  let c2: ProvisionedCustomer;

  before(async () => {
    t = await openTempStore();
    c1 = await provisionCustomer(t.store, { code: 'C001', name: 'Tipografia Uno' }, 'ordini.test');
    c2 = await provisionCustomer(t.store, { code: 'C002', name: 'Tipografia Due' }, 'ordini.test');
  });
  after(async () => t.cleanup());

  void describe('API keys', () => {
    void it('the right key gives its customer', async () => {
      const auth = createAuthenticator(t.store);
      assert.deepEqual(await auth.apiKey(c1.apiKey), { customerId: c1.customer.id, customerCode: 'C001' });
      assert.deepEqual(await auth.apiKey(c2.apiKey), { customerId: c2.customer.id, customerCode: 'C002' });
    });

    void it('a wrong secret with a real key id is refused', async () => {
      const auth = createAuthenticator(t.store);
      const keyId = c1.apiKey.slice(4, 16);
      const wrong = `oik_${keyId}_${generateApiKey().token.slice(-32)}`;
      assert.equal(await auth.apiKey(wrong), undefined);
      // Differs from the real key in its last character only: the comparison covers the whole secret.
      const last = c1.apiKey.at(-1) === 'a' ? 'b' : 'a';
      assert.equal(await auth.apiKey(`${c1.apiKey.slice(0, -1)}${last}`), undefined);
    });

    void it('an unknown key id is refused', async () => {
      assert.equal(await createAuthenticator(t.store).apiKey(generateApiKey().token), undefined);
    });

    void it('absent and malformed keys are refused', async () => {
      const auth = createAuthenticator(t.store);
      for (const bad of [undefined, '', 'oik_', 'Bearer x', c1.apiKey.toLowerCase() === c1.apiKey ? 'x' : c1.apiKey.slice(1), 'y'.repeat(1_000_000)]) {
        assert.equal(await auth.apiKey(bad), undefined);
      }
    });

    void it('a revoked key is refused and its replacement works', async () => {
      const c = await provisionCustomer(t.store, { code: 'ROT', name: 'Rotazione' }, 'ordini.test');
      const auth = createAuthenticator(t.store);
      const fresh = await rotateApiKey(t.store, 'ROT');
      assert.equal(await auth.apiKey(c.apiKey), undefined);
      assert.equal((await auth.apiKey(fresh))?.customerCode, 'ROT');
    });
  });

  void describe('passwords', () => {
    void it('the right password gives the customer; the user name is not case-sensitive', async () => {
      const auth = createAuthenticator(t.store);
      const expected = { customerId: c1.customer.id, customerCode: 'C001' };
      assert.deepEqual(await auth.password('c001', c1.ftpPassword, '10.0.0.1'), expected);
      assert.deepEqual(await auth.password('C001', c1.ftpPassword), expected);
    });

    void it('a wrong password, another customer\'s password or an unknown user is refused', async () => {
      const auth = createAuthenticator(t.store);
      assert.equal(await auth.password('c001', 'wrong-password', '10.0.0.2'), undefined);
      assert.equal(await auth.password('c001', c2.ftpPassword, '10.0.0.2'), undefined);
      assert.equal(await auth.password('nobody', c1.ftpPassword, '10.0.0.2'), undefined);
      assert.equal(await auth.password('', '', '10.0.0.2'), undefined);
    });

    void describe('lockout', () => {
      let clock: number;
      const now = () => clock;
      beforeEach(() => {
        clock = Date.parse('2025-03-01T10:00:00Z');
      });

      void it('failures from other addresses never lock the customer out of his account (issue 19, item 9)', async () => {
        const auth = createAuthenticator(t.store, { now, accountThrottle: { baseDelayMs: 1, maxDelayMs: 4 } });
        assert.ok(await auth.password('c001', c1.ftpPassword, '198.51.100.7'), 'the customer logs in from his office once');
        for (let i = 0; i < 20; i++) assert.equal(await auth.password('c001', `wrong-${i}`, `192.0.2.${i % 4}`), undefined);
        assert.equal(auth.isLocked('c001', '198.51.100.7'), false);
        assert.equal((await auth.password('c001', c1.ftpPassword, '198.51.100.7'))?.customerCode, 'C001', 'from his own address');
        assert.equal((await auth.password('c001', c1.ftpPassword, '203.0.113.50'))?.customerCode, 'C001', 'from a new address too (after a delay)');
        // The guessing addresses themselves are locked (5 failures each), even with the right password.
        assert.equal(auth.isLocked('c001', '192.0.2.0'), true);
        assert.equal(await auth.password('c001', c1.ftpPassword, '192.0.2.0'), undefined);
        clock += 15 * MINUTE;
        assert.equal(auth.isLocked('c001', '192.0.2.0'), false, 'an address lock ends after 15 minutes');
      });

      void it('an account under attack slows strangers with a growing delay, never its known addresses', () => {
        let c = 0;
        const th = createAccountThrottle({ now: () => c, free: 5, baseDelayMs: 1000, maxDelayMs: 30_000 });
        th.success('u:c001', 'a:10.0.0.1');
        const delays: number[] = [];
        for (let i = 0; i < 12; i++) {
          delays.push(th.delayFor('u:c001', 'a:192.0.2.1'));
          th.failure('u:c001');
        }
        assert.deepEqual(delays, [0, 0, 0, 0, 0, 1000, 2000, 4000, 8000, 16000, 30000, 30000]);
        assert.equal(th.delayFor('u:c001', 'a:10.0.0.1'), 0, 'the address it logged in from is not slowed');
        c += 15 * 60_000 + 1;
        assert.equal(th.delayFor('u:c001', 'a:192.0.2.1'), 0, 'failures older than the window are forgotten');
      });

      void it('after 5 failures from an address every user is refused from it, not from elsewhere', async () => {
        const auth = createAuthenticator(t.store, { now });
        for (let i = 0; i < 5; i++) assert.equal(await auth.password(`guess${i}`, 'pw', '203.0.113.9'), undefined);
        assert.equal(auth.isLocked('anyone', '203.0.113.9'), true);
        assert.equal(auth.isLocked('anyone', '::ffff:203.0.113.9'), true, 'IPv4-mapped form is the same address');
        assert.equal(await auth.password('c001', c1.ftpPassword, '203.0.113.9'), undefined);
        assert.equal((await auth.password('c001', c1.ftpPassword, '203.0.113.10'))?.customerCode, 'C001');
      });

      void it('failures spread over more than 15 minutes do not lock', async () => {
        const auth = createAuthenticator(t.store, { now });
        for (let i = 0; i < 8; i++) {
          assert.equal(await auth.password('c002', 'wrong', '10.1.1.1'), undefined);
          clock += 4 * MINUTE;
        }
        assert.equal(auth.isLocked('c002', '10.1.1.1'), false);
        assert.equal((await auth.password('c002', c2.ftpPassword, '10.1.1.1'))?.customerCode, 'C002');
      });

      void it('many attempts at once cannot get more than 5 guesses checked', async () => {
        const auth = createAuthenticator(t.store, { now });
        const results = await Promise.all(Array.from({ length: 20 }, () => auth.password('c002', 'wrong', '10.3.0.1')));
        assert.ok(results.every((r) => r === undefined));
        assert.equal(auth.isLocked('c002', '10.3.0.1'), true);
        // The right password sent from that address in the same burst would have been refused too.
        assert.equal(await auth.password('c002', c2.ftpPassword, '10.3.0.1'), undefined);
      });

      void it('many right logins at once are all let in (a transfer client opening ten connections)', async () => {
        const auth = createAuthenticator(t.store, { now });
        const results = await Promise.all(Array.from({ length: 12 }, () => auth.password('c001', c1.ftpPassword, '10.4.0.1')));
        assert.deepEqual(results.map((r) => r?.customerCode), Array(12).fill('C001'));
        assert.equal(auth.isLocked('c001', '10.4.0.1'), false);
      });
    });
  });
});

void describe('lockout bookkeeping', () => {
  void it('keeps at most maxKeys entries', async () => {
    const lockout = createLockout({ maxKeys: 100 });
    for (let i = 0; i < 1000; i++) {
      assert.equal(await lockout.begin([`u:${i}`]), true);
      lockout.end(`u:${i}`, 'failure');
    }
    assert.ok(lockout.size() <= 100, `size ${lockout.size()}`);
  });

  void it('forgets keys that no longer matter', async () => {
    let clock = 0;
    const lockout = createLockout({ now: () => clock });
    assert.equal(await lockout.begin(['u:a']), true);
    lockout.end('u:a', 'success');
    assert.equal(lockout.size(), 0);
    assert.equal(await lockout.begin(['u:b']), true);
    lockout.end('u:b', 'failure');
    assert.equal(lockout.size(), 1);
    clock += 15 * MINUTE + 1;
    assert.equal(await lockout.begin(['u:b']), true);
    lockout.end('u:b', 'neutral');
    assert.equal(lockout.size(), 0, 'an expired failure is dropped');
  });
});
