/**
 * Temporary uploads (.part, .filepart …) left untouched for LIMITS.tempMaxAgeMs are deleted (docs/customers/
 * ftp-sftp.md), by a service that has been running all along too, not only by the next start: otherwise abandoned
 * ones pile up and, once a customer has LIMITS.tempFilesPerCustomer of them, every upload under a temporary name
 * (WinSCP's default) is refused until someone restarts the service.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { utimes } from 'node:fs/promises';
import { LIMITS } from '../../../src/channels/files/limits.ts';
import { Spool } from '../../../src/channels/files/spool.ts';
import { createLogger } from '../../../src/log.ts';
import type { TestCustomer } from '../../helpers/service.ts';
import { p, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
});
after(() => h.close());

test('abandoned temporary uploads stop counting and are no longer listed once past their age, without a restart', async () => {
  const customer = (await h.t.service.store.getCustomerByCode('C001'))!;
  const spool = new Spool(h.t.dataDir, createLogger('silent'));
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    const names = Array.from({ length: LIMITS.tempFilesPerCustomer }, (_, i) => `abbandonato-${i}.csv.filepart`);
    for (const name of names) await p((cb) => sftp.writeFile(`/ordini/${name}`, 'codice_cliente;', cb));
    await assert.rejects(p((cb) => sftp.writeFile('/ordini/nuovo.csv.filepart', 'x', cb)), /troppi file temporanei/, 'the limit holds');

    // Untouched for a day more than the age limit.
    const old = new Date(Date.now() - LIMITS.tempMaxAgeMs - 24 * 3600_000);
    for (const name of names) await utimes(spool.tempDataFile(customer.id, name), old, old);

    await p((cb) => sftp.writeFile('/ordini/nuovo.csv.filepart', 'codice_cliente;', cb));
    const listed = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini', cb))).map((e) => e.filename);
    assert.ok(listed.includes('nuovo.csv.filepart'), listed.join());
    assert.deepEqual(listed.filter((n) => n.startsWith('abbandonato-')), [], 'the abandoned ones are gone');
  } finally {
    conn.end();
  }
});
