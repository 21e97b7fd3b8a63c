// `customer imap set` tells the operator when the running service will watch the new mailbox. That delay is the
// service's INTAKE_IMAP_POLL_SECONDS, which the CLI cannot know: it must not quote its own environment's value.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, test } from 'node:test';
import { tempDir } from '../helpers/service.ts';
import { runCli } from './run.ts';

const dir = tempDir();
after(() => rmSync(dir, { recursive: true, force: true }));

test('the saved message names the service setting instead of the CLI\'s own poll value', async () => {
  const env = { INTAKE_SECRET_KEY: '11'.repeat(32), IMAP_PW: 'segreto', INTAKE_IMAP_POLL_SECONDS: '7' };
  const add = await runCli(dir, ['customer', 'add', '--code', 'C001', '--name', 'Cliente', '--json'], env);
  assert.equal(add.code, 0, add.stderr);
  const set = await runCli(dir, ['customer', 'imap', 'set', '--code', 'C001', '--host', 'imap.example.it', '--user', 'ordini',
    '--password-env', 'IMAP_PW', '--no-check'], env);
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stdout, /saved; a running service starts watching it when it next re-reads its mailbox list \(every INTAKE_IMAP_POLL_SECONDS of that service/);
  assert.doesNotMatch(set.stdout, /\b7 s\b/, 'the CLI\'s own setting says nothing about the service');
});
