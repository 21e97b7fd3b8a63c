// Uploads under the shared memory budget (issue 19, item 11): with a budget smaller than any file, every upload is
// stored and judged alone, one after the other; parallel uploads from real clients wait their turn and are all
// acknowledged and registered, none refused or lost.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Readable } from 'node:stream';
import { after, before, it } from 'node:test';
import type { TestCustomer } from '../../helpers/service.ts';
import { ftpClient, order, sftpBatch, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  h = await startFiles({ INTAKE_UPLOAD_MEMORY_BYTES: '1' });
  c1 = await h.t.customer('C001');
});
after(() => h?.close());

void it('parallel uploads wait for room in the budget and are all registered (basic-ftp and OpenSSH sftp)', async () => {
  const ftp = Array.from({ length: 4 }, async (_, i) => {
    const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
    try {
      const body = Buffer.from(JSON.stringify(order('C001', `R-BUDGET-F${i}`)));
      const r = await client.uploadFrom(Readable.from([body]), `/ordini/budget-f${i}.json`);
      assert.equal(r.code, 226);
    } finally {
      client.close();
    }
  });
  const dir = mkdtempSync(`${tmpdir()}/budget-`);
  const sftp = Array.from({ length: 2 }, async (_, i) => {
    const local = `${dir}/budget-s${i}.json`;
    writeFileSync(local, JSON.stringify(order('C001', `R-BUDGET-S${i}`)));
    const r = await sftpBatch(h.sftpPort, c1.ftpUser, c1.ftpPassword, [`put ${local} /ordini/budget-s${i}.json`]);
    assert.equal(r.code, 0, r.stderr);
  });
  await Promise.all([...ftp, ...sftp]);
  for (const name of ['f0', 'f1', 'f2', 'f3', 's0', 's1']) {
    const s = await h.processed('C001', `budget-${name}.json`, 20_000);
    assert.equal(s.outcome?.esito, 'ok', `budget-${name}.json`);
  }
});
