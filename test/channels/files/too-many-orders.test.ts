/**
 * A file over MAX_ORDERS_PER_FILE, uploaded with curl over SFTP: refused whole with its own code and an Italian
 * message in both outcome files; the limit is the one docs/customers/limiti.md states.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { MAX_ORDERS_PER_FILE } from '../../../src/intake/judge.ts';
import { curl, run, startFiles, type FilesHarness } from './helpers.ts';
import type { TestCustomer } from '../../helpers/service.ts';

let h: FilesHarness;
let c1: TestCustomer;

before(async () => {
  h = await startFiles();
  c1 = await h.t.customer('C001');
});
after(() => h.close());

async function download(path: string): Promise<string> {
  const r = await run('curl', ['-sS', '--insecure', '--user', `${c1.ftpUser}:${c1.ftpPassword}`, `sftp://127.0.0.1:${h.sftpPort}${path}`]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

test('a CSV file with one order too many gets FILE_TOO_MANY_ORDERS and an Italian outcome', async () => {
  const lines = ['codice_cliente;riferimento_ordine;data_ordine;codice_articolo;quantita;unita_misura'];
  for (let i = 0; i <= MAX_ORDERS_PER_FILE; i++) lines.push(`C001;T-${i};2026-11-20;BV-STD;1;PZ`);
  const up = await curl(['-T', '-', `sftp://127.0.0.1:${h.sftpPort}/ordini/troppi.csv`], c1.ftpUser, c1.ftpPassword, Buffer.from(lines.join('\n')));
  assert.equal(up.code, 0, up.stderr);
  const s = await h.processed('C001', 'troppi.csv', 120_000);
  assert.equal(s.outcome?.fileError?.code, 'FILE_TOO_MANY_ORDERS');
  assert.equal(s.outcome?.orders.length, 0, 'no order of the file is registered');

  const json = JSON.parse(await download('/ordini/esiti/troppi.csv.esito.json')) as { esito: string; errore_file: { codice: string; message: string[] } };
  assert.equal(json.esito, 'errore');
  assert.equal(json.errore_file.codice, 'FILE_TOO_MANY_ORDERS');
  const text = await download('/ordini/esiti/troppi.csv.esito.txt');
  assert.match(text, /il file contiene più di 100\.000 ordini, il massimo per un singolo file/);
  assert.match(text, /dividere gli ordini in più file/);
  assert.doesNotMatch(text, /must not|orders/, 'no English inside the Italian outcome');
});

test('docs/customers/limiti.md states the same limit', () => {
  const doc = readFileSync(new URL('../../../docs/customers/limiti.md', import.meta.url), 'utf8');
  assert.ok(doc.includes(MAX_ORDERS_PER_FILE.toLocaleString('it-IT')), 'the page gives the number of orders per file');
  assert.ok(doc.includes('FILE_TOO_MANY_ORDERS'), 'the page names the error code');
});
