// The embedded store after a crash: `order-intake serve` on SQLite is killed with SIGKILL while it holds heavy work
// of the asynchronous channels (REST async, SFTP, FTP, SMTP) and the reply sender's named lease; the next process
// on the same file judges everything it left within 10 s of starting, each once, and takes the reply sender's lease
// at once instead of waiting out the dead process's two minutes (it recognises its predecessor: same host, process
// gone). Times are printed.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ProvisionedCustomer } from '../../src/customers/provision.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { SQLITE_FILE_NAME } from '../../src/store/open.ts';
import { loggedPort, spawnServe, stopServe, type ServeProcess } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/service.ts';
import { ftpUpload, heavy, rest, sftpUpload, smtpSend } from './clients.ts';
import { readSqlite, seedStore } from './seed.ts';

const TAKEOVER_MS = 10_000;
const SETTINGS = {
  INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_SMTP_PORT: '0', INTAKE_MAIL_DOMAIN: 'ordini.test',
  // A relay that refuses connections: the reply sender takes its lease and keeps the replies queued.
  INTAKE_SMTP_RELAY: 'smtp://127.0.0.1:9',
};

async function prepare(file: string): Promise<ProvisionedCustomer> {
  const store = await openSqliteStore(file);
  try {
    return (await seedStore(store))[0]!;
  } finally {
    await store.close();
  }
}

void describe('restart after a crash on SQLite', () => {
  void it('judges everything the killed process left within 10 s of the next start, and frees its leases at once', { timeout: 180_000 }, async () => {
    const dir = tempDir('intake-restart-');
    const file = path.join(dir, SQLITE_FILE_NAME);
    let p: ServeProcess | undefined;
    try {
      const c = await prepare(file);
      p = await spawnServe(dir, SETTINGS, 60_000);
      const [sftpPort, ftpPort, smtpPort] = [await loggedPort(p, 'sftp'), await loggedPort(p, 'ftp'), await loggedPort(p, 'smtp')];
      await waitFor(() => (readSqlite(file, `SELECT holder FROM leases WHERE name = 'mail-outbox'`).length > 0 ? true : undefined), 20_000, 'the reply sender to take its lease');
      const file2 = (refs: string[]) => JSON.stringify(refs.map((r) => heavy(r, 1000)));
      const acked = await Promise.all([
        ...Array.from({ length: 6 }, (_, k) => rest(p!.httpPort, c.apiKey, heavy(`RA-${k}`), [`RA-${k}`], true)),
        ...Array.from({ length: 2 }, (_, k) => sftpUpload(sftpPort, c, `s-${k}.json`, [`SF-${k}`], file2([`SF-${k}`]))),
        ...Array.from({ length: 2 }, (_, k) => ftpUpload(ftpPort, c, `f-${k}.json`, [`FT-${k}`], file2([`FT-${k}`]))),
        ...Array.from({ length: 3 }, (_, k) => smtpSend(smtpPort, c, [`EM-${k}`], (r) => heavy(r, 1000))),
      ]);
      assert.deepEqual(acked.filter((s) => !s.acked).map((s) => s.refs), [], 'every hand-over acknowledged');
      p.proc.kill('SIGKILL');
      await p.exited;
      const left = readSqlite<{ id: string; channel: string }>(file, `SELECT id, channel FROM submissions WHERE state = 'received'`);
      const leftMail = readSqlite<{ id: string }>(file, `SELECT id FROM mail_messages WHERE state = 'received'`);
      assert.ok(left.length + leftMail.length > 0, 'the process died holding work');
      const [lease] = readSqlite<{ holder: string; lease_until: number }>(file, `SELECT holder, lease_until FROM leases WHERE name = 'mail-outbox'`);
      assert.ok(lease && lease.lease_until > Date.now() + 60_000, 'its reply sender lease had more than a minute to run');

      p = await spawnServe(dir, SETTINGS, 60_000);
      // A living instance is there once it serves (its recovery runs from then on): the 10 s count from here.
      const startedAt = Date.now();
      const done = await waitFor(() => {
        const subs = readSqlite<{ channel: string; processed_at: string | null }>(file,
          `SELECT channel, processed_at FROM submissions WHERE id IN (SELECT value FROM json_each(?))`, JSON.stringify(left.map((s) => s.id)));
        const mail = readSqlite<{ done_at: string | null }>(file, `SELECT done_at FROM mail_messages WHERE id IN (SELECT value FROM json_each(?))`, JSON.stringify(leftMail.map((m) => m.id)));
        return subs.every((s) => s.processed_at) && mail.every((m) => m.done_at) ? { subs, mail } : undefined;
      }, 60_000, 'everything left to be judged');
      const times = new Map<string, number[]>();
      for (const s of done.subs) times.set(s.channel, [...(times.get(s.channel) ?? []), Date.parse(s.processed_at!) - startedAt]);
      if (done.mail.length > 0) times.set('email (message derived)', done.mail.map((m) => Date.parse(m.done_at!) - startedAt));
      console.log(`SQLite restart after SIGKILL:\n  ${[...times].map(([ch, ms]) => `${ch}: ${ms.length} left, slowest judged ${Math.max(...ms)} ms after the new process served`).join('\n  ')}`);
      for (const [ch, ms] of times) assert.ok(Math.max(...ms) <= TAKEOVER_MS, `${ch} judged within ${TAKEOVER_MS} ms of the start: ${ms.join(', ')}`);

      const [me] = readSqlite<{ id: string }>(file, 'SELECT id FROM instances WHERE pid = ?', p.proc.pid);
      assert.ok(me, 'the new process registered itself');
      const holder = await waitFor(() => readSqlite<{ holder: string }>(file, `SELECT holder FROM leases WHERE name = 'mail-outbox'`)[0]?.holder === me.id ? me.id : undefined,
        10_000, 'the new process to hold the reply sender lease (its predecessor\'s freed at start)');
      assert.notEqual(holder, lease.holder);
      assert.deepEqual(readSqlite(file, 'SELECT id FROM instances WHERE id = ?', lease.holder), [], 'the predecessor is forgotten');

      const twice = readSqlite(file, `SELECT riferimento_ordine FROM orders GROUP BY riferimento_ordine HAVING count(*) > 1`);
      assert.deepEqual(twice, [], 'no order registered twice');
      const refs = new Set(readSqlite<{ r: string }>(file, 'SELECT riferimento_ordine AS r FROM orders').map((o) => o.r));
      for (const ref of acked.flatMap((s) => s.refs)) assert.ok(refs.has(ref), `${ref} registered`);
      assert.deepEqual(readSqlite(file, 'SELECT id FROM submissions WHERE attempts <> 1'), [], 'each judged once');
    } finally {
      if (p) await stopServe(p);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
