// The receiver example of docs/customers/webhooks.md, run as written: it must accept a delivery signed by the
// service, print it once even when it comes twice, and refuse a delivery signed with another secret.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { newSigningSecret } from '../../src/handoff/secret.ts';
import { postWebhook } from '../../src/handoff/webhook-send.ts';
import { waitFor } from '../helpers/service.ts';

const root = path.resolve(import.meta.dirname, '../..');

function example(): string {
  const md = readFileSync(path.join(root, 'docs/customers/webhooks.md'), 'utf8');
  const m = /<!-- receiver-example:start -->\s*```js\n([\s\S]*?)```\s*<!-- receiver-example:end -->/.exec(md);
  assert.ok(m, 'the example block is in the page');
  return m[1]!;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

void describe('docs/customers/webhooks.md receiver example', () => {
  void it('verifies a delivery from the service, ignores a repeated one and refuses a wrong signature', async () => {
    // Inside the repository, so that `import 'standardwebhooks'` resolves as in a customer's project.
    const dir = path.join(root, '.tmp-test', `receiver-${randomBytes(4).toString('hex')}`);
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'receiver.mjs');
    writeFileSync(file, example());
    const secret = newSigningSecret();
    const port = await freePort();
    const child = spawn(process.execPath, [file], { env: { ...process.env, WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    try {
      const body = JSON.stringify({ id: 'evt-1', type: 'ordine.registrato', time: new Date().toISOString(), cursor: '1', data: { numero_ordine: '2026-000123' } });
      const send = (s: string) => postWebhook({ url: `http://127.0.0.1:${port}/`, allowPrivate: true, secret: s, id: 'evt-1', body, timeoutMs: 2000 });
      const first = await waitFor(async () => {
        const a = await send(secret);
        return a.kind === 'error' && /ECONNREFUSED/.test(a.error) ? undefined : a;
      }, 10_000, 'the example listening');
      assert.deepEqual(first, { kind: 'ok', status: 204 });
      assert.deepEqual(await send(secret), { kind: 'ok', status: 204 }, 'a repeated delivery is acknowledged');
      assert.deepEqual(await send(newSigningSecret()), { kind: 'error', status: 400, error: 'HTTP 400 Bad Request' });
      assert.equal(out, 'ordine.registrato 2026-000123\n', 'processed once');
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
