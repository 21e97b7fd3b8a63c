/**
 * A file name may be as long as MAX_NAME_BYTES. The names the service derives from it are longer: its outcome files
 * (`<name>.esito.txt`, `<name>.esito.json`) and, once the same name is uploaded again, the older upload's stamped
 * name (`<base>.<time>.<ext>`). Every name a listing shows must be one the client can then ask for.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NAME_BYTES } from '../../../src/channels/files/paths.ts';
import { order, type TestCustomer } from '../../helpers/service.ts';
import { curl, ftpClient, ftpDownload, p, pipelinedPut, ssh2Sftp, startFiles, type FilesHarness } from './helpers.ts';

let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
});
after(() => h.close());

// 'è' is two bytes in UTF-8: a name of exactly the longest length allowed.
const base = 'ordine-lungo-è'.padEnd(MAX_NAME_BYTES - '.json'.length - 1, 'x');
const name = `${base}.json`;

test('the outcome files and the stamped older upload of a name of the longest length can be listed and downloaded', async () => {
  assert.equal(Buffer.byteLength(name), MAX_NAME_BYTES);
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await pipelinedPut(sftp, Buffer.from(JSON.stringify(order('C001', 'LONG-1'))), `/ordini/${name}`);
    const first = await h.processed('C001', name);
    await pipelinedPut(sftp, Buffer.from(JSON.stringify(order('C001', 'LONG-2'))), `/ordini/${name}`);
    await h.t.service.intake.idle();

    const esiti = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini/esiti', cb))).map((e) => e.filename);
    assert.ok(esiti.includes(`${name}.esito.txt`), esiti.join('\n'));
    const text = (await p<Buffer>((cb) => sftp.readFile(`/ordini/esiti/${name}.esito.txt`, cb))).toString('utf8');
    assert.match(text, /Ordine 1 \(riferimento LONG-2\): registrato con numero/);

    const elaborati = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini/elaborati', cb))).map((e) => e.filename);
    const older = elaborati.find((n) => n !== name && n.startsWith(base) && /\.\d{8}-\d{6}(-\d+)?\.json$/.test(n));
    assert.ok(older, `the older upload is listed under a stamped name: ${elaborati.join('\n')}`);
    assert.deepEqual(await p<Buffer>((cb) => sftp.readFile(`/ordini/elaborati/${older}`, cb)), first.raw);
    const olderText = (await p<Buffer>((cb) => sftp.readFile(`/ordini/esiti/${older}.esito.txt`, cb))).toString('utf8');
    assert.match(olderText, /riferimento LONG-1/);

    // FTP reads the same names.
    const client = await ftpClient(h.ftpPort, c1.ftpUser, c1.ftpPassword);
    try {
      assert.match((await ftpDownload(client, `/ordini/esiti/${older}.esito.txt`)).toString('utf8'), /riferimento LONG-1/);
    } finally {
      client.close();
    }
  } finally {
    conn.end();
  }
});

test('a name one byte longer than the longest is still refused when a file is created', async () => {
  const tooLong = `x${name}`;
  const { sftp, conn } = await ssh2Sftp(h.sftpPort, c1.ftpUser, c1.ftpPassword);
  try {
    await assert.rejects(p((cb) => sftp.writeFile(`/ordini/${tooLong}`, '{}', cb)), (e: Error) => /nome troppo lungo/.test(e.message));
  } finally {
    conn.end();
  }
  const up = await curl(['-T', '-', `ftp://127.0.0.1:${h.ftpPort}/ordini/${encodeURIComponent(tooLong)}`], c1.ftpUser, c1.ftpPassword, Buffer.from('{}'));
  assert.notEqual(up.code, 0, 'FTP refuses it too');
});
