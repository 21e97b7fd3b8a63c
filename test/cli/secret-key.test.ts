// The sealing key by default: with SQLite and no INTAKE_SECRET_KEY, the first command or start that needs it
// generates <dataDir>/secret.key (0600) and later ones use it (a webhook added by the CLI is signed by the service);
// a set INTAKE_SECRET_KEY wins over the file; with PostgreSQL and no key, commands and the service refuse, naming
// the variable, before connecting.
import assert from 'node:assert/strict';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { resolveSecretKey, SECRET_KEY_FILE } from '../../src/auth/secret-key-file.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openSigningSecret } from '../../src/handoff/secret.ts';
import { createLogger } from '../../src/log.ts';
import { startService } from '../../src/main.ts';
import { tempDataDir } from '../auth/temp-store.ts';
import { TEST_SECRET_KEY } from '../handoff/stores.ts';
import { startReceiver } from '../handoff/receiver.ts';
import { order, startTestService, waitFor } from '../helpers/service.ts';
import { failed, ok, runCli } from './run.ts';

/** The key unset even if the runner's environment has one. */
const NO_KEY = { INTAKE_SECRET_KEY: '' };
/** A PostgreSQL server that is not there: a command that tried to connect would fail with ECONNREFUSED instead. */
const NOWHERE = 'postgres://postgres@127.0.0.1:9/none';
const PG_REFUSAL = /INTAKE_SECRET_KEY is not set: with PostgreSQL \(INTAKE_DATABASE_URL\) every instance must seal .* with the same key/;

function sealedSecret(dataDir: string, id: string): string {
  const db = new Database(path.join(dataDir, 'intake.sqlite'), { readonly: true });
  try {
    return (db.prepare('SELECT secret_enc FROM handoff_subscribers WHERE id = ?').get(id) as { secret_enc: string }).secret_enc;
  } finally {
    db.close();
  }
}

async function addWebhook(dataDir: string, env: Record<string, string>, url = 'https://example.com/h', extra: string[] = []) {
  return JSON.parse(ok(await runCli(dataDir, ['webhook', 'add', '--url', url, ...extra, '--json'], env)).stdout) as { id: string; secret: string };
}

void describe('the secret key by default', () => {
  let root: string;
  before(async () => {
    root = await tempDataDir('intake-secret-key-');
  });
  after(() => rm(root, { recursive: true, force: true }));

  void it('SQLite: webhook add generates <dataDir>/secret.key (0600) once; later commands and serve use it', async () => {
    const dataDir = path.join(root, 'fresh', 'data'); // not there yet, as on a fresh install
    const first = await addWebhook(dataDir, NO_KEY);
    assert.match(first.secret, /^whsec_/);
    const file = path.join(dataDir, SECRET_KEY_FILE);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    const key = (await readFile(file, 'utf8')).trim();
    assert.equal(Buffer.from(key, 'base64').length, 32);
    assert.equal(openSigningSecret(key, sealedSecret(dataDir, first.id), first.id), first.secret);

    const second = await addWebhook(dataDir, NO_KEY);
    assert.equal((await readFile(file, 'utf8')).trim(), key, 'never overwritten');
    assert.equal(openSigningSecret(key, sealedSecret(dataDir, second.id), second.id), second.secret);

    // The service, started without the key on the same data directory, opens what the CLI sealed and signs with it.
    const receiver = await startReceiver();
    try {
      const hooked = await addWebhook(dataDir, NO_KEY, receiver.url, ['--allow-private']);
      receiver.setSecret(hooked.secret);
      const t = await startTestService({ ...NO_KEY, INTAKE_HANDOFF_POLL_MS: '50' }, dataDir);
      try {
        const c = await t.customer('C001');
        const res = await fetch(`${t.url}/api/v1/ordini`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': c.apiKey }, body: JSON.stringify(order('C001', 'ODA-1')),
        });
        assert.equal(res.status, 201);
        await waitFor(() => (receiver.received.length >= 1 ? true : undefined), 15_000, 'the webhook delivery');
        assert.ok(receiver.received[0]!.verified, 'signed with the secret the CLI printed');
      } finally {
        await t.close();
      }
    } finally {
      await receiver.close();
    }
  });

  void it('a set INTAKE_SECRET_KEY wins over the file, which stays as it was, and the difference is logged', async () => {
    const dataDir = path.join(root, 'explicit');
    const lines: string[] = [];
    const log = createLogger('info', { format: 'json', destination: new Writable({ write(c: Buffer, _e, cb) { lines.push(c.toString()); cb(); } }) });
    const generated = await resolveSecretKey(loadConfig({ INTAKE_DATA_DIR: dataDir }), log);
    const file = path.join(dataDir, SECRET_KEY_FILE);
    assert.match(lines.join(''), /generated the secret key in .*secret\.key .*back it up with the database/);
    const before = await readFile(file, 'utf8');
    assert.equal(before.trim(), generated);
    const w = await addWebhook(dataDir, { INTAKE_SECRET_KEY: TEST_SECRET_KEY });
    assert.equal(openSigningSecret(TEST_SECRET_KEY, sealedSecret(dataDir, w.id), w.id), w.secret);
    assert.throws(() => openSigningSecret(before.trim(), sealedSecret(dataDir, w.id), w.id), /not the key it was sealed with/);
    assert.equal(await readFile(file, 'utf8'), before);

    lines.length = 0;
    assert.equal(await resolveSecretKey(loadConfig({ INTAKE_DATA_DIR: dataDir, INTAKE_SECRET_KEY: TEST_SECRET_KEY }), log), TEST_SECRET_KEY);
    assert.match(lines.join(''), /INTAKE_SECRET_KEY is set and differs from the key in .*secret\.key: that file is not used/);
  });

  void it('a key file that is not a key is refused, naming the file', async () => {
    const dataDir = path.join(root, 'bad');
    await addWebhook(dataDir, NO_KEY);
    await writeFile(path.join(dataDir, SECRET_KEY_FILE), 'not a key\n');
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'https://example.com/h'], NO_KEY), /secret\.key must be 32 bytes/);
  });

  void it('PostgreSQL without INTAKE_SECRET_KEY: the command and the service refuse before connecting, and generate nothing', async () => {
    const dataDir = path.join(root, 'pg');
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'https://example.com/h'], { ...NO_KEY, INTAKE_DATABASE_URL: NOWHERE }), PG_REFUSAL);
    failed(await runCli(dataDir, ['customer', 'imap', 'set', '--code', 'C001', '--host', 'imap.example.it', '--user', 'u', '--password-env', 'IMAP_PW', '--no-check'],
      { ...NO_KEY, INTAKE_DATABASE_URL: NOWHERE, IMAP_PW: 'segreto' }), PG_REFUSAL);
    const config = loadConfig({ INTAKE_DATA_DIR: dataDir, INTAKE_DATABASE_URL: NOWHERE, INTAKE_HTTP_PORT: '0', INTAKE_LOG_LEVEL: 'silent' });
    await assert.rejects(startService(config, createLogger('silent')), (e: unknown) => e instanceof ConfigError && PG_REFUSAL.test(e.message));
    await assert.rejects(stat(path.join(dataDir, SECRET_KEY_FILE)), { code: 'ENOENT' });
  });
});
