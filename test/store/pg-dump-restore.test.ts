// The PostgreSQL backup the runbook documents, as an operator runs it: `pg_dump -Fc` of the service's database while
// it takes orders, `pg_restore` into a new, empty database, the service started on that one. Every order acknowledged
// before the dump is there with its number, and numbering goes on. Scratch databases of their own (not a schema):
// pg_dump and pg_restore work on whole databases. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { spawnServe, stopOrKill, waitForLine, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir } from '../helpers/service.ts';
import { ok, runCli } from '../cli/run.ts';
import { adminQuery, PG_SKIP, testDatabaseUrl } from './pg-schema.ts';

const run = promisify(execFile);

function databaseUrl(name: string): string {
  const u = new URL(testDatabaseUrl!);
  u.pathname = `/${name}`;
  return u.toString();
}

async function post(p: ServeProcess, key: string, ref: string): Promise<{ id: string; numero: string }> {
  const res = await fetch(`http://127.0.0.1:${p.httpPort}/api/v1/ordini`, {
    method: 'POST', body: JSON.stringify(order('DEMO', ref, { righe: [{ codice_articolo: 'BV-STD', quantita: 3, unita_misura: 'PZ' }] })),
    headers: { 'content-type': 'application/json', 'x-api-key': key },
  });
  const body = (await res.json()) as { id_ordine: string; numero_ordine: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  return { id: body.id_ordine, numero: body.numero_ordine };
}

void describe('PostgreSQL backup with pg_dump and pg_restore', { skip: PG_SKIP }, () => {
  void it('a dump taken while the service runs, restored into a new database, serves every order and numbers on', async () => {
    const tag = randomBytes(4).toString('hex');
    const [src, dst] = [`intake_dump_src_${tag}`, `intake_dump_dst_${tag}`];
    const dirs = [tempDir(), tempDir(), tempDir()];
    const dump = path.join(dirs[2]!, 'intake.dump');
    let a: ServeProcess | undefined;
    let b: ServeProcess | undefined;
    await adminQuery(testDatabaseUrl!, `CREATE DATABASE ${src}`);
    await adminQuery(testDatabaseUrl!, `CREATE DATABASE ${dst}`);
    try {
      a = await spawnServe(dirs[0]!, { INTAKE_DATABASE_URL: databaseUrl(src) });
      const [, key] = await waitForLine(a, /API key:\s+(\S+)/);
      const before: { id: string; numero: string }[] = [];
      for (let i = 0; i < 5; i++) before.push(await post(a, key!, `PG-${i}`));

      // The commands of docs/operators/runbook.md, "PostgreSQL".
      await run('pg_dump', ['--format=custom', '--file', dump, databaseUrl(src)]);
      await post(a, key!, 'PG-AFTER-DUMP');
      await stopOrKill(a);
      await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', databaseUrl(dst), dump]);

      const check = ok(await runCli(dirs[1]!, ['db', 'check'], { INTAKE_DATABASE_URL: databaseUrl(dst) }));
      assert.match(check.stdout, /migrations applied, none pending/);
      b = await spawnServe(dirs[1]!, { INTAKE_DATABASE_URL: databaseUrl(dst) });
      for (const o of before) {
        const res = await fetch(`http://127.0.0.1:${b.httpPort}/api/v1/ordini/${o.id}`, { headers: { 'x-api-key': key! } });
        assert.equal(res.status, 200);
        assert.equal(((await res.json()) as { numero_ordine: string }).numero_ordine, o.numero);
      }
      const highest = before.map((o) => o.numero).sort().at(-1)!;
      const next = await post(b, key!, 'PG-RESTORED');
      assert.ok(next.numero > highest, `the restored database numbers on: ${next.numero} after ${highest}`);
      assert.ok(!before.some((o) => o.numero === next.numero));
    } finally {
      if (a) await stopOrKill(a);
      if (b) await stopOrKill(b);
      for (const db of [src, dst]) await adminQuery(testDatabaseUrl!, `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });
});
