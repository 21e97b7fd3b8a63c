// The takeover after a crash, timed: three `order-intake serve` processes on one PostgreSQL database with the
// default lease (30 s) and sweep (5 s); one of them is busy with heavy work of every channel (REST async, SOAP,
// SFTP, FTP, SMTP) when it is killed with SIGKILL. Its claims die with its database session, so everything it had
// received and not judged must be judged by a survivor within 10 s of the kill (a lease-based takeover would take
// 30 s for submissions and, before issue 21, 300 s for e-mail): each once, every acknowledged order registered once,
// every number unique. The takeover times are printed per channel. A graceful stop (SIGTERM) of an instance holding
// e-mail waiting to be derived hands it back at once, with nothing left in its name.
// Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import { provisionCustomer, type ProvisionedCustomer } from '../../src/customers/provision.ts';
import { openPostgresStore } from '../../src/store/postgres.ts';
import { loggedPort, spawnServe, stopServe, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir, TEST_ARTICLES, waitFor } from '../helpers/service.ts';
import { adminQuery, createSchema, SKIP_NO_PG, testDatabaseUrl } from '../store/pg-schema.ts';
import { ftpUpload, heavy, rest, sftpUpload, smtpSend, soap, type Sent } from './clients.ts';

interface Instance {
  serve: ServeProcess;
  sftpPort: number;
  ftpPort: number;
  smtpPort: number;
}

/** The defaults, spelled out: the takeover must not depend on short leases. */
const SETTINGS = {
  INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_SMTP_PORT: '0', INTAKE_MAIL_DOMAIN: 'ordini.test',
  INTAKE_CLAIM_LEASE_MS: '30000', INTAKE_SWEEP_INTERVAL_MS: '5000',
};
/** The promise of issue 21: judged within 10 s of the kill, a survivor being there. */
const TAKEOVER_MS = 10_000;

async function prepare(url: string): Promise<ProvisionedCustomer> {
  const store = await openPostgresStore(url);
  try {
    await store.migrate();
    await store.upsertUnits(DEFAULT_UNITS);
    await store.upsertArticles(TEST_ARTICLES);
    return await provisionCustomer(store, { code: 'C001', name: 'Cliente C001' }, 'ordini.test');
  } finally {
    await store.close();
  }
}

async function start(url: string, dirs: string[]): Promise<Instance> {
  const dir = tempDir('intake-takeover-');
  dirs.push(dir);
  const serve = await spawnServe(dir, { INTAKE_DATABASE_URL: url, ...SETTINGS }, 60_000);
  return { serve, sftpPort: await loggedPort(serve, 'sftp'), ftpPort: await loggedPort(serve, 'ftp'), smtpPort: await loggedPort(serve, 'smtp') };
}

/** A graceful stop, or SIGKILL after 15 s: clean-up must not hang on an instance that cannot stop. */
async function stopOrKill(serve: ServeProcess): Promise<void> {
  const timer = setTimeout(() => serve.proc.kill('SIGKILL'), 15_000);
  await stopServe(serve);
  clearTimeout(timer);
}

const fileOf = (refs: string[]) => JSON.stringify(refs.map((r) => heavy(r, 1500)));

void describe('takeover after a crash on PostgreSQL', { skip: testDatabaseUrl ? false : SKIP_NO_PG }, () => {
  void it('judges everything a SIGKILLed instance held, of every channel, within 10 s, once', { timeout: 240_000 }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'takeover');
    const dirs: string[] = [];
    const instances: Instance[] = [];
    try {
      const c = await prepare(schema.url);
      for (let i = 0; i < 3; i++) instances.push(await start(schema.url, dirs));
      const [a, b, victim] = instances as [Instance, Instance, Instance];
      const key = c.apiKey;
      const port = victim.serve.httpPort;

      // Everything to the victim at once; it is killed as soon as the asynchronous channels have acknowledged theirs,
      // with the synchronous ones (SOAP, REST) still waiting for their outcome.
      const pendingSync = [
        ...Array.from({ length: 3 }, (_, k) => soap(port, key, heavy(`SO-${k}`))),
        ...Array.from({ length: 3 }, (_, k) => rest(port, key, heavy(`RS-${k}`), [`RS-${k}`])),
      ];
      const acked = await Promise.all([
        ...Array.from({ length: 12 }, (_, k) => rest(port, key, heavy(`RA-${k}`), [`RA-${k}`], true)),
        ...Array.from({ length: 3 }, (_, k) => sftpUpload(victim.sftpPort, c, `sftp-${k}.json`, [`SF-${k}-1`, `SF-${k}-2`], fileOf([`SF-${k}-1`, `SF-${k}-2`]))),
        ...Array.from({ length: 3 }, (_, k) => ftpUpload(victim.ftpPort, c, `ftp-${k}.json`, [`FT-${k}-1`, `FT-${k}-2`], fileOf([`FT-${k}-1`, `FT-${k}-2`]))),
        ...Array.from({ length: 4 }, (_, k) => smtpSend(victim.smtpPort, c, [`EM-${k}-1`, `EM-${k}-2`], (r) => heavy(r, 1500))),
      ]);
      assert.deepEqual(acked.filter((s) => !s.acked).map((s) => s.refs), [], 'the victim acknowledged every asynchronous hand-over');
      const [victimRow] = await adminQuery<{ id: string }>(testDatabaseUrl!, `SELECT id FROM ${schema.name}.instances WHERE pid = $1`, [victim.serve.proc.pid]);
      assert.ok(victimRow, 'the victim registered itself as a live instance');
      const killedAt = Date.now();
      victim.serve.proc.kill('SIGKILL');
      await victim.serve.exited;

      // What it left: submissions not judged (each with its channel) and messages not derived.
      const leftSubs = await adminQuery<{ id: string; channel: string; claimed_by: string | null }>(testDatabaseUrl!,
        `SELECT id, channel, claimed_by FROM ${schema.name}.submissions WHERE state = 'received'`);
      const leftMail = await adminQuery<{ id: string }>(testDatabaseUrl!, `SELECT id FROM ${schema.name}.mail_messages WHERE state = 'received'`);
      const heldChannels = new Set(leftSubs.map((s) => s.channel));
      for (const ch of ['rest', 'sftp', 'ftp']) assert.ok(heldChannels.has(ch), `the victim died holding ${ch} work (held: ${[...heldChannels].join(', ')})`);
      assert.ok(leftMail.length > 0 || heldChannels.has('email'), 'the victim died holding e-mail');
      assert.ok(leftSubs.some((s) => s.claimed_by === victimRow.id), 'with claims in its name, whose lease has 30 s to run');
      const sync = await Promise.all(pendingSync);

      // Every left submission judged, every left message derived (its parts judged, its reply queued).
      const timeOf = (iso: string | Date) => new Date(iso).getTime() - killedAt;
      const judged = await waitFor(async () => {
        const rows = await adminQuery<{ id: string; channel: string; processed_at: string | null }>(testDatabaseUrl!,
          `SELECT id, channel, processed_at FROM ${schema.name}.submissions WHERE id = ANY($1::text[])`, [leftSubs.map((s) => s.id)]);
        const mail = await adminQuery<{ id: string; done_at: Date | null }>(testDatabaseUrl!,
          `SELECT id, done_at FROM ${schema.name}.mail_messages WHERE id = ANY($1::text[])`, [leftMail.map((m) => m.id)]);
        return rows.every((r) => r.processed_at) && mail.every((m) => m.done_at) ? { rows, mail } : undefined;
      }, 60_000, 'everything the victim left to be judged');
      const times = new Map<string, number[]>();
      for (const r of judged.rows) times.set(r.channel, [...(times.get(r.channel) ?? []), timeOf(r.processed_at!)]);
      if (judged.mail.length > 0) times.set('email (message derived, reply queued)', judged.mail.map((m) => timeOf(m.done_at!)));
      const report = [...times].map(([ch, ms]) => `${ch}: ${ms.length} taken over, slowest ${Math.max(...ms)} ms after the kill`);
      console.log(`takeover after SIGKILL (lease 30 s, sweep 5 s):\n  ${report.join('\n  ')}`);
      for (const [ch, ms] of times) assert.ok(Math.max(...ms) <= TAKEOVER_MS, `${ch} judged within ${TAKEOVER_MS} ms of the kill: ${ms.join(', ')}`);

      // The survivors still work, and nothing was judged twice or numbered twice.
      const after = await Promise.all([rest(a.serve.httpPort, key, order('C001', 'P-a'), ['P-a']), rest(b.serve.httpPort, key, order('C001', 'P-b'), ['P-b'])]);
      const all: Sent[] = [...acked, ...sync, ...after];
      await waitFor(async () => (await adminQuery<{ n: number }>(testDatabaseUrl!,
        `SELECT (SELECT count(*) FROM ${schema.name}.submissions WHERE state = 'received') + (SELECT count(*) FROM ${schema.name}.mail_messages WHERE state = 'received') AS n`))[0]!.n == 0 ? true : undefined,
      30_000, 'nothing left unprocessed');
      const orders = await adminQuery<{ riferimento_ordine: string; numero_ordine: string }>(testDatabaseUrl!,
        `SELECT riferimento_ordine, numero_ordine FROM ${schema.name}.orders WHERE customer_id = $1`, [c.customer.id]);
      const count = new Map<string, number>();
      for (const o of orders) count.set(o.riferimento_ordine, (count.get(o.riferimento_ordine) ?? 0) + 1);
      for (const ref of all.filter((s) => s.acked).flatMap((s) => s.refs)) assert.equal(count.get(ref), 1, `acknowledged order ${ref} registered exactly once`);
      assert.ok([...count.values()].every((n) => n === 1), 'no order registered twice');
      assert.equal(new Set(orders.map((o) => o.numero_ordine)).size, orders.length, 'numero_ordine values are unique');
      for (const s of all.filter((x) => x.numero !== undefined)) {
        assert.equal(orders.find((o) => o.riferimento_ordine === s.refs[0])?.numero_ordine, s.numero, `${s.refs[0]} has the number its customer was told`);
      }
      const twice = await adminQuery<{ id: string }>(testDatabaseUrl!, `SELECT id FROM ${schema.name}.submissions WHERE attempts <> 1`);
      assert.deepEqual(twice, [], 'every outcome recorded once, those the victim held included');
      const replies = await adminQuery<{ mail_id: string; n: number }>(testDatabaseUrl!,
        `SELECT mail_id, count(*)::int AS n FROM ${schema.name}.mail_replies GROUP BY mail_id HAVING count(*) <> 1`);
      assert.deepEqual(replies, [], 'one reply per message');
    } finally {
      for (const i of instances) await stopOrKill(i.serve);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await schema.drop();
    }
  });

  void it('hands back at once on SIGTERM: nothing is left in the stopped instance\'s name', { timeout: 180_000 }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'sigterm');
    const dirs: string[] = [];
    const instances: Instance[] = [];
    try {
      const c = await prepare(schema.url);
      for (let i = 0; i < 2; i++) instances.push(await start(schema.url, dirs));
      const [survivor, stopped] = instances as [Instance, Instance];
      // More heavy messages than it derives at once (four): some wait in its queue, claimed in its name.
      const sent = await Promise.all(Array.from({ length: 10 }, (_, k) => smtpSend(stopped.smtpPort, c, [`T-${k}`], (r) => heavy(r, 2000))));
      assert.ok(sent.every((s) => s.acked), 'every message acknowledged');
      const [row] = await adminQuery<{ id: string }>(testDatabaseUrl!, `SELECT id FROM ${schema.name}.instances WHERE pid = $1`, [stopped.serve.proc.pid]);
      assert.ok(row);
      const heldBefore = await adminQuery<{ n: number }>(testDatabaseUrl!,
        `SELECT count(*)::int AS n FROM ${schema.name}.mail_messages WHERE claimed_by = $1 AND state = 'received'`, [row.id]);
      assert.ok(heldBefore[0]!.n > 0, 'it holds messages not yet derived when told to stop');
      const stoppedAt = Date.now();
      assert.equal(await stopServe(stopped.serve, 'SIGTERM'), 0, 'a clean exit');
      const exitedMs = Date.now() - stoppedAt;
      const left = await adminQuery<{ subs: number; mail: number; replies: number; leases: number; inst: number }>(testDatabaseUrl!,
        `SELECT (SELECT count(*) FROM ${schema.name}.submissions WHERE claimed_by = $1 AND state = 'received')::int AS subs,
           (SELECT count(*) FROM ${schema.name}.mail_messages WHERE claimed_by = $1 AND state = 'received')::int AS mail,
           (SELECT count(*) FROM ${schema.name}.mail_replies WHERE claimed_by = $1 AND state = 'pending')::int AS replies,
           (SELECT count(*) FROM ${schema.name}.leases WHERE holder = $1)::int AS leases,
           (SELECT count(*) FROM ${schema.name}.instances WHERE id = $1)::int AS inst`, [row.id]);
      assert.deepEqual(left[0], { subs: 0, mail: 0, replies: 0, leases: 0, inst: 0 }, 'every claim handed back, the instance unregistered');
      const handedBack = await adminQuery<{ id: string }>(testDatabaseUrl!, `SELECT id FROM ${schema.name}.mail_messages WHERE state = 'received'`);
      // What it handed back is free now, so the survivor's next sweep (5 s) takes it: well within 10 s of the exit.
      await waitFor(async () => (await adminQuery<{ n: number }>(testDatabaseUrl!,
        `SELECT count(*)::int AS n FROM ${schema.name}.mail_messages WHERE state = 'received'`))[0]!.n === 0 ? true : undefined,
      60_000, 'the survivor to derive what was handed back');
      const doneAt = await adminQuery<{ ms: number }>(testDatabaseUrl!,
        `SELECT coalesce(max(extract(epoch FROM done_at) * 1000), 0)::float8 AS ms FROM ${schema.name}.mail_messages WHERE id = ANY($1::text[])`, [handedBack.map((m) => m.id)]);
      const takeover = handedBack.length === 0 ? 0 : doneAt[0]!.ms - (stoppedAt + exitedMs);
      console.log(`SIGTERM: stop took ${exitedMs} ms, ${handedBack.length} messages handed back, derived by the survivor ${Math.round(takeover)} ms after the exit`);
      assert.ok(takeover <= TAKEOVER_MS, `handed-back messages derived within ${TAKEOVER_MS} ms of the exit (${Math.round(takeover)} ms)`);
      const orders = await adminQuery<{ riferimento_ordine: string }>(testDatabaseUrl!, `SELECT riferimento_ordine FROM ${schema.name}.orders`);
      assert.deepEqual(orders.map((o) => o.riferimento_ordine).sort(), sent.flatMap((s) => s.refs).sort(), 'every order registered once');
      void survivor;
    } finally {
      for (const i of instances) await stopOrKill(i.serve);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await schema.drop();
    }
  });
});
