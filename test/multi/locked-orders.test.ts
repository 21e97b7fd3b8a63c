// A long lock on the orders table (an operator's CREATE INDEX takes SHARE, an ALTER TABLE or VACUUM FULL ACCESS
// EXCLUSIVE) under load, on a service with a small pool: registrations pile up behind the lock, far more than the
// pool has connections, and meanwhile an e-mail (nodemailer: 250 after DATA), an SFTP upload (ssh2: the close
// status) and an asynchronous REST hand-over (202) are still stored and acknowledged, because the statements that
// can wait on orders hold fewer connections than the pool (store/postgres/order-writers.ts). Once the lock goes,
// every acknowledged order is registered exactly once. Without the bound, the waiting registrations took every
// connection and the message was answered 451 after the pool's 10 s wait. Skipped, visibly, without
// INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { writerPermits } from '../../src/store/postgres/order-writers.ts';
import { order, startTestService, waitFor, type TestService } from '../helpers/service.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { parsePrometheus, sample } from '../helpers/prometheus.ts';
import { rest, sftpUpload, smtpSend, type Sent } from './clients.ts';

/** Small, so that a few waiting statements would take every connection. */
const POOL = 4;

/** The service's connections waiting for a lock on `schema`.orders (pg_locks: a request not granted). */
async function waitingOnOrders(schema: string): Promise<number> {
  const [row] = await adminQuery<{ n: number }>(testDatabaseUrl!, `SELECT count(DISTINCT l.pid)::int AS n FROM pg_locks l
    JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE NOT l.granted AND l.relation = '${schema}.orders'::regclass AND a.application_name = 'order-intake'`);
  return row!.n;
}

void describe('a long lock on orders (PostgreSQL)', { skip: PG_SKIP }, () => {
  for (const mode of ['SHARE', 'ACCESS EXCLUSIVE'] as const) {
    void it(`stores and acknowledges e-mail, uploads and hand-overs while registrations wait on orders locked IN ${mode} MODE`, { timeout: 120_000 }, async () => {
      const schema = await createSchema(testDatabaseUrl!, 'locked');
      let t: TestService | undefined;
      let locker: pg.Client | undefined;
      try {
        t = await startTestService({
          INTAKE_DATABASE_URL: schema.url, INTAKE_DATABASE_POOL: String(POOL), INTAKE_SMTP_PORT: '0', INTAKE_SFTP_PORT: '0',
          INTAKE_METRICS_PORT: '0',
        });
        const c = await t.customer('C001');
        const http = t.service.ports.http!;
        // A running service: its first order checked the year's numbering, which reads orders once (numbering.ts).
        assert.ok((await rest(http, c.apiKey, order('C001', 'PRIMO'), ['PRIMO'])).acked, 'the first order was registered');
        locker = new pg.Client({ connectionString: testDatabaseUrl });
        await locker.connect();
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE ${schema.name}.orders IN ${mode} MODE`);

        // Registrations far beyond the pool: synchronous single orders (answered only once registered) and
        // asynchronous ones (acknowledged once stored, then judged and registered in the background).
        const waiting: Promise<Sent>[] = [
          ...Array.from({ length: 24 }, (_, k) => rest(http, c.apiKey, order('C001', `S-${k}`), [`S-${k}`])),
          ...Array.from({ length: 12 }, (_, k) => rest(http, c.apiKey, order('C001', `A-${k}`), [`A-${k}`], true)),
        ];
        // Every connection registrations may hold is waiting on the lock before anything else is sent.
        const permits = writerPermits(POOL);
        await waitFor(async () => ((await waitingOnOrders(schema.name)) >= permits ? true : undefined), 30_000,
          `${permits} registrations waiting on the lock`);
        // What an operator sees (GET /metrics): every connection registrations may hold is in use.
        const scrape = parsePrometheus(await (await fetch(`http://127.0.0.1:${t.service.ports.metrics}/metrics`)).text());
        const connections = (state: string): number => sample(scrape, 'intake_store_writer_connections', { state });
        assert.deepEqual([connections('allowed'), connections('in_use')], [permits, permits], 'the metric shows the writers all waiting');

        const mail = await smtpSend(t.service.ports.smtp!, c, ['M-1', 'M-2']);
        assert.ok(mail.acked, `the e-mail was acknowledged while orders was locked: ${mail.why}`);
        const upload = await sftpUpload(t.service.ports.sftp!, c, 'lotto.json', ['F-1', 'F-2']);
        assert.ok(upload.acked, 'the upload was acknowledged while orders was locked');
        const handOver = await rest(http, c.apiKey, order('C001', 'A-LOCKED'), ['A-LOCKED'], true);
        assert.ok(handOver.acked, `the asynchronous REST hand-over was acknowledged (202) while orders was locked: ${handOver.why}`);
        assert.ok((await waitingOnOrders(schema.name)) <= permits, 'registrations never held more connections than their share');

        await locker.query('COMMIT');
        await locker.end();
        locker = undefined;
        const sent = [{ channel: 'rest', refs: ['PRIMO'], acked: true }, ...await Promise.all(waiting), mail, upload, handOver];
        const refs = sent.filter((s) => s.acked).flatMap((s) => s.refs);
        // The synchronous orders waited less than the pool's 10 s for a connection, so all were answered 201.
        assert.deepEqual(sent.filter((s) => !s.acked).map((s) => `${s.refs[0]}: ${s.why}`), [], 'every hand-over was acknowledged');
        const registered = await waitFor(async () => {
          const rows = await adminQuery<{ r: string; n: number }>(testDatabaseUrl!,
            `SELECT riferimento_ordine AS r, count(*)::int AS n FROM ${schema.name}.orders GROUP BY 1`);
          return rows.length >= refs.length ? rows : undefined;
        }, 60_000, 'every acknowledged order registered');
        assert.deepEqual(registered.map((r) => r.r).sort(), [...refs].sort(), 'each acknowledged order registered');
        assert.ok(registered.every((r) => r.n === 1), 'and exactly once');
      } finally {
        if (locker) await locker.query('ROLLBACK').then(() => locker!.end(), () => undefined);
        await t?.close();
        await schema.drop();
      }
    });
  }
});
