// The takeover after a crash, timed: three `order-intake serve` processes on one PostgreSQL database with the
// default lease (30 s) and sweep (5 s). One of them is killed with SIGKILL while it holds, claimed in its name and
// not judged, a submission of every asynchronous channel: IMAP (a real Dovecot, when it can run here), SMTP, SFTP,
// FTP, REST async, connectors; and a SOAP call waiting for its answer. (A SHARE lock the test holds on `orders`
// keeps its judgements waiting, so this does not depend on the machine's speed.) Its claims die with its database
// session, so a survivor must judge all of it within 10 s of the kill (a lease-based takeover would take 30 s, and
// before issue 21 e-mail waited 300 s): each once, every acknowledged order registered once, every number unique.
// A synchronous call of one order (SOAP, REST) is saved together with its registration (saveSingleOrder), so one in
// flight leaves nothing behind: its caller, never answered, sends again (here to a survivor) and is registered once.
// The takeover times are printed per channel. A graceful stop (SIGTERM) of an instance holding e-mail waiting to be
// derived hands it back at once, with nothing left in its name.
// Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { ImapFlow } from 'imapflow';
import pg from 'pg';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { v7 as uuidv7 } from 'uuid';
import { sealSecret } from '../../src/auth/secret-box.ts';
import { addConnector } from '../../src/connectors/provision.ts';
import { addSite } from '../../src/connectors/sites.ts';
import { describe, it } from 'node:test';
import type { ProvisionedCustomer } from '../../src/customers/provision.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { loggedPort, spawnServe, stopOrKill, stopServe, waitForLine, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir, waitFor } from '../helpers/service.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { dovecotSkip, startDovecot, type Dovecot } from '../channels/mail/dovecot.ts';
import { connector, ftpUpload, heavy, rest, sftpUpload, smtpSend, soap, type Sent } from './clients.ts';
import { seedStore } from './seed.ts';

interface Instance {
  serve: ServeProcess;
  sftpPort: number;
  ftpPort: number;
  smtpPort: number;
}

/** The defaults, spelled out: the takeover must not depend on short leases. */
const SECRET_KEY = randomBytes(32).toString('base64');
const SETTINGS = {
  INTAKE_SFTP_PORT: '0', INTAKE_FTP_PORT: '0', INTAKE_SMTP_PORT: '0', INTAKE_MAIL_DOMAIN: 'ordini.test',
  INTAKE_CLAIM_LEASE_MS: '30000', INTAKE_SWEEP_INTERVAL_MS: '5000', INTAKE_SECRET_KEY: SECRET_KEY,
  // The IMAP mailbox list is checked every 2 s, so a survivor watches the victim's mailbox soon after the kill.
  INTAKE_IMAP_POLL_SECONDS: '2',
  // The default pool, not the runner's 4: the victim's statements waiting on the table lock must not take every
  // connection, or its SFTP and mail work could never be saved and held.
  INTAKE_DATABASE_POOL: '10',
};
const imapMissing = dovecotSkip();

/** A message with one heavy order attached, appended to the watched mailbox as a customer's mail server would. */
async function appendOrder(d: Dovecot, ref: string, lines: number): Promise<void> {
  const raw = await new MailComposer({
    from: 'Ufficio acquisti <acquisti@cliente.it>', to: 'ordini@cliente-pec.it', subject: `Ordine ${ref}`, messageId: `<${ref}@cliente.it>`,
    attachments: [{ filename: `${ref}.json`, content: JSON.stringify(heavy(ref, lines)) }],
  }).compile().build();
  const c = new ImapFlow({ host: '127.0.0.1', port: d.port, secure: false, auth: { user: d.user, pass: d.password }, logger: false });
  await c.connect();
  try {
    await c.append('INBOX', raw);
  } finally {
    await c.logout();
  }
}
/** The promise of issue 21: judged within 10 s of the kill, a survivor being there. */
const TAKEOVER_MS = 10_000;

async function prepare(url: string, d?: Dovecot): Promise<ProvisionedCustomer & { connectorKey: string }> {
  const store = await openPostgresStore(url);
  try {
    const [c] = await seedStore(store) as [ProvisionedCustomer];
    await addSite(store, { code: 'VR', name: 'Verona' });
    const { key } = await addConnector(store, { customer: 'C001', name: 'ERP', sites: 'VR', format: 'json' });
    if (d) {
      await store.setImapAccount({
        id: uuidv7(), customerId: c.customer.id, host: '127.0.0.1', port: d.port, tls: false, username: d.user,
        passwordEnc: sealSecret(SECRET_KEY, d.password, c.customer.id), folder: 'INBOX', processedFolder: 'Elaborati',
      });
    }
    return { ...c, connectorKey: key };
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



void describe('takeover after a crash on PostgreSQL', { skip: PG_SKIP }, () => {
  void it('judges everything a SIGKILLed instance held, of every channel, within 10 s, once', { timeout: 240_000 }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'takeover');
    const dirs: string[] = [];
    const instances: Instance[] = [];
    let d: Dovecot | undefined;
    let locker: pg.Client | undefined;
    try {
      if (!imapMissing) d = await startDovecot();
      else console.log(`IMAP left out: ${imapMissing}`);
      const c = await prepare(schema.url, d);
      // The victim starts first and alone, so it is the one watching the IMAP mailbox.
      const victim = await start(schema.url, dirs);
      if (d) await waitForLine(victim.serve, /watching IMAP mailbox/, 20_000);
      instances.push(victim);
      const key = c.apiKey;
      const port = victim.serve.httpPort;
      const [victimRow] = await adminQuery<{ id: string }>(testDatabaseUrl!, `SELECT id FROM ${schema.name}.instances WHERE pid = $1`, [victim.serve.proc.pid]);
      assert.ok(victimRow, 'the victim registered itself as a live instance');
      /** Waits until the victim holds, claimed and unjudged, a submission that came by `channel`. */
      const held = (channel: string) => waitFor(async () => (await adminQuery<{ n: number }>(testDatabaseUrl!,
        `SELECT count(*)::int AS n FROM ${schema.name}.submissions WHERE state = 'received' AND claimed_by = $1 AND channel = $2`,
        [victimRow.id, channel]))[0]!.n > 0 ? true : undefined, 30_000, `the victim to hold ${channel} work`);

      // The victim must die holding work of every channel, whatever the machine's speed: while the test holds a SHARE
      // lock on orders, receiving works (acknowledgements go out) but registering waits, so what the victim takes stays
      // claimed and unjudged, the synchronous calls (SOAP, connectors) unanswered. Each waiting judgement holds one of
      // its ten pooled connections, so one hand-over per channel, one after the other. The lock is let go right after
      // the kill; the backends of the dead process then fail on their closed sockets, uncommitted.
      locker = new pg.Client({ connectionString: testDatabaseUrl });
      await locker.connect();
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${schema.name}.orders IN SHARE MODE`);
      // Synchronous: answered only with the outcome, so these stay in flight until the kill. SOAP's save waits on the
      // lock with its registration: one more statement of the victim waiting on orders (the other instances are sent
      // nothing, so every waiter is the victim's). A connector's ticket is saved first, then judged: it is held.
      // These go first, while the store's registration statements (four at a time, register-batch.ts) are not all
      // taken by the judgements of the other channels, which wait on the lock too.
      const waiting = async () => (await adminQuery<{ n: number }>(testDatabaseUrl!,
        `SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = '${schema.name}.orders'::regclass`))[0]!.n;
      const before = await waiting();
      const pendingSync = [soap(port, key, heavy('SO-0', 20))];
      await waitFor(async () => ((await waiting()) > before ? true : undefined), 30_000, 'the SOAP call to wait on the lock');
      pendingSync.push(connector(port, c.connectorKey, 'VR', heavy('CO-0', 20)));
      await held('connector');
      const acked: Sent[] = [];
      const channels: string[] = ['connector'];
      if (d) {
        await appendOrder(d, 'IM-0', 20);
        await held('imap');
        acked.push({ channel: 'imap', refs: ['IM-0'], acked: true });
        channels.push('imap');
      }
      const steps: [string, () => Promise<Sent>][] = [
        ['email', () => smtpSend(victim.smtpPort, c, ['EM-0'], (r) => heavy(r, 20))],
        ['sftp', () => sftpUpload(victim.sftpPort, c, 'sftp-0.json', ['SF-0'])],
        ['ftp', () => ftpUpload(victim.ftpPort, c, 'ftp-0.json', ['FT-0'], JSON.stringify([heavy('FT-0', 20)]))],
        ['rest', () => rest(port, key, heavy('RA-0', 20), ['RA-0'], true)],
      ];
      for (const [channel, send] of steps) {
        acked.push(await send());
        await held(channel);
        channels.push(channel);
      }
      assert.deepEqual(acked.filter((s) => !s.acked).map((s) => s.refs), [], 'the victim acknowledged every asynchronous hand-over');
      // The survivors start now, once the victim holds its work: started earlier, their sweeps (every 5 s) could take
      // an asynchronous REST submission in the moment between the victim's save and its own claim (a loaded machine
      // widens it), and the victim would then never hold REST work. Their first sweep finds everything claimed.
      const [a, b] = [await start(schema.url, dirs), await start(schema.url, dirs)];
      instances.push(a, b);
      const killedAt = Date.now();
      victim.serve.proc.kill('SIGKILL');
      await victim.serve.exited;
      const leftSubs = await adminQuery<{ id: string; channel: string; claimed_by: string | null }>(testDatabaseUrl!,
        `SELECT id, channel, claimed_by FROM ${schema.name}.submissions WHERE state = 'received'`);
      const leftMail = await adminQuery<{ id: string; source: string }>(testDatabaseUrl!, `SELECT id, source FROM ${schema.name}.mail_messages WHERE state = 'received'`);
      await locker.query('COMMIT');
      await locker.end();
      locker = undefined;
      assert.deepEqual(leftSubs.filter((s) => s.channel === 'soap'), [],
        'a SOAP call in flight left nothing behind: it is saved only with its registration');
      const claimedSubs = leftSubs.filter((s) => s.claimed_by === victimRow.id).length;
      assert.ok(claimedSubs > 0, 'it died with claims in its name, whose lease has 30 s to run');
      console.log(`left by the victim: ${leftSubs.length} submissions (${claimedSubs} claimed in its name), ${leftMail.length} messages`);
      const sync = await Promise.all(pendingSync);

      // Every left submission judged, every left message derived (its parts judged, its reply queued).
      const timeOf = (iso: string | Date) => new Date(iso).getTime() - killedAt;
      const judged = await waitFor(async () => {
        const rows = await adminQuery<{ id: string; channel: string; processed_at: string | null }>(testDatabaseUrl!,
          `SELECT id, channel, processed_at FROM ${schema.name}.submissions WHERE id = ANY($1::text[])`, [leftSubs.map((s) => s.id)]);
        const mail = await adminQuery<{ id: string; source: string; done_at: Date | null }>(testDatabaseUrl!,
          `SELECT id, source, done_at FROM ${schema.name}.mail_messages WHERE id = ANY($1::text[])`, [leftMail.map((m) => m.id)]);
        return rows.every((r) => r.processed_at) && mail.every((m) => m.done_at) ? { rows, mail } : undefined;
      }, 60_000, 'everything the victim left to be judged');
      const times = new Map<string, number[]>();
      for (const r of judged.rows) times.set(r.channel, [...(times.get(r.channel) ?? []), timeOf(r.processed_at!)]);
      for (const m of judged.mail) {
        const k = `${m.source} message (derived, reply queued)`;
        times.set(k, [...(times.get(k) ?? []), timeOf(m.done_at!)]);
      }
      const report = [...times].map(([ch, ms]) => `${ch}: ${ms.length} taken over, slowest ${Math.max(...ms)} ms after the kill`);
      console.log(`takeover after SIGKILL (lease 30 s, sweep 5 s):\n  ${report.join('\n  ')}`);
      for (const ch of channels) assert.ok(times.has(ch), `${ch} work taken over`);
      assert.equal(channels.length, d ? 6 : 5, 'every channel but SOAP');
      assert.deepEqual(sync.filter((s) => s.acked), [], 'no synchronous call was answered by the victim: each was in flight when it died');
      for (const [ch, ms] of times) assert.ok(Math.max(...ms) <= TAKEOVER_MS, `${ch} judged within ${TAKEOVER_MS} ms of the kill: ${ms.join(', ')}`);

      // The survivors still work, and nothing was judged twice or numbered twice.
      const after = await Promise.all([rest(a.serve.httpPort, key, order('C001', 'P-a'), ['P-a']), rest(b.serve.httpPort, key, order('C001', 'P-b'), ['P-b'])]);
      // The unanswered SOAP caller sends again, as a client does after a dropped connection.
      const resent = [await soap(a.serve.httpPort, key, heavy('SO-0', 20))];
      assert.deepEqual(resent.map((x) => x.acked), [true], 'sent again, the SOAP call is answered');
      const all: Sent[] = [...acked, ...sync, ...after, ...resent];
      if (d) {
        // The victim's mailbox is watched again by a survivor (its lease was freed with the victim).
        await appendOrder(d, 'IM-after', 3);
        all.push({ channel: 'imap', refs: ['IM-after'], acked: true });
        await waitFor(async () => (await adminQuery<{ n: number }>(testDatabaseUrl!,
          `SELECT count(*)::int AS n FROM ${schema.name}.mail_messages WHERE source = 'imap' AND state = 'done'`))[0]!.n === 2 ? true : undefined,
        30_000, 'a survivor to watch the mailbox and answer a new message');
      }
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
      await locker?.end().catch(() => undefined);
      for (const i of instances) await stopOrKill(i.serve);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await d?.stop();
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
