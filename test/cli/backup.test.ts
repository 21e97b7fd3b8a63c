// `order-intake db backup|restore|check` and the scheduled backups of `serve`, on the embedded SQLite store, with the
// real binary and the real server: a backup taken while REST orders stream in holds every order acknowledged before it
// began, and a service restored from it numbers on without repeating a number.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnServe, stopOrKill, waitForLine, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir } from '../helpers/service.ts';
import { waitFor } from '../helpers/wait.ts';
import { failed, ok, runCli, spawnCli } from './run.ts';
import { readSqlite } from '../multi/seed.ts';
import { backupFileName } from '../../src/backups/schedule.ts';
import { loadConfig } from '../../src/config.ts';

interface Acked { ref: string; id: string; numero: string; at: number }

/** One synchronous REST order; its answer once it is registered (201), or why not. */
async function post(p: ServeProcess, key: string, ref: string): Promise<{ id: string; numero: string }> {
  const res = await fetch(`http://127.0.0.1:${p.httpPort}/api/v1/ordini`, {
    method: 'POST', body: JSON.stringify(order('DEMO', ref, { righe: [{ codice_articolo: 'BV-STD', quantita: 1, unita_misura: 'PZ' }] })),
    headers: { 'content-type': 'application/json', 'x-api-key': key },
  });
  const body = (await res.json()) as { id_ordine: string; numero_ordine: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  return { id: body.id_ordine, numero: body.numero_ordine };
}

describe('db backup and restore (SQLite)', () => {
  it('a backup taken while orders stream in holds every order acknowledged before it began; restored, numbering goes on', async () => {
    const dirA = tempDir();
    const dirB = tempDir();
    const backups = tempDir();
    const file = path.join(backups, 'intake-backup.sqlite');
    let a: ServeProcess | undefined;
    let b: ServeProcess | undefined;
    try {
      a = await spawnServe(dirA);
      const [, key] = await waitForLine(a, /API key:\s+(\S+)/);
      const acked: Acked[] = [];
      let stop = false;
      let n = 0;
      // Four clients sending one order after another until told to stop: the service commits all the while.
      const clients = Array.from({ length: 4 }, async () => {
        while (!stop) {
          const ref = `S-${n++}`;
          const r = await post(a!, key!, ref);
          acked.push({ ref, ...r, at: Date.now() });
        }
      });
      await waitFor(() => acked.length >= 40 || undefined, 30_000, '40 orders acknowledged');
      const before = acked.length;
      const ackedBefore = acked.slice(0, before);
      const backup = await spawnCli(dirA, ['db', 'backup', '--to', file]);
      // Orders kept arriving while the backup ran: the copy was taken under writes.
      const during = acked.length - before;
      await waitFor(() => acked.length >= before + during + 10 || undefined, 30_000, 'orders after the backup');
      ok(backup);
      assert.ok(during > 0, 'orders were acknowledged while the backup command ran');
      assert.match(backup.stdout, /backed up SQLite .*intake\.sqlite to .*intake-backup\.sqlite/);
      assert.match(backup.stdout, /secret key file is copied to .*intake-backup\.sqlite\.secret\.key/);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(readFileSync(`${file}.secret.key`, 'utf8'), readFileSync(path.join(dirA, 'secret.key'), 'utf8'));

      // The running service's database is not replaced under it.
      failed(await spawnCli(dirA, ['db', 'restore', file]), /is in use, not restored: the service is running on it/);
      stop = true;
      await Promise.all(clients);
      await stopOrKill(a);

      ok(await runCli(dirB, ['db', 'restore', file]));
      assert.equal(readFileSync(path.join(dirB, 'secret.key'), 'utf8'), readFileSync(path.join(dirA, 'secret.key'), 'utf8'));
      const check = ok(await runCli(dirB, ['db', 'check']));
      assert.match(check.stdout, /integrity check ok/);
      assert.match(check.stdout, /none pending/);

      const restored = readSqlite<{ riferimento_ordine: string; numero_ordine: string }>(path.join(dirB, 'intake.sqlite'),
        'SELECT riferimento_ordine, numero_ordine FROM orders');
      const held = new Map(restored.map((r) => [r.riferimento_ordine, r.numero_ordine]));
      for (const o of ackedBefore) assert.equal(held.get(o.ref), o.numero, `order ${o.ref} acknowledged before the backup began is in it, same number`);
      assert.ok(held.size >= ackedBefore.length);

      b = await spawnServe(dirB);
      // The restored service answers for the restored orders with the same API key.
      const first = ackedBefore[0]!;
      const res = await fetch(`http://127.0.0.1:${b.httpPort}/api/v1/ordini/${first.id}`, { headers: { 'x-api-key': key! } });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as { numero_ordine: string }).numero_ordine, first.numero);
      const taken = new Set(held.values());
      const highest = [...taken].sort().at(-1)!;
      for (let i = 0; i < 5; i++) {
        const r = await post(b, key!, `AFTER-${i}`);
        assert.ok(!taken.has(r.numero), `new number ${r.numero} is not one the restored database holds`);
        assert.ok(r.numero > highest, `new number ${r.numero} follows the highest restored one ${highest}`);
        taken.add(r.numero);
      }
    } finally {
      if (a) await stopOrKill(a);
      if (b) await stopOrKill(b);
      for (const d of [dirA, dirB, backups]) rmSync(d, { recursive: true, force: true });
    }
  });

  it('restore keeps the database it replaces, and refuses a file that is not a backup', async () => {
    const dir = tempDir();
    try {
      ok(await runCli(dir, ['db', 'migrate']));
      const file = path.join(dir, 'copy.sqlite');
      const r = ok(await runCli(dir, ['db', 'backup', '--to', file]));
      assert.match(r.stdout, /backed up/);
      const restored = ok(await runCli(dir, ['db', 'restore', file]));
      assert.match(restored.stdout, /the database that was there is kept as .*intake\.sqlite\.before-restore-\d{8}T\d{6}Z/);
      assert.equal(readdirSync(dir).filter((f) => /^intake\.sqlite\.before-restore-\d{8}T\d{6}Z(-\d)?$/.test(f)).length, 1);

      // A database SQLite cannot read any more (why one restores, often) is replaced too, and kept aside.
      writeFileSync(path.join(dir, 'intake.sqlite'), 'x'.repeat(8192));
      rmSync(path.join(dir, 'intake.sqlite-wal'), { force: true });
      ok(await runCli(dir, ['db', 'restore', file]));
      assert.match(ok(await runCli(dir, ['db', 'check'])).stdout, /integrity check ok/);
      assert.equal(readdirSync(dir).filter((f) => /^intake\.sqlite\.before-restore-\d{8}T\d{6}Z(-\d)?$/.test(f)).length, 2);

      const junk = path.join(dir, 'junk.sqlite');
      writeFileSync(junk, 'not a database at all, but long enough to be read as one page or not'.repeat(100));
      failed(await runCli(dir, ['db', 'restore', junk]), /junk\.sqlite is not a SQLite database this service can use/);
      failed(await runCli(dir, ['db', 'restore', path.join(dir, 'missing.sqlite')]), /there is no backup at .*missing\.sqlite/);
      failed(await runCli(dir, ['db', 'backup', '--to', path.join(dir, 'no-such-dir', 'x.sqlite')]), /the folder .*no-such-dir does not exist/);
      failed(await runCli(path.join(dir, 'empty'), ['db', 'check']), /there is no database at/);
      failed(await runCli(dir, ['db', 'backup', '--to', file], { INTAKE_DATABASE_URL: 'postgres://127.0.0.1:1/none' }), /back it up with pg_dump/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a database held open by another process is not replaced', async () => {
    const dir = tempDir();
    try {
      ok(await runCli(dir, ['db', 'migrate']));
      const file = path.join(dir, 'copy.sqlite');
      ok(await runCli(dir, ['db', 'backup', '--to', file]));
      // A connection of this process (as a `sqlite3` shell or a CLI command would hold one): no instance row names it.
      const { default: Database } = await import('better-sqlite3');
      const held = new Database(path.join(dir, 'intake.sqlite'));
      held.pragma('journal_mode = WAL');
      held.prepare('SELECT count(*) FROM orders').get();
      try {
        failed(await runCli(dir, ['db', 'restore', file]), /another process has it open/);
      } finally {
        held.close();
      }
      ok(await runCli(dir, ['db', 'restore', file]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('serve takes scheduled backups into INTAKE_BACKUP_DIR and keeps the last INTAKE_BACKUP_KEEP', async () => {
    const dir = tempDir();
    const backups = tempDir();
    // Three older backups (an earlier run's): with KEEP=2, the new one and the newest of these stay.
    const old = [3, 2, 1].map((days) => backupFileName(new Date(Date.now() - days * 86_400_000)));
    for (const name of old) {
      writeFileSync(path.join(backups, name), 'older backup');
      writeFileSync(path.join(backups, `${name}.secret.key`), 'older key');
    }
    writeFileSync(path.join(backups, 'notes.txt'), 'not a backup: left alone');
    let p: ServeProcess | undefined;
    try {
      p = await spawnServe(dir, { INTAKE_BACKUP_DIR: backups, INTAKE_BACKUP_EVERY: '6h', INTAKE_BACKUP_KEEP: '2' });
      const [line] = await waitForLine(p, /^.*"msg":"backup written".*$/, 30_000);
      const written = (JSON.parse(line) as { file: string }).file;
      await waitFor(() => !existsSync(path.join(backups, old[1]!)) || undefined, 10_000, 'the older backups deleted');
      const left = readdirSync(backups).sort();
      assert.deepEqual(left, [old[2]!, `${old[2]!}.secret.key`, path.basename(written), `${path.basename(written)}.secret.key`, 'notes.txt'].sort());
      const check = ok(await runCli(path.join(dir, 'restored'), ['db', 'restore', written]));
      assert.match(check.stdout, /secret key file is restored/);
      assert.match(ok(await runCli(path.join(dir, 'restored'), ['db', 'check'])).stdout, /integrity check ok/);
    } finally {
      if (p) await stopOrKill(p);
      rmSync(dir, { recursive: true, force: true });
      rmSync(backups, { recursive: true, force: true });
    }
  });

  it('the backup settings are checked once, at start', () => {
    const c = loadConfig({ INTAKE_BACKUP_DIR: 'b', INTAKE_BACKUP_EVERY: '30m', INTAKE_BACKUP_KEEP: '3' }, '/srv');
    assert.deepEqual([c.backupDir, c.backupEveryMs, c.backupKeep], ['/srv/b', 30 * 60_000, 3]);
    const d = loadConfig({ INTAKE_BACKUP_DIR: '/b' });
    assert.deepEqual([d.backupEveryMs, d.backupKeep], [6 * 3_600_000, 7]);
    assert.equal(loadConfig({ INTAKE_BACKUP_DIR: '/b', INTAKE_BACKUP_EVERY: '2d' }).backupEveryMs, 2 * 86_400_000);
    assert.equal(loadConfig({}).backupDir, undefined);
    for (const every of ['6', '30s', '0m', '31d', 'h6', '1.5h']) {
      assert.throws(() => loadConfig({ INTAKE_BACKUP_DIR: '/b', INTAKE_BACKUP_EVERY: every }), /INTAKE_BACKUP_EVERY must be a number and a unit/, every);
    }
    assert.throws(() => loadConfig({ INTAKE_BACKUP_DIR: '/b', INTAKE_BACKUP_KEEP: '0' }), /INTAKE_BACKUP_KEEP must be a whole number of backups from 1 to 1000/);
    assert.throws(() => loadConfig({ INTAKE_BACKUP_EVERY: '6h' }), /need INTAKE_BACKUP_DIR/);
    assert.throws(() => loadConfig({ INTAKE_BACKUP_DIR: '/b', INTAKE_DATABASE_URL: 'postgres://x/y' }), /pg_dump/);
  });
});
