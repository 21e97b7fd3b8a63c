/**
 * The SFTP channel split over two threads (src/channels/files/sftp.ts and sftp-thread.ts): the SSH server runs in a
 * worker thread, login and the tree are answered by the main thread. The real server on port 0 with the real store
 * and intake of a test service, and real clients (ssh2, a bare socket); what is checked is what the split could
 * break: the bound port reported, a refusal decided on the main thread reaching the client as SSH's own, a failure of
 * the main thread at CLOSE reaching the client as an SFTP failure with nothing acknowledged, a stop with an upload in
 * flight, and a crash of the thread.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createAuthenticator } from '../../../src/auth/authenticator.ts';
import { createSessionLimiter } from '../../../src/channels/files/limits.ts';
import { loadOrCreateHostKey } from '../../../src/channels/files/host-key.ts';
import { startSftpServer, type SftpDeps, type SftpServer } from '../../../src/channels/files/sftp.ts';
import { Spool } from '../../../src/channels/files/spool.ts';
import { SizeCache } from '../../../src/channels/files/tree-model.ts';
import { createLogger } from '../../../src/log.ts';
import { startTestService, waitFor, type TestCustomer, type TestService } from '../../helpers/service.ts';
import { order, p, ssh2Sftp } from './helpers.ts';

let t: TestService;
let c1: TestCustomer;
const lines: Record<string, unknown>[] = [];
const logged = (msg: string) => lines.filter((l) => l.msg === msg);

/** The SFTP server alone, with the test service's store and intake, on its own logger (captured) and session limit. */
async function startSftp(over: { sessionsPerCustomer?: number } = {}): Promise<{ s: SftpServer; deps: SftpDeps }> {
  const capture = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  const log = createLogger('debug', { format: 'json', destination: capture });
  const spool = new Spool(t.dataDir, log);
  await spool.init();
  const deps: SftpDeps = {
    store: t.service.store, intake: t.service.intake, log, auth: createAuthenticator(t.service.store),
    timeZone: t.config.timeZone, maxFileBytes: t.config.maxFileBytes, spool, sizes: new SizeCache(),
    sessions: createSessionLimiter(over.sessionsPerCustomer), failedLoginDelayMs: 0,
    hostKey: await loadOrCreateHostKey(t.dataDir, log),
  };
  return { s: await startSftpServer(deps, { host: '127.0.0.1', port: 0 }), deps };
}

const uploadsDir = () => readdirSync(path.join(t.dataDir, 'spool', 'uploads'));

async function submissionsOf(code: string) {
  const customer = (await t.service.store.getCustomerByCode(code))!;
  return t.service.store.listSubmissions({ customerId: customer.id, limit: 100 });
}

before(async () => {
  t = await startTestService();
  c1 = await t.customer('C001');
});
after(() => t.close());

test('the port the thread bound with port 0 is the one reported and logged, and it speaks SSH', async () => {
  const { s } = await startSftp();
  try {
    assert.ok(s.port > 0);
    const line = logged(`SFTP listening on port ${s.port}, host key ${(lines.find((l) => typeof l.fingerprint === 'string'))?.fingerprint}`);
    assert.equal(line.length, 1, 'the listening line names the bound port');
    assert.equal(line[0]!.channel, 'sftp');
    assert.equal(line[0]!.port, s.port);
    const banner = await new Promise<string>((resolve, reject) => {
      const sock = connect(s.port, '127.0.0.1');
      sock.once('data', (d: Buffer) => {
        resolve(d.toString('latin1'));
        sock.destroy();
      });
      sock.once('error', reject);
    });
    assert.match(banner, /^SSH-2\.0-order-intake/);
  } finally {
    await s.close();
  }
});

test('a login the main thread refuses reaches the client as an SSH authentication failure; the right one is served', async () => {
  const { s } = await startSftp();
  try {
    const err = await ssh2Sftp(s.port, c1.ftpUser, 'sbagliata').then(() => undefined, (e: unknown) => e);
    assert.equal((err as { level?: string } | undefined)?.level, 'client-authentication', String(err));
    const refused = logged('login refused').at(-1);
    assert.equal(refused?.reason, 'credentials');
    assert.equal(refused?.channel, 'sftp');
    const { sftp, conn } = await ssh2Sftp(s.port, c1.ftpUser, c1.ftpPassword);
    try {
      const names = (await p<{ filename: string }[]>((cb) => sftp.readdir('/ordini', cb))).map((e) => e.filename);
      assert.ok(names.includes('esiti'), names.join());
    } finally {
      conn.end();
    }
  } finally {
    await s.close();
  }
});

test('a store failure at CLOSE answers the client with an SFTP failure, and nothing is acknowledged or kept', async () => {
  const { s } = await startSftp();
  const before = (await submissionsOf('C001')).length;
  const { sftp, conn } = await ssh2Sftp(s.port, c1.ftpUser, c1.ftpPassword);
  // The store refuses to save (a full disk, a lost database): the intake's own save, on the main thread, fails.
  const store = t.service.store;
  const save = store.saveSubmission.bind(store);
  store.saveSubmission = () => Promise.reject(new Error('disk full (test)'));
  try {
    const err = await p((cb) => sftp.writeFile('/ordini/rifiutato.json', JSON.stringify(order('C001', 'THREAD-FAIL')), cb)).then(() => undefined, (e: unknown) => e);
    assert.equal((err as { code?: number } | undefined)?.code, 4, `SSH_FX_FAILURE expected, got ${String(err)}`);
    assert.equal((err as Error).message, 'il file non è stato registrato per un errore interno: caricarlo di nuovo');
    assert.equal(logged('could not store an uploaded file').length, 1);
    assert.equal((await submissionsOf('C001')).length, before);
    await waitFor(() => (uploadsDir().length === 0 ? true : undefined), 5_000, 'the spool file of the refused upload to be deleted');
  } finally {
    store.saveSubmission = save;
    conn.end();
    await s.close();
  }
});

test('a stop with an upload in flight discards it, releases the session, and ends promptly', async () => {
  const { s, deps } = await startSftp({ sessionsPerCustomer: 1 });
  const before = (await submissionsOf('C001')).length;
  const { sftp, conn } = await ssh2Sftp(s.port, c1.ftpUser, c1.ftpPassword);
  conn.on('error', () => undefined);
  const closedByServer = new Promise<void>((resolve) => conn.once('close', () => resolve()));
  const handle = await p<Buffer>((cb) => sftp.open('/ordini/in-volo.csv', 'w', cb));
  await p((cb) => sftp.write(handle, Buffer.alloc(64 * 1024, 65), 0, 64 * 1024, 0, cb));
  assert.equal(uploadsDir().length, 1, 'the upload is being spooled');
  await s.close();
  await closedByServer;
  // Ended by the thread itself, which knew how much it had received (the main thread's fallback would say 0).
  assert.deepEqual(logged('upload interrupted: discarded, not processed').map((l) => l.bytes), [64 * 1024]);
  assert.deepEqual(uploadsDir(), []);
  assert.equal((await submissionsOf('C001')).length, before);
  const customer = (await t.service.store.getCustomerByCode('C001'))!;
  assert.ok(deps.sessions.acquire(customer.id), 'the session slot was given back');
});

test('a crash of the thread: what was acknowledged is stored, the sessions are released, and it serves again on the same port', async () => {
  const { s } = await startSftp({ sessionsPerCustomer: 1 });
  try {
    const first = await ssh2Sftp(s.port, c1.ftpUser, c1.ftpPassword);
    first.conn.on('error', () => undefined);
    await p((cb) => first.sftp.writeFile('/ordini/prima.json', JSON.stringify(order('C001', 'THREAD-CRASH')), cb));
    const cut = new Promise<void>((resolve) => first.conn.once('close', () => resolve()));
    await s.killThread();
    await cut;
    assert.ok((await submissionsOf('C001')).some((x) => x.fileName === 'prima.json'), 'the acknowledged upload is stored');
    await waitFor(() => (logged('the SFTP thread was started again').length === 1 ? true : undefined), 20_000, 'the thread to start again');
    assert.equal(logged('the SFTP thread stopped: its connections are closed, their unfinished uploads discarded').length, 1);
    // One session allowed per customer: this login works only if the crash gave the first one's slot back.
    const second = await ssh2Sftp(s.port, c1.ftpUser, c1.ftpPassword);
    try {
      await p((cb) => second.sftp.writeFile('/ordini/dopo.json', JSON.stringify(order('C001', 'THREAD-AFTER')), cb));
      assert.ok((await submissionsOf('C001')).some((x) => x.fileName === 'dopo.json'));
    } finally {
      second.conn.end();
    }
  } finally {
    await s.close();
  }
});
