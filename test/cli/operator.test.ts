// `order-intake operator add|list|reset-password|disable`: the real CLI against a data directory; the printed
// password is checked against the stored hash, and the audit log records each command.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../../src/auth/secrets.ts';
import { openTempStore, tempDataDir } from '../auth/temp-store.ts';
import { failed, ok, runCli } from './run.ts';

void describe('operator CLI', () => {
  let dir: string;
  before(async () => {
    dir = await tempDataDir();
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function stored(email: string) {
    const t = await openTempStore(dir);
    try {
      return { op: await t.store.getOperatorByEmail(email), audit: await t.store.listAudit({ limit: 50 }) };
    } finally {
      await t.store.close();
    }
  }

  void it('add --json prints email, password and role once; the password matches the stored hash', async () => {
    const r = ok(await runCli(dir, ['operator', 'add', '--email', 'Ops@Example.com', '--role', 'admin', '--json']));
    const out = JSON.parse(r.stdout) as { email: string; password: string; role: string };
    assert.deepEqual(Object.keys(out).sort(), ['email', 'password', 'role']);
    assert.equal(out.email, 'ops@example.com');
    assert.equal(out.role, 'admin');
    assert.match(out.password, /^[0-9A-Za-z]{20}$/);
    const { op, audit } = await stored('ops@example.com');
    assert.ok(op && await verifyPassword(out.password, op.passwordHash));
    assert.notEqual(op.passwordHash, out.password);
    assert.equal(audit[0]?.action, 'operator.add');
  });

  void it('refuses a bad e-mail, a bad role and a duplicate, with clear messages', async () => {
    failed(await runCli(dir, ['operator', 'add', '--email', 'not-an-email']), /is not an e-mail address/);
    failed(await runCli(dir, ['operator', 'add', '--email', 'x@example.com', '--role', 'root']), /role must be one of admin, operator, viewer/);
    failed(await runCli(dir, ['operator', 'add', '--email', 'ops@example.com']), /already exists/);
  });

  void it('list, reset-password and disable', async () => {
    const list = JSON.parse(ok(await runCli(dir, ['operator', 'list', '--json'])).stdout) as { email: string; role: string; disabled_at: string | null }[];
    assert.deepEqual(list.map((o) => [o.email, o.role, o.disabled_at]), [['ops@example.com', 'admin', null]]);
    const before = (await stored('ops@example.com')).op!.passwordHash;
    const reset = JSON.parse(ok(await runCli(dir, ['operator', 'reset-password', '--email', 'ops@example.com', '--json'])).stdout) as { password: string };
    const after = (await stored('ops@example.com')).op!;
    assert.notEqual(after.passwordHash, before);
    assert.ok(await verifyPassword(reset.password, after.passwordHash));
    ok(await runCli(dir, ['operator', 'disable', '--email', 'ops@example.com']));
    assert.ok((await stored('ops@example.com')).op!.disabledAt);
    ok(await runCli(dir, ['operator', 'disable', '--email', 'ops@example.com', '--enable']));
    const { op, audit } = await stored('ops@example.com');
    assert.equal(op!.disabledAt, undefined);
    assert.deepEqual(audit.slice(0, 3).map((e) => e.action), ['operator.enable', 'operator.disable', 'operator.reset_password']);
    failed(await runCli(dir, ['operator', 'reset-password', '--email', 'nobody@example.com']), /no operator nobody@example.com/);
  });
});
