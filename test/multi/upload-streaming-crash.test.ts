// Uploads copied into the store while they stream (docs/development/upload-streaming.md), across a SIGKILL of
// `order-intake serve` on SQLite: an upload whose CLOSE was acknowledged is in the database whole, byte for byte; an
// upload killed after some of its pieces were copied left no submission, only pieces listed as unadopted, which the
// orphan sweep deletes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import ssh2 from 'ssh2';
import type { SFTPWrapper } from 'ssh2';
import type { ProvisionedCustomer } from '../../src/customers/provision.ts';
import { UPLOAD_PIECE_BYTES } from '../../src/store/common/upload-pieces.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { SQLITE_FILE_NAME } from '../../src/store/open.ts';
import { loggedPort, spawnServe, stopServe, type ServeProcess } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/service.ts';
import { seedStore } from './seed.ts';

const p = <T = void>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v as T))));

async function connect(port: number, c: ProvisionedCustomer): Promise<{ sftp: SFTPWrapper; conn: ssh2.Client }> {
  const conn = new ssh2.Client();
  conn.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    conn.once('ready', () => resolve());
    conn.once('error', reject);
    conn.connect({ host: '127.0.0.1', port, username: c.ftpUser, password: c.ftpPassword, readyTimeout: 30_000, tryKeyboard: false });
  });
  return { sftp: await p<SFTPWrapper>((cb) => conn.sftp(cb)), conn };
}

/** WRITEs of 32 KiB, 64 in flight, in the file's order (as OpenSSH's sftp); `close` false leaves the handle open. */
async function put(sftp: SFTPWrapper, name: string, data: Buffer, close: boolean): Promise<void> {
  const handle = await p<Buffer>((cb) => sftp.open(`/ordini/${name}`, 'w', cb));
  const inflight = new Set<Promise<void>>();
  for (let at = 0; at < data.length; at += 32 * 1024) {
    const w: Promise<void> = p((cb) => sftp.write(handle, data, at, Math.min(32 * 1024, data.length - at), at, cb)).finally(() => inflight.delete(w));
    inflight.add(w);
    if (inflight.size >= 64) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  if (close) await p((cb) => sftp.close(handle, cb));
}

function read<T>(file: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

void describe('streamed uploads across a crash (SQLite)', () => {
  void it('keeps an acknowledged upload whole and leaves of a killed one only pieces the sweep deletes', { timeout: 180_000 }, async () => {
    const dir = tempDir('intake-streamed-crash-');
    const file = path.join(dir, SQLITE_FILE_NAME);
    let proc: ServeProcess | undefined;
    try {
      const seeded = await openSqliteStore(file);
      const c = (await seedStore(seeded))[0]!;
      await seeded.close();
      proc = await spawnServe(dir, { INTAKE_SFTP_PORT: '0' }, 60_000);
      const port = await loggedPort(proc, 'sftp');
      const acked = randomBytes(9 * UPLOAD_PIECE_BYTES + 777);
      const cut = randomBytes(9 * UPLOAD_PIECE_BYTES);
      const a = await connect(port, c);
      await put(a.sftp, 'intero.bin', acked, true);
      const b = await connect(port, c);
      await put(b.sftp, 'tagliato.bin', cut, false);
      // Some of the cut upload is in the database before the kill (it is copied as it arrives).
      await waitFor(() => (read(file, 'SELECT upload_id FROM upload_staging').length > 0 ? true : undefined), 20_000, 'a piece of the open upload');
      proc.proc.kill('SIGKILL');
      await stopServe(proc);
      proc = undefined;

      const store = await openSqliteStore(file);
      try {
        const subs = await store.listSubmissions({ customerId: c.customer.id });
        assert.deepEqual(subs.map((s) => s.fileName), ['intero.bin'], 'only the acknowledged upload is a submission');
        assert.ok((await store.getSubmission(subs[0]!.id))!.raw.equals(acked), 'acknowledged before the kill: whole, byte for byte');
        const [orphan] = read<{ upload_id: string }>(file, 'SELECT upload_id FROM upload_staging');
        assert.ok(orphan, 'the killed upload\'s pieces are listed as unadopted');
        assert.equal(await store.getSubmission(orphan.upload_id), undefined);
        assert.equal(await store.sweepStagedUploads(new Date(Date.now() + 3_600_000).toISOString()), 1);
        assert.deepEqual(read(file, 'SELECT upload_id FROM upload_pieces WHERE upload_id = ?', orphan.upload_id), [], 'swept');
        assert.ok((await store.getSubmission(subs[0]!.id))!.raw.equals(acked), 'the sweep leaves adopted pieces alone');
      } finally {
        await store.close();
      }
      a.conn.end();
      b.conn.end();
    } finally {
      if (proc) await stopServe(proc, 'SIGKILL');
    }
  });
});
