/**
 * SFTP with third-party clients whose habits the channel must follow: paramiko's pipelined put() (Python's most used
 * SFTP client, inside Ansible, Airflow and Fabric).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { order, run, startFiles, type FilesHarness } from './helpers.ts';
import type { TestCustomer } from '../../helpers/service.ts';

const PARAMIKO_PUT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'clients', 'paramiko_put.py');
/** Debian's python3 (python3-paramiko); a python3 found first on PATH may lack the module. */
const PYTHON = '/usr/bin/python3';

let h: FilesHarness;
let c1: TestCustomer;
let work: string;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
  work = path.join(h.t.dataDir, 'client');
  mkdirSync(work);
});
after(() => h.close());

test('paramiko put() of a 20 MB file completes and the file is stored byte for byte', async () => {
  // One order padded to 20 MB with whitespace (valid JSON): big enough that many writes fill the spool buffer.
  const body = Buffer.concat([Buffer.from(JSON.stringify(order('C001', 'PARAMIKO-20MB'))), Buffer.alloc(20 * 1024 * 1024, 0x20), Buffer.from('\n')]);
  const local = path.join(work, 'grande-paramiko.json');
  writeFileSync(local, body);
  // Before replies were sent in request order, put() waited forever once the file passed ~3 MB: the timeout fails it.
  process.env.SFTP_PASSWORD = c1.ftpPassword; // read by the script, kept off the process list
  const r = await run(PYTHON, [PARAMIKO_PUT, String(h.sftpPort), c1.ftpUser, '-', local, '/ordini/grande-paramiko.json'], undefined, 30_000);
  assert.equal(r.code, 0, `paramiko put() failed or hung: ${r.stderr}`);
  assert.equal(r.stdout.trim(), String(body.length), 'paramiko confirmed the size it stat()ed after the upload');
  const s = await h.processed('C001', 'grande-paramiko.json', 60_000);
  assert.equal(s.raw.length, body.length);
  assert.equal(createHash('sha256').update(s.raw).digest('hex'), createHash('sha256').update(body).digest('hex'));
  assert.equal(s.outcome?.esito, 'ok');
  assert.equal(s.outcome?.orders[0]?.riferimento_ordine, 'PARAMIKO-20MB');
});
