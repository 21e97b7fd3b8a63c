// Live instances (src/domain/store/instances.ts): what a registered instance holds is freed as soon as it is gone, never
// while it lives. PostgreSQL: separate store objects play separate processes, and closing a store without
// stopInstance ends its session exactly as a SIGKILL does (the server sees the connection close); the session cut
// by the server (pg_terminate_backend) is opened again and the instance lives on. SQLite: a store left without
// stopInstance is a crashed predecessor, recognised by the next store opened on the file in this process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { hostname } from 'node:os';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { tempDir } from '../helpers/service.ts';
import { addCustomer, addSubmission, at } from './fixtures.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from './pg-schema.ts';
import { waitFor } from '../helpers/wait.ts';

const LONG = 60_000;

const until = <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 5_000) => waitFor(check, timeoutMs, what);

/** A submission, a message and a reply held by `holder` for a minute, and a named lease: all it can hold. */
async function holdEverything(store: Store, holder: string) {
  const c = await addCustomer(store, `C${randomUUID().slice(0, 6)}`);
  const sub = await addSubmission(store, c, { receivedAt: at(1) });
  assert.deepEqual(await store.claimSubmissions(holder, 10, LONG), [sub]);
  const mailId = randomUUID();
  await store.saveMailMessages([{
    id: mailId, customerId: c.id, source: 'smtp', envelopeFrom: 'a@b.it', recipients: [c.mailbox], raw: Buffer.from('Subject: x\r\n\r\nx\r\n'),
    sha256: 'f'.repeat(64), receivedAt: at(2), claimMs: LONG, claimBy: holder,
  }]);
  const done = { id: randomUUID(), customerId: c.id, source: 'smtp' as const, envelopeFrom: 'a@b.it', recipients: [c.mailbox],
    raw: Buffer.from('x'), sha256: 'e'.repeat(64), receivedAt: at(3) };
  await store.saveMailMessages([done]);
  const replyId = randomUUID();
  await store.finishMail(done.id, { esito: 'ok', submissions: [], replyId }, {
    id: replyId, mailId: done.id, customerId: c.id, recipient: 'a@b.it', subject: 'Re', raw: Buffer.from('Subject: Re\r\n\r\nok\r\n'),
  });
  assert.deepEqual((await store.claimDueReplies(LONG, 10, holder)).map((r) => r.id), [replyId]);
  assert.equal(await store.acquireLease('mail-outbox', holder, LONG), true);
  return { sub, mailId, replyId };
}

void describe('live instances on PostgreSQL', { skip: PG_SKIP }, () => {
  async function withStores(fn: (open: () => Promise<Store>, schema: string) => Promise<void>): Promise<void> {
    const schema = await createSchema(testDatabaseUrl!);
    const stores: Store[] = [];
    try {
      await fn(async () => {
        const s = await openPostgresStore(testDatabaseUrl!, { schema: schema.name, max: 3 });
        stores.push(s);
        await s.migrate();
        return s;
      }, schema.name);
    } finally {
      for (const s of stores) await s.close();
      await schema.drop();
    }
  }

  void it('frees everything a dead instance held at the next reap, and nothing while it lives', () => withStores(async (open) => {
    const [a, b] = [await open(), await open()];
    await a.startInstance('inst-a');
    await b.startInstance('inst-b');
    const held = await holdEverything(a, 'inst-a');
    // A holder that never registered (a tool, an older process) is left to its lease.
    const c = await addCustomer(b, 'T001');
    const byTool = await addSubmission(b, c, { receivedAt: at(5) });
    assert.deepEqual(await b.claimSubmissions('tool', 10, LONG), [byTool]);

    assert.deepEqual((await b.reapInstances()).instances, [], 'a live instance is not reaped');
    assert.deepEqual(await b.claimSubmissions('inst-b', 10, LONG), [], 'its claims hold');
    assert.equal(await b.claimMail(held.mailId, LONG, 'inst-b'), false);
    assert.equal(await b.acquireLease('mail-outbox', 'inst-b', LONG), false);

    await a.close(); // the session ends as it does when the process is killed: no release, no stop
    const freed = await until(async () => {
      const f = await b.reapInstances();
      return f.instances.length > 0 ? f : undefined;
    }, 'the dead instance to be found');
    assert.deepEqual(freed, { instances: ['inst-a'], submissions: 1, messages: 1, replies: 1, leases: 1 });
    assert.deepEqual(await b.claimSubmissions('inst-b', 10, LONG), [held.sub], 'its submission is free at once, the tool\'s is not');
    assert.equal(await b.claimMail(held.mailId, LONG, 'inst-b'), true);
    assert.deepEqual((await b.claimDueReplies(LONG, 10, 'inst-b')).map((r) => r.id), [held.replyId]);
    assert.equal(await b.acquireLease('mail-outbox', 'inst-b', LONG), true);
    assert.deepEqual((await b.reapInstances()).instances, [], 'found once');
  }));

  void it('keeps an instance whose session was cut by the server: the session is opened again', () => withStores(async (open, schema) => {
    const [a, b] = [await open(), await open()];
    await a.startInstance('inst-a');
    const [row] = await adminQuery<{ backend_pid: number }>(testDatabaseUrl!, `SELECT backend_pid FROM ${schema}.instances WHERE id = 'inst-a'`);
    await adminQuery(testDatabaseUrl!, 'SELECT pg_terminate_backend($1)', [row!.backend_pid]);
    // Seen gone while the session is away (its claims are then freed: it behaves as a stalled process would).
    await until(async () => ((await b.reapInstances()).instances.includes('inst-a') ? true : undefined), 'the cut session to be seen');
    const back = await until(async () => {
      const [r] = await adminQuery<{ backend_pid: number; gone: boolean }>(testDatabaseUrl!,
        `SELECT backend_pid, gone_at IS NOT NULL AS gone FROM ${schema}.instances WHERE id = 'inst-a'`);
      return r && !r.gone && r.backend_pid !== row!.backend_pid ? r : undefined;
    }, 'the instance to open its session again');
    assert.ok(back);
    assert.deepEqual((await b.reapInstances()).instances, [], 'alive again');
    const [sub] = [await addSubmission(a, await addCustomer(a, 'R001'), { receivedAt: at(1) })];
    assert.deepEqual(await a.claimSubmissions('inst-a', 10, LONG), [sub]);
    assert.equal((await b.reapInstances()).submissions, 0, 'what it holds now is left alone');
  }));

  void it('forgets an instance stopped gracefully: its row goes with it', () => withStores(async (open, schema) => {
    const [a, b] = [await open(), await open()];
    await a.startInstance('inst-a');
    await assert.rejects(a.startInstance('inst-x'), /already runs/);
    await a.stopInstance('inst-a');
    const rows = await adminQuery(testDatabaseUrl!, `SELECT id FROM ${schema}.instances`);
    assert.deepEqual(rows, []);
    assert.deepEqual((await b.reapInstances()).instances, []);
  }));
});

void describe('live instances on SQLite', () => {
  void it('frees the leases of the process that used the file before, at the start of the next one', async () => {
    const dir = tempDir('intake-inst-');
    const file = path.join(dir, 'intake.sqlite');
    try {
      const first = await openSqliteStore(file);
      await first.migrate();
      await first.startInstance('first');
      assert.equal(await first.acquireLease('mail-outbox', 'first', LONG), true);
      assert.equal(await first.acquireLease('imap:x', 'first', LONG), true);
      await first.close(); // a crash: no stop, the row and leases stay in the file

      // A process of this host that ended (a child that has exited) and one that runs (this one's parent): the
      // first is a predecessor, the second is left alone.
      const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
      const db = new Database(file);
      db.prepare('INSERT INTO instances (id, host, pid, started_at) VALUES (?, ?, ?, ?)').run('ended', hostname(), Number(ended), at(0));
      db.prepare('INSERT INTO instances (id, host, pid, started_at) VALUES (?, ?, ?, ?)').run('running', hostname(), process.ppid, at(0));
      db.prepare('INSERT INTO leases (name, holder, lease_until, acquired_at) VALUES (?, ?, ?, ?)').run('imap:y', 'ended', Date.now() + LONG, Date.now());
      db.prepare('INSERT INTO leases (name, holder, lease_until, acquired_at) VALUES (?, ?, ?, ?)').run('imap:z', 'running', Date.now() + LONG, Date.now());
      db.close();

      const second = await openSqliteStore(file);
      try {
        await second.migrate();
        await second.startInstance('second');
        assert.equal(await second.acquireLease('mail-outbox', 'second', LONG), true, 'the predecessor\'s lease is free at once');
        assert.equal(await second.acquireLease('imap:x', 'second', LONG), true);
        assert.equal(await second.acquireLease('imap:y', 'second', LONG), true, 'an ended process\'s too');
        assert.equal(await second.acquireLease('imap:z', 'second', LONG), false, 'a running process keeps its own');
        assert.deepEqual((await second.reapInstances()).instances, []);
        await second.stopInstance('second');
      } finally {
        await second.close();
      }
      const left = new Database(file, { readonly: true });
      assert.deepEqual(left.prepare('SELECT id FROM instances ORDER BY id').all(), [{ id: 'running' }], 'predecessors and the stopped one are gone');
      left.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
