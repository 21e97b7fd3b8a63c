// Three `order-intake serve` processes on one PostgreSQL database, as behind a TCP load balancer. Orders are
// spread over them concurrently through REST (synchronous and async), SFTP and SMTP (nodemailer, a real client),
// some REST orders sent to two instances at once; one instance is killed with SIGKILL while it holds work, e-mail
// it has acknowledged (250 after DATA) and not yet derived included. Afterwards every acknowledged order is
// registered exactly once, every numero_ordine is unique, every submission has one outcome recorded (attempts 1:
// a survivor that lost its lease while judging, which the short leases allow, records nothing over the outcome of
// the one that took it over), every acknowledged message was derived once with exactly one reply queued, and
// nothing is left unprocessed. The instances run with short leases (INTAKE_CLAIM_LEASE_MS, INTAKE_SWEEP_INTERVAL_MS),
// so that a survivor stalled past its lease loses claims too and the lease backstop is exercised alongside the
// session-based takeover (takeover.test.ts times that one with the default lease).
// Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import pg from 'pg';
import type { ProvisionedCustomer } from '../../src/customers/provision.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/domain/store/store.ts';
import { loggedPort, spawnServe, stopOrKill, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir, waitFor } from '../helpers/service.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { heavy, rest as restTo, sftpUpload as sftpTo, smtpSend as smtpTo, type Sent } from './clients.ts';
import { seedStore } from './seed.ts';

interface Instance {
  serve: ServeProcess;
  sftpPort: number;
  smtpPort: number;
}

/**
 * Claims lapse after 3 s (renewed every second while the work runs, messages' too): long enough that a busy survivor
 * rarely loses one, short enough to exercise the lease as well. The victim's claims are freed with its session.
 */
const LEASE_MS = 3000;
const SETTINGS = {
  INTAKE_SFTP_PORT: '0', INTAKE_SMTP_PORT: '0', INTAKE_MAIL_DOMAIN: 'ordini.test',
  INTAKE_CLAIM_LEASE_MS: String(LEASE_MS), INTAKE_SWEEP_INTERVAL_MS: '250',
  // The default pool, not the runner's 4: the statements waiting on the table lock must not take every connection.
  INTAKE_DATABASE_POOL: '10',
};

/**
 * Fails with the clean-up still to run if `body` takes longer than `ms`: a test hung on a dead peer would
 * otherwise keep its child processes, and with them the whole test run, alive.
 */
async function within<T>(ms: number, body: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([body, new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the scenario did not finish within ${ms} ms`)), ms);
    })]);
  } finally {
    clearTimeout(timer);
  }
}

async function prepare(url: string): Promise<ProvisionedCustomer> {
  const store = await openPostgresStore(url);
  try {
    return (await seedStore(store))[0]!;
  } finally {
    await store.close();
  }
}

/** An instance's first log lines at level 50 (error) and above: what a failed assertion about it should show. */
const errorsOf = (i: Instance): string[] => i.serve.lines.filter((l) => /"level":(5|6)\d/.test(l)).slice(0, 3);

// The real clients of clients.ts, addressed to an instance.
const rest = (i: Instance, key: string, body: object, refs: string[], async = false) => restTo(i.serve.httpPort, key, body, refs, async);
const sftpUpload = (i: Instance, c: ProvisionedCustomer, name: string, refs: string[]) => sftpTo(i.sftpPort, c, name, refs);
const smtpSend = (i: Instance, c: ProvisionedCustomer, refs: string[], make?: (ref: string) => object) => smtpTo(i.smtpPort, c, refs, make);

void describe('several instances on one PostgreSQL', { skip: PG_SKIP }, () => {
  void it('registers every acknowledged order exactly once when one of three instances is SIGKILLed mid-way', { timeout: 240_000 }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'multi');
    const instances: Instance[] = [];
    const dirs: string[] = [];
    let store: Store | undefined;
    let locker: pg.Client | undefined;
    try {
      await within(200_000, (async () => {
        const c = await prepare(schema.url);
        await Promise.all([0, 1, 2].map(async () => {
          const dir = tempDir('intake-multi-');
          dirs.push(dir);
          instances.push({ serve: await spawnServe(dir, { INTAKE_DATABASE_URL: schema.url, ...SETTINGS }, 60_000), sftpPort: 0, smtpPort: 0 });
        }));
        for (const i of instances) {
          i.sftpPort = await loggedPort(i.serve, 'sftp');
          i.smtpPort = await loggedPort(i.serve, 'smtp');
        }
        const [a, b, victim] = instances as [Instance, Instance, Instance];
        const key = c.apiKey;

        // Phase 1: a burst of heavy async orders and heavy messages to the victim, then ordinary traffic over the
        // three (duplicates sent to two instances), and the victim is killed once the traffic has reached it.
        // A SHARE lock on orders, held from before the burst until the kill, keeps every registration waiting (the
        // acknowledgements of asynchronous hand-overs do not wait for one), so the victim dies holding work however
        // quickly this machine judges: a quick store used to finish the burst first, and nothing was taken over.
        // The burst goes first, and is acknowledged before the ordinary traffic is sent. (Before the writers of orders
        // were bounded below the pool, store/postgres/order-writers.ts, the statements waiting on the lock could take
        // all ten connections and a heavy message was answered 451, try again later: locked-orders.test.ts tests that.)
        locker = new pg.Client({ connectionString: testDatabaseUrl });
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${schema.name}.orders IN SHARE MODE`);
        const burst = await Promise.all([
          ...Array.from({ length: 40 }, (_, k) => rest(victim, key, heavy(`H-${k}`), [`H-${k}`], true)),
          ...Array.from({ length: 8 }, (_, k) => smtpSend(victim, c, [`HM-${k}-1`, `HM-${k}-2`], heavy)),
        ]);
        const unacked = burst.filter((s) => !s.acked).map((s) => `${s.channel} ${s.refs[0]}: ${s.why}`);
        // The victim's own errors say why (its log lines at level 50, error, and above).
        const errors = errorsOf(victim);
        assert.deepEqual(unacked, [], `the victim acknowledged its burst before dying; its errors: ${errors.join('\n')}`);
        const traffic: Promise<Sent>[] = [];
        const answeredWithoutRegistering: Promise<Sent>[] = [];
        for (let k = 0; k < 30; k++) traffic.push(rest(instances[k % 3]!, key, order('C001', `S-${k}`), [`S-${k}`]));
        for (let k = 0; k < 15; k++) traffic.push(rest(instances[k % 3]!, key, order('C001', `A-${k}`), [`A-${k}`], true));
        for (let k = 0; k < 6; k++) answeredWithoutRegistering.push(sftpUpload(instances[k % 3]!, c, `lotto-${k}.json`, [`F-${k}-1`, `F-${k}-2`]));
        for (let k = 0; k < 6; k++) {
          for (const i of [instances[k % 3]!, instances[(k + 1) % 3]!]) traffic.push(rest(i, key, order('C001', `D-${k}`), [`D-${k}`]));
        }
        const toSurvivors: Promise<Sent>[] = [];
        for (let k = 0; k < 9; k++) {
          const sent = smtpSend(instances[k % 3]!, c, [`M-${k}-1`, `M-${k}-2`]);
          answeredWithoutRegistering.push(sent);
          if (instances[k % 3] !== victim) toSurvivors.push(sent);
        }
        // The uploads and messages are answered once stored (the synchronous REST orders wait on the lock): when they
        // all have been, the traffic has reached the victim, and its synchronous orders are waiting there.
        traffic.push(...answeredWithoutRegistering);
        await Promise.all(answeredWithoutRegistering);
        victim.serve.proc.kill('SIGKILL');
        await victim.serve.exited;
        const left = await adminQuery<{ n: number }>(testDatabaseUrl!, `SELECT count(*)::int AS n FROM ${schema.name}.submissions WHERE state = 'received'`);
        const leftMail = await adminQuery<{ n: number }>(testDatabaseUrl!, `SELECT count(*)::int AS n FROM ${schema.name}.mail_messages WHERE state = 'received'`);
        await locker.query('COMMIT');
        await locker.end();
        locker = undefined;
        const phase1 = await Promise.all(traffic);

        // Phase 2: the survivors keep taking orders.
        const phase2 = await Promise.all([
          ...Array.from({ length: 10 }, (_, k) => rest([a, b][k % 2]!, key, order('C001', `P-${k}`), [`P-${k}`])),
          sftpUpload(a, c, 'dopo-a.json', ['G-a-1']),
          sftpUpload(b, c, 'dopo-b.json', ['G-b-1']),
          smtpSend(a, c, ['N-a-1']),
          smtpSend(b, c, ['N-b-1']),
        ]);
        const all = [...phase1, ...burst, ...phase2];
        const acked = new Set(all.filter((s) => s.acked).flatMap((s) => s.refs));
        assert.ok(acked.size > 100, `most orders were acknowledged (${acked.size})`);
        assert.ok(left[0]!.n > 0, 'the victim died holding work, so the takeover is exercised');
        assert.ok(leftMail[0]!.n > 0, 'the victim died holding e-mail it had acknowledged, so its takeover is exercised');

        // The victim's claims are freed with its session and a survivor's sweeper takes them over.
        store = await openPostgresStore(schema.url);
        const customerId = c.customer.id;
        await waitFor(async () => ((await store!.listSubmissions({ state: 'received', limit: 10 })).length === 0
          && (await store!.listMailMessages({ state: 'received', limit: 10 })).length === 0 ? true : undefined),
        150_000, 'every submission and every message to be processed');
        // Read with SQL rather than listOrders: the heavy orders hold 170,000 lines, and only numbers are checked here.
        const orders = await adminQuery<{ riferimento_ordine: string; numero_ordine: string }>(testDatabaseUrl!,
          `SELECT riferimento_ordine, numero_ordine FROM ${schema.name}.orders WHERE customer_id = $1`, [customerId]);
        const byRef = new Map<string, number>();
        for (const o of orders) byRef.set(o.riferimento_ordine, (byRef.get(o.riferimento_ordine) ?? 0) + 1);
        for (const ref of acked) assert.equal(byRef.get(ref), 1, `acknowledged order ${ref} registered exactly once`);
        const sentRefs = new Set(all.flatMap((s) => s.refs));
        for (const ref of byRef.keys()) assert.ok(sentRefs.has(ref), `${ref} was sent`);
        assert.equal(new Set(orders.map((o) => o.numero_ordine)).size, orders.length, 'numero_ordine values are unique');
        for (const s of all.filter((x) => x.numero !== undefined)) {
          assert.equal(orders.find((o) => o.riferimento_ordine === s.refs[0])?.numero_ordine, s.numero, `${s.refs[0]} has the number its customer was told`);
        }
        const submissions = await store.listSubmissions({ customerId, limit: 1000 });
        assert.ok(submissions.every((s) => s.state === 'processed'), 'nothing failed or left behind');
        const recordedTwice = submissions.filter((s) => s.attempts !== 1).map((s) => `${s.id}: ${s.attempts}`);
        assert.deepEqual(recordedTwice, [], 'every outcome recorded once, those the victim held included');

        // E-mail: each acknowledged message stored once, derived into one submission per attachment, answered once.
        const messages = await store.listMailMessages({ customerId, limit: 1000 });
        const replies = await store.listReplies({ customerId, limit: 1000 });
        const repliesByMail = new Map<string, number>();
        for (const r of replies) if (r.mailId) repliesByMail.set(r.mailId, (repliesByMail.get(r.mailId) ?? 0) + 1);
        const mailSent = all.filter((s) => s.messageId !== undefined);
        // The victim's burst was checked above; everything sent to the survivors too (phase-1 messages to the victim
        // may be lost). Each by name, with the client's reason, so that a failure says which and why.
        const notAcked = [...await Promise.all(toSurvivors), ...phase2.filter((s) => s.channel === 'email')]
          .filter((s) => !s.acked).map((s) => `${s.messageId}: ${s.why}`);
        const survivorErrors = [a, b].flatMap(errorsOf);
        assert.deepEqual(notAcked, [], `every message to a live instance was acknowledged; the survivors' errors: ${survivorErrors.join('\n')}`);
        for (const s of mailSent.filter((x) => x.acked)) {
          const stored = messages.filter((m) => m.messageId === s.messageId);
          assert.equal(stored.length, 1, `${s.messageId} stored once`);
          const m = stored[0]!;
          assert.equal(m.state, 'done', `${s.messageId} derived`);
          assert.equal(m.result?.esito, 'ok', `${s.messageId}: every attachment accepted`);
          assert.equal(m.result?.submissions.length, s.refs.length, `${s.messageId}: one submission per attachment`);
          assert.ok(m.result?.replyId, `${s.messageId} answered`);
          assert.equal(repliesByMail.get(m.id), 1, `${s.messageId}: its reply queued exactly once`);
          assert.equal((await store.getReply(m.result.replyId))?.mailId, m.id);
        }
        // Whatever was stored, acknowledged or not (the victim may have committed a message it never answered 250
        // to), was derived, and every part is a submission of its own: none received twice for one attachment.
        assert.ok(messages.every((m) => m.state === 'done'), 'no message left unprocessed');
        const parts = (await Promise.all(messages.map((m) => store!.mailParts(m.id)))).flat();
        const fromMail = submissions.filter((s) => s.channel === 'email');
        assert.equal(fromMail.length, parts.length, 'one submission per attachment, none orphaned');
        assert.equal(new Set(parts.map((p) => p.submissionId)).size, parts.length);
      })());
    } finally {
      await locker?.end().catch(() => undefined);
      await store?.close();
      for (const i of instances) await stopOrKill(i.serve);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await schema.drop();
    }
  });
});
