// `order-intake integration add|list|rotate|revoke` as an operator runs them (the real CLI, a child process), with
// the keys they print used on the running service's event feed.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestService, tempDir, type TestService } from '../helpers/service.ts';
import { failed, ok, runCli } from './run.ts';

let t: TestService;
let dir: string;

before(async () => {
  dir = tempDir();
  t = await startTestService({}, dir);
});
after(() => t.close());

const feed = async (key: string) => (await fetch(`${t.url}/api/v1/eventi`, { headers: { 'x-api-key': key } })).status;

void describe('order-intake integration', () => {
  void it('add --json prints the name and a key, once, that opens the feed; the database keeps only its hash', async () => {
    const r = ok(await runCli(dir, ['integration', 'add', '--name', 'MIS', '--json']));
    const issued = JSON.parse(r.stdout) as { name: string; api_key: string };
    assert.deepEqual(Object.keys(issued), ['name', 'api_key']);
    assert.equal(issued.name, 'MIS');
    assert.match(issued.api_key, /^oii_[0-9A-Za-z]{12}_[0-9A-Za-z]{32}$/);
    assert.equal(await feed(issued.api_key), 200);
    const secret = issued.api_key.split('_')[2]!;
    assert.ok(!readFileSync(path.join(dir, 'intake.sqlite')).includes(secret), 'the secret is not stored');
    const list = JSON.parse(ok(await runCli(dir, ['integration', 'list', '--json'])).stdout) as Record<string, unknown>[];
    assert.equal(list.length, 1);
    assert.equal(list[0]!.name, 'MIS');
    assert.ok(!JSON.stringify(list).includes(secret), 'list never shows a key');
    failed(await runCli(dir, ['integration', 'add', '--name', 'MIS']), /already exists/);
    failed(await runCli(dir, ['integration', 'add', '--name', '../x']), /integration name/);
  });

  void it('rotate replaces the key at once; revoke stops it', async () => {
    const first = JSON.parse(ok(await runCli(dir, ['integration', 'add', '--name', 'ERP', '--json'])).stdout) as { api_key: string };
    const human = ok(await runCli(dir, ['integration', 'rotate', '--name', 'ERP']));
    assert.match(human.stdout, /shown only now/);
    const key = /(oii_\w+)/.exec(human.stdout)?.[1];
    assert.ok(key);
    assert.equal(await feed(first.api_key), 401);
    assert.equal(await feed(key), 200);
    ok(await runCli(dir, ['integration', 'revoke', '--name', 'ERP']));
    assert.equal(await feed(key), 401);
    failed(await runCli(dir, ['integration', 'revoke', '--name', 'ERP']), /no active integration/);
    const table = ok(await runCli(dir, ['integration', 'list'])).stdout;
    assert.match(table, /^NAME\s+KEY ID\s+CREATED\s+ROTATED\s+REVOKED/m);
  });
});
