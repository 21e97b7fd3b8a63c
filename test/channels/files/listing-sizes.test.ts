/**
 * Listings show the real size and time of every stored file and outcome file, before anyone downloaded them and
 * after a restart (sizes come from the store, not from what this process happened to load): OpenSSH sftp `ls -l`
 * and lftp `cls -l`, as sync tools that compare sizes see them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, tempDir, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { curl, order, run, sftpBatch } from './helpers.ts';
import type { StoredSubmission } from '../../../src/domain/types.ts';
import { waitFor } from '../../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../../store/pg-schema.ts';

const ENV = { INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_FTP_PASV_RANGE: '31000-31099' };
const dataDir = tempDir();
let t: TestService;
let c1: TestCustomer;
const good = Buffer.from(JSON.stringify(order('C001', 'SIZE-OK'), null, 2));
const bad = Buffer.from(JSON.stringify(order('C001', 'SIZE-KO', [{ codice_articolo: 'NON-ESISTE', quantita: 1, unita_misura: 'PZ' }])));

async function processed(name: string): Promise<StoredSubmission> {
  const customer = (await t.service.store.getCustomerByCode('C001'))!;
  return waitFor(async () => {
    const s = (await t.service.store.listSubmissions({ customerId: customer.id })).find((x) => x.fileName === name && x.state === 'processed');
    return s && t.service.store.getSubmission(s.id);
  }, 10_000, `processed ${name}`);
}

before(async () => {
  t = await startTestService(ENV, dataDir);
  c1 = await t.customer('C001');
  for (const [name, body] of [['buono.json', good], ['errato.json', bad]] as const) {
    const up = await curl(['-T', '-', `sftp://127.0.0.1:${t.service.ports.sftp}/ordini/${name}`], c1.ftpUser, c1.ftpPassword, body);
    assert.equal(up.code, 0, up.stderr);
  }
  await processed('buono.json');
  await processed('errato.json');
  // A new process on the same database: nothing of the first one's memory is left.
  await t.service.stop();
  t = await startTestService(ENV, dataDir);
});
after(() => t.close());

/** name → size from `ls -l` style lines (OpenSSH sftp prints the server's long names; lftp cls -l its own). */
function sizes(listing: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of listing.split('\n')) {
    const m = /^[-d][rwx-]{9}\s+(?:\d+\s+)?\S+\s+\S+\s+(\d+)\s+.*?(\S+)\s*$/.exec(line) ?? /^[-d][rwx-]{9}\s+\S+\s+(\d+)\s+.*?(\S+)\s*$/.exec(line);
    if (m) out.set(m[2]!.replace(/^.*\//, ''), Number(m[1]));
  }
  return out;
}

async function download(path: string): Promise<Buffer> {
  const r = await run('curl', ['-sS', '--insecure', '--user', `${c1.ftpUser}:${c1.ftpPassword}`, `sftp://127.0.0.1:${t.service.ports.sftp}${path}`]);
  assert.equal(r.code, 0, r.stderr);
  return Buffer.from(r.stdout, 'utf8');
}

test('OpenSSH sftp ls -l shows real sizes and times after a restart, before any download', async () => {
  const r = await sftpBatch(t.service.ports.sftp!, c1.ftpUser, c1.ftpPassword, ['ls -l /ordini/elaborati', 'ls -l /ordini/scartati', 'ls -l /ordini/esiti']);
  assert.equal(r.code, 0, r.stderr);
  const listed = sizes(r.stdout);
  assert.equal(listed.get('buono.json'), good.length, r.stdout);
  assert.equal(listed.get('errato.json'), bad.length, r.stdout);
  const okOutcome = (await processed('buono.json'));
  // The outcome files' listed sizes are those of the bytes then downloaded.
  for (const name of ['buono.json.esito.json', 'buono.json.esito.txt', 'errato.json.esito.json', 'errato.json.esito.txt']) {
    const bytes = await download(`/ordini/esiti/${name}`);
    assert.ok(bytes.length > 50, name);
    assert.equal(listed.get(name), bytes.length, `${name} in\n${r.stdout}`);
  }
  // Times: a stored file shows when it was received, its outcome when it was processed (the long name is in UTC).
  const hhmm = (iso: string) => iso.slice(11, 16);
  assert.match(r.stdout, new RegExp(`${hhmm(okOutcome.receivedAt)} buono\\.json\\n`));
  assert.match(r.stdout, new RegExp(`${hhmm(okOutcome.processedAt!)} buono\\.json\\.esito\\.json\\n`));
});

test('lftp cls -l over FTP shows the same sizes', async () => {
  const script = `set ftp:ssl-allow no; set net:max-retries 1; cls -l /ordini/elaborati/ /ordini/esiti/; bye`;
  const r = await run('lftp', ['-u', `${c1.ftpUser},${c1.ftpPassword}`, '-p', String(t.service.ports.ftp), '-e', script, '127.0.0.1'], undefined, 20_000);
  assert.equal(r.code, 0, r.stderr);
  const listed = sizes(r.stdout);
  assert.equal(listed.get('buono.json'), good.length, r.stdout);
  const txt = await download('/ordini/esiti/errato.json.esito.txt');
  assert.equal(listed.get('errato.json.esito.txt'), txt.length, r.stdout);
});

test('on PostgreSQL, another instance lists the same sizes without ever having seen the files', { skip: PG_SKIP }, async () => {
  const schema = await createSchema(testDatabaseUrl!);
  const env = { INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: 'off', INTAKE_DATABASE_URL: schema.url };
  const a = await startTestService(env);
  let b: TestService | undefined;
  try {
    const c = await a.customer('C001');
    const up = await curl(['-T', '-', `sftp://127.0.0.1:${a.service.ports.sftp}/ordini/altra.json`], c.ftpUser, c.ftpPassword, good);
    assert.equal(up.code, 0, up.stderr);
    const customer = (await a.service.store.getCustomerByCode('C001'))!;
    await waitFor(async () => (await a.service.store.listSubmissions({ customerId: customer.id })).find((s) => s.state === 'processed'), 10_000, 'processed');
    b = await startTestService(env);
    const r = await sftpBatch(b.service.ports.sftp!, c.ftpUser, c.ftpPassword, ['ls -l /ordini/elaborati', 'ls -l /ordini/esiti']);
    assert.equal(r.code, 0, r.stderr);
    const listed = sizes(r.stdout);
    assert.equal(listed.get('altra.json'), good.length, r.stdout);
    const got = await run('curl', ['-sS', '-k', '--user', `${c.ftpUser}:${c.ftpPassword}`, `sftp://127.0.0.1:${a.service.ports.sftp}/ordini/esiti/altra.json.esito.json`]);
    assert.equal(listed.get('altra.json.esito.json'), Buffer.byteLength(got.stdout), r.stdout);
  } finally {
    await b?.close();
    await a.close();
    await schema.drop();
  }
});
