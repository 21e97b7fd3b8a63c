import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import ssh2 from 'ssh2';
import { HOST_KEY_FILE, loadOrCreateHostKey } from '../../../src/channels/files/host-key.ts';
import { createLogger } from '../../../src/log.ts';
import { tempDir } from '../../helpers/service.ts';
import { run } from './helpers.ts';

const log = createLogger('silent');

test('the host key is created once, kept 0600, and read back with the same fingerprint', async () => {
  const dir = tempDir();
  try {
    const first = await loadOrCreateHostKey(dir, log);
    const file = path.join(dir, HOST_KEY_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(first.fingerprint, /^SHA256:[A-Za-z0-9+/]{43}$/);
    const parsed = ssh2.utils.parseKey(first.privateKey);
    assert.ok(!(parsed instanceof Error));
    assert.equal(parsed.type, 'ssh-ed25519');
    const again = await loadOrCreateHostKey(dir, log);
    assert.equal(again.fingerprint, first.fingerprint);
    // OpenSSH's own tool reads the file and prints the same fingerprint.
    const r = await run('ssh-keygen', ['-l', '-f', file]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(first.fingerprint), r.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a key readable by others is tightened to 0600; a corrupt key is a clear error', async () => {
  const dir = tempDir();
  try {
    await loadOrCreateHostKey(dir, log);
    const file = path.join(dir, HOST_KEY_FILE);
    chmodSync(file, 0o644);
    await loadOrCreateHostKey(dir, log);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    writeFileSync(file, 'not a key');
    await assert.rejects(loadOrCreateHostKey(dir, log), /SFTP host key cannot be read/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
