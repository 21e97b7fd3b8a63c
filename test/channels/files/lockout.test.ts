/**
 * Repeated wrong passwords lock the user out on both protocols, even with the right password afterwards.
 * Its own service: the lockout also counts by address, and every test client comes from 127.0.0.1.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { LOCKOUT_DEFAULTS } from '../../../src/auth/lockout.ts';
import type { TestCustomer } from '../../helpers/service.ts';
import { ftpClient, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
});
after(() => h.close());

test('after repeated failures the right password is refused too, on FTP and SFTP', async () => {
  const started = Date.now();
  for (let i = 0; i < LOCKOUT_DEFAULTS.maxFailures; i++) {
    await assert.rejects(ftpClient(h.ftpPort, c1.ftpUser, `sbagliata-${i}`), (e: Error & { code?: number }) => e.code === 530);
  }
  // Each failure waited (about a second) before answering.
  assert.ok(Date.now() - started >= LOCKOUT_DEFAULTS.maxFailures * 900, `${Date.now() - started} ms`);
  await assert.rejects(ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword), (e: Error & { code?: number }) => e.code === 530 && /Troppi tentativi/.test(e.message));
  await assert.rejects(ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword), /authentication methods failed/i);
});
