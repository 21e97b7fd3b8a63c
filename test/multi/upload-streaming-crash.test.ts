// Uploads copied into the store while they stream (docs/development/upload-streaming.md), across a SIGKILL of
// `order-intake serve` on SQLite: an upload whose CLOSE was acknowledged is in the database whole, byte for byte; an
// upload killed after some of its pieces were copied left no submission, only pieces listed as unadopted, which the
// orphan sweep deletes.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, it } from 'node:test';
import ssh2 from 'ssh2';
import type { SFTPWrapper } from 'ssh2';
import type { ProvisionedCustomer } from '../../src/customers/provision.ts';
import { UPLOAD_PIECE_BYTES } from '../../src/store/common/upload-pieces.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { SQLITE_FILE_NAME } from '../../src/store/open.ts';
import { loggedPort, spawnServe, stopServe, type ServeProcess } from '../helpers/child.ts';
import { tempDir, waitFor } from '../helpers/service.ts';
import { pipelinedPut, ssh2Sftp } from '../channels/files/helpers.ts';
import { readSqlite, seedStore } from './seed.ts';

/** An ssh2 SFTP session of customer `c`; errors after the service is killed are expected and ignored. */
async function connect(port: number, c: ProvisionedCustomer): Promise<{ sftp: SFTPWrapper; conn: ssh2.Client }> {
  const session = await ssh2Sftp(port, c.ftpUser, c.ftpPassword, 30_000);
  session.conn.on('error', () => undefined);
  return session;
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
      await pipelinedPut(a.sftp, acked, '/ordini/intero.bin');
      const b = await connect(port, c);
      await pipelinedPut(b.sftp, cut, '/ordini/tagliato.bin', false);
      // Some of the cut upload is in the database before the kill (it is copied as it arrives).
      await waitFor(() => (readSqlite(file, 'SELECT upload_id FROM upload_staging').length > 0 ? true : undefined), 20_000, 'a piece of the open upload');
      proc.proc.kill('SIGKILL');
      await stopServe(proc);
      proc = undefined;

      const store = await openSqliteStore(file);
      try {
        const subs = await store.listSubmissions({ customerId: c.customer.id });
        assert.deepEqual(subs.map((s) => s.fileName), ['intero.bin'], 'only the acknowledged upload is a submission');
        assert.ok((await store.getSubmission(subs[0]!.id))!.raw.equals(acked), 'acknowledged before the kill: whole, byte for byte');
        const [orphan] = readSqlite<{ upload_id: string }>(file, 'SELECT upload_id FROM upload_staging');
        assert.ok(orphan, 'the killed upload\'s pieces are listed as unadopted');
        assert.equal(await store.getSubmission(orphan.upload_id), undefined);
        assert.equal(await store.sweepStagedUploads(new Date(Date.now() + 3_600_000).toISOString()), 1);
        assert.deepEqual(readSqlite(file, 'SELECT upload_id FROM upload_pieces WHERE upload_id = ?', orphan.upload_id), [], 'swept');
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
