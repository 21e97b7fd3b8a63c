// The documented move from SQLite to PostgreSQL, as an operator does it with the real CLI and real `serve`
// processes: copy while the SQLite service runs, stop it, copy again (the final pass), start on PostgreSQL. Every
// acknowledged order is there with its number, and numbering goes on; an order that came by e-mail is there too,
// with its message and its queued reply. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import nodemailer from 'nodemailer';
import { loggedPort } from '../helpers/child.ts';
import { spawnServe, stopServe, waitForLine, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir } from '../helpers/service.ts';
import { runCli } from '../cli/run.ts';
import { adminQuery, createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { waitFor } from '../helpers/service.ts';

async function post(p: ServeProcess, key: string, body: object): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${p.httpPort}/api/v1/ordini`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': key },
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const demoOrder = (ref: string) => order('DEMO', ref, { righe: [{ codice_articolo: 'BV-STD', quantita: 10, unita_misura: 'PZ' }] });

void describe('moving a running SQLite installation to PostgreSQL', { skip: PG_SKIP }, () => {
  void it('db copy while running, stop, final db copy, serve on PostgreSQL: nothing lost, numbering goes on', async () => {
    const oldDir = tempDir();
    const newDir = tempDir();
    const schema = await createSchema(testDatabaseUrl!, 'switch');
    const sqliteFile = path.join(oldDir, 'intake.sqlite');
    let sqlite: ServeProcess | undefined;
    let pgServe: ServeProcess | undefined;
    try {
      sqlite = await spawnServe(oldDir, { INTAKE_SMTP_PORT: '0', INTAKE_MAIL_DOMAIN: 'ordini.test' });
      const [, key] = await waitForLine(sqlite, /API key:\s+(\S+)/);
      const [, mailbox] = await waitForLine(sqlite, /mailbox:\s+(\S+)/);
      const before = await Promise.all(['A-1', 'A-2', 'A-3'].map((r) => post(sqlite!, key!, demoOrder(r))));
      assert.deepEqual(before.map((r) => r.status), [201, 201, 201]);

      const bulk = await runCli(oldDir, ['db', 'copy', '--from', sqliteFile, '--to', schema.url]);
      assert.equal(bulk.code, 0, bulk.stderr);
      assert.match(bulk.stdout, /^orders\s+3\s+3$/m);

      // The service keeps taking orders during the bulk copy; then it is stopped and the final pass runs.
      const during = await post(sqlite, key!, demoOrder('B-1'));
      assert.equal(during.status, 201);
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port: await loggedPort(sqlite, 'smtp'), secure: false, ignoreTLS: true });
      await transport.sendMail({
        from: 'mario@cliente.it', to: mailbox, subject: 'Ordine E-1', text: 'In allegato.', messageId: '<E-1@cliente.it>',
        attachments: [{ filename: 'e1.json', content: JSON.stringify(demoOrder('E-1')) }],
      });
      transport.close();
      await waitFor(async () => {
        const res = await fetch(`http://127.0.0.1:${sqlite!.httpPort}/api/v1/ordini?riferimento_ordine=E-1`, { headers: { 'x-api-key': key! } });
        await res.arrayBuffer();
        return res.status === 200 ? true : undefined;
      }, 15_000, 'the order that came by e-mail');
      assert.equal(await stopServe(sqlite), 0);
      const final = await runCli(oldDir, ['db', 'copy', '--from', sqliteFile, '--to', schema.url, '--json']);
      assert.equal(final.code, 0, final.stderr);
      const tables = (JSON.parse(final.stdout) as { tables: { table: string; rows: number; written: number }[] }).tables;
      assert.deepEqual(tables.find((t) => t.table === 'orders'), { table: 'orders', rows: 5, written: 2 }, 'only what arrived since');
      assert.deepEqual(tables.find((t) => t.table === 'mail_messages'), { table: 'mail_messages', rows: 1, written: 1 });

      const migrate = await runCli(newDir, ['db', 'migrate'], { INTAKE_DATABASE_URL: schema.url });
      assert.equal(migrate.code, 0, migrate.stderr);
      assert.match(migrate.stdout, /is up to date/);
      assert.ok(!migrate.stdout.includes('postgres@'), 'no credentials of the URL are printed');

      pgServe = await spawnServe(newDir, { INTAKE_DATABASE_URL: schema.url });
      assert.ok(!pgServe.lines.some((l) => l.includes('Demo customer created')), 'the copied customers are there: no new demo');
      for (const r of [...before, during]) {
        const res = await fetch(`http://127.0.0.1:${pgServe.httpPort}/api/v1/ordini/${String(r.json.id_ordine)}`, { headers: { 'x-api-key': key! } });
        assert.equal(res.status, 200);
        const v = (await res.json()) as { stato: string; numero_ordine: string };
        assert.equal(v.stato, 'registrato');
        assert.equal(v.numero_ordine, r.json.numero_ordine);
      }
      const after = await post(pgServe, key!, demoOrder('C-1'));
      assert.equal(after.status, 201);
      const year = String(during.json.numero_ordine).slice(0, 4);
      assert.equal(after.json.numero_ordine, `${year}-000006`);
      const mailRows = await adminQuery<{ state: string; replies: number }>(testDatabaseUrl!,
        `SELECT m.state, (SELECT count(*)::int FROM ${schema.name}.mail_replies r WHERE r.mail_id = m.id) AS replies
         FROM ${schema.name}.mail_messages m WHERE m.message_id = '<E-1@cliente.it>'`);
      assert.deepEqual(mailRows, [{ state: 'done', replies: 1 }], 'the message came along, derived, with its one reply');
      const byMail = await fetch(`http://127.0.0.1:${pgServe.httpPort}/api/v1/ordini?riferimento_ordine=E-1`, { headers: { 'x-api-key': key! } });
      assert.equal(byMail.status, 200);
      await byMail.arrayBuffer();
      const again = await post(pgServe, key!, demoOrder('A-1'));
      assert.equal(again.json.numero_ordine, before[0]!.json.numero_ordine, 'an order sent again is recognised across the move');
    } finally {
      if (sqlite) await stopServe(sqlite);
      if (pgServe) await stopServe(pgServe);
      await schema.drop();
      rmSync(oldDir, { recursive: true, force: true });
      rmSync(newDir, { recursive: true, force: true });
    }
  });

  void it('db copy explains what is wrong instead of failing obscurely', async () => {
    const dir = tempDir();
    try {
      const noTarget = await runCli(dir, ['db', 'copy', '--from', path.join(dir, 'intake.sqlite')]);
      assert.equal(noTarget.code, 1);
      assert.match(noTarget.stderr, /--to postgres:\/\//);
      const missing = await runCli(dir, ['db', 'copy', '--from', path.join(dir, 'nope.sqlite'), '--to', testDatabaseUrl!]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^error: there is no SQLite database at .*nope\.sqlite$/m);
      const applied = await runCli(dir, ['db', 'migrate', '--json']);
      assert.equal(applied.code, 0, applied.stderr);
      const result = JSON.parse(applied.stdout) as { database: string; applied: string[] };
      assert.equal(result.database, 'sqlite');
      assert.deepEqual(result.applied.slice(0, 2), ['001_init.sql', '002_work.sql']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
