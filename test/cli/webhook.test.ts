// The operator's webhook and export commands, through the real `order-intake` CLI: the secret printed once and
// stored only sealed, refused URLs (SSRF), listing, deliveries, replay, disable/enable, remove, export folders.
import assert from 'node:assert/strict';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { openSigningSecret, signature } from '../../src/handoff/secret.ts';
import { tempDataDir } from '../auth/temp-store.ts';
import { TEST_SECRET_KEY } from '../handoff/stores.ts';
import { failed, ok, runCli } from './run.ts';

const env = { INTAKE_SECRET_KEY: TEST_SECRET_KEY };

void describe('order-intake webhook and export', () => {
  let dataDir: string;

  before(async () => {
    dataDir = await tempDataDir('intake-cli-webhook-');
  });
  after(() => rm(dataDir, { recursive: true, force: true }));

  void it('webhook add --json prints id, url and a whsec_ secret once; the store keeps it sealed', async () => {
    const out = JSON.parse(ok(await runCli(dataDir, ['webhook', 'add', '--url', 'https://erp.example.com/hook', '--events', 'ordine.registrato', '--json'], env)).stdout) as
      { id: string; url: string; secret: string; events: string[] };
    assert.equal(out.url, 'https://erp.example.com/hook');
    assert.match(out.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.deepEqual(out.events, ['ordine.registrato']);
    const db = new Database(path.join(dataDir, 'intake.sqlite'), { readonly: true });
    const row = db.prepare('SELECT secret_enc FROM handoff_subscribers WHERE id = ?').get(out.id) as { secret_enc: string };
    db.close();
    assert.ok(!row.secret_enc.includes(out.secret.slice(6)), 'not stored in clear');
    assert.equal(openSigningSecret(TEST_SECRET_KEY, row.secret_enc, out.id), out.secret);
    // Our signature is the one an independent implementation computes from the printed secret.
    const when = new Date(1_700_000_000_000);
    assert.equal(signature(out.secret, 'msg_1', 1_700_000_000, '{"a":1}'), new Webhook(out.secret).sign('msg_1', when, '{"a":1}'));
    const list = JSON.parse(ok(await runCli(dataDir, ['webhook', 'list', '--json'])).stdout) as Record<string, unknown>[];
    assert.equal(list.length, 1);
    assert.equal(JSON.stringify(list).includes('whsec_'), false, 'never shown again');
    const shown = JSON.parse(ok(await runCli(dataDir, ['webhook', 'show', out.id, '--json'])).stdout) as { deliveries: Record<string, number> };
    assert.deepEqual(shown.deliveries, { pending: 0, done: 0, failed: 0 });
  });

  void it('refuses metadata, private and plain-http URLs and unknown events', async () => {
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'https://169.254.169.254/latest/meta-data/'], env), /169\.254\.169\.254 is linkLocal/);
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'https://10.1.2.3/hook'], env), /10\.1\.2\.3 is private.*--allow-private/);
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'https://[::a9fe:a9fe]/hook'], env), /::a9fe:a9fe is ipv4Compatible.*--allow-private/);
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'https://[::127.0.0.1]/hook'], env), /is ipv4Compatible/);
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'https://[64:ff9b::a00:1]/hook'], env), /is rfc6052/);
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'http://erp.example.com/hook'], env), /only https/);
    failed(await runCli(dataDir, ['webhook', 'add', '--url', 'https://erp.example.com/', '--events', 'ordine.creato'], env), /unknown event type ordine\.creato/);
    ok(await runCli(dataDir, ['webhook', 'add', '--url', 'https://10.1.2.3/hook', '--allow-private', '--json'], env));
  });

  void it('disable, enable, deliveries, replay and remove; unknown ids are refused', async () => {
    const { id } = JSON.parse(ok(await runCli(dataDir, ['webhook', 'add', '--url', 'http://127.0.0.1:9/hook', '--allow-private', '--json'], env)).stdout) as { id: string };
    assert.match(ok(await runCli(dataDir, ['webhook', 'disable', id])).stdout, /disabled/);
    assert.equal((JSON.parse(ok(await runCli(dataDir, ['webhook', 'show', id, '--json'])).stdout) as { state: string }).state, 'disabled');
    ok(await runCli(dataDir, ['webhook', 'enable', id]));
    assert.deepEqual(JSON.parse(ok(await runCli(dataDir, ['webhook', 'deliveries', id, '--json'])).stdout), []);
    assert.deepEqual(JSON.parse(ok(await runCli(dataDir, ['webhook', 'replay', id, '--json'])).stdout), { replayed: 0 });
    failed(await runCli(dataDir, ['webhook', 'replay', id, '--delivery', 'nope']), /has no delivery nope/);
    failed(await runCli(dataDir, ['webhook', 'deliveries', id, '--state', 'odd']), /--state must be one of/);
    ok(await runCli(dataDir, ['webhook', 'remove', id]));
    failed(await runCli(dataDir, ['webhook', 'show', id]), new RegExp(`no webhook ${id}`));
  });

  void it('export add, list and remove; a missing folder or unknown format is refused', async () => {
    const hot = path.join(dataDir, 'hot');
    await mkdir(hot);
    const e = JSON.parse(ok(await runCli(dataDir, ['export', 'add', '--dir', hot, '--format', 'xjdf', '--json'])).stdout) as { id: string; dir: string };
    assert.equal(e.dir, hot);
    assert.deepEqual((JSON.parse(ok(await runCli(dataDir, ['export', 'list', '--json'])).stdout) as { id: string }[]).map((x) => x.id), [e.id]);
    failed(await runCli(dataDir, ['export', 'add', '--dir', path.join(dataDir, 'nope'), '--format', 'json']), /is not an existing folder/);
    failed(await runCli(dataDir, ['export', 'add', '--dir', hot, '--format', 'pdf']), /unknown export format "pdf"/);
    failed(await runCli(dataDir, ['webhook', 'show', e.id]), /no webhook/);
    ok(await runCli(dataDir, ['export', 'remove', e.id]));
    assert.deepEqual(JSON.parse(ok(await runCli(dataDir, ['export', 'list', '--json'])).stdout), []);
  });
});
