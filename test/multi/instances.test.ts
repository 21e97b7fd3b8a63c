// Three `order-intake serve` processes on one PostgreSQL database, as behind a TCP load balancer. Orders are
// spread over them concurrently through REST (synchronous and async) and SFTP, some sent to two instances at
// once; one instance is killed with SIGKILL while it holds work. Afterwards every acknowledged order is registered
// exactly once, every numero_ordine is unique, every submission was judged once, and nothing is left unprocessed.
// SMTP is not part of it yet: the e-mail channel does not exist. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import ssh2 from 'ssh2';
import { DEFAULT_UNITS } from '../../src/catalog/units.ts';
import { provisionCustomer, type ProvisionedCustomer } from '../../src/customers/provision.ts';
import { openPostgresStore } from '../../src/store/postgres.ts';
import type { Store } from '../../src/store/store.ts';
import { spawnServe, stopServe, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir, TEST_ARTICLES, waitFor } from '../helpers/service.ts';
import { adminQuery, createSchema, SKIP_NO_PG, testDatabaseUrl } from '../store/pg-schema.ts';

interface Instance {
  serve: ServeProcess;
  sftpPort: number;
}

/** What one attempt to hand over orders gave: the references it carried and whether it was acknowledged. */
interface Sent {
  refs: string[];
  acked: boolean;
  /** For synchronous REST: the number the customer was told. */
  numero?: string;
}

function sftpPortOf(s: ServeProcess): number {
  for (const line of s.lines) {
    if (!line.startsWith('{')) continue;
    const rec = JSON.parse(line) as { channel?: string; port?: number };
    if (rec.channel === 'sftp' && typeof rec.port === 'number') return rec.port;
  }
  throw new Error(`no SFTP port logged:\n${s.lines.join('\n')}`);
}

/** A big order (thousands of lines) takes a while to judge and register: the victim is sure to hold some. */
function heavy(ref: string) {
  const righe = Array.from({ length: 3000 }, (_, i) => ({ codice_articolo: TEST_ARTICLES[i % 3]!.codice_articolo, quantita: i + 1, unita_misura: TEST_ARTICLES[i % 3]!.unita_misura }));
  return order('C001', ref, { righe });
}

async function rest(i: Instance, key: string, body: object, refs: string[], async = false): Promise<Sent> {
  try {
    const res = await fetch(`http://127.0.0.1:${i.serve.httpPort}/api/v1/ordini`, {
      method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(60_000),
      headers: { 'content-type': 'application/json', 'x-api-key': key, ...(async ? { prefer: 'respond-async' } : {}) },
    });
    const json = (await res.json()) as { numero_ordine?: string };
    return { refs, acked: res.status === (async ? 202 : 201), numero: async ? undefined : json.numero_ordine };
  } catch {
    return { refs, acked: false }; // the connection died with the instance: not acknowledged
  }
}

/**
 * One SFTP upload on its own connection. The instance may die at any step (before the session is ready, before the
 * subsystem opens, mid-write), and ssh2 then calls no callback at all: the closed connection, or 30 s, is the answer.
 */
function sftpUpload(i: Instance, c: ProvisionedCustomer, name: string, refs: string[]): Promise<Sent> {
  return new Promise((resolve) => {
    const conn = new ssh2.Client();
    let settled = false;
    const finish = (acked: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      conn.end();
      resolve({ refs, acked });
    };
    const timer = setTimeout(() => finish(false), 30_000);
    conn.on('error', () => finish(false));
    conn.on('close', () => finish(false));
    conn.on('ready', () => conn.sftp((err, sftp) => {
      if (err) return finish(false);
      // The close status is the acknowledgement: writeFile calls back only after it.
      sftp.writeFile(`/ordini/${name}`, JSON.stringify(refs.map((r) => order('C001', r))), (e) => finish(!e));
    }));
    conn.connect({ host: '127.0.0.1', port: i.sftpPort, username: c.ftpUser, password: c.ftpPassword, readyTimeout: 10_000, tryKeyboard: false });
  });
}

/** A graceful stop, or SIGKILL after 15 s: clean-up must not hang on an instance that cannot stop. */
async function stopOrKill(serve: ServeProcess): Promise<void> {
  const timer = setTimeout(() => serve.proc.kill('SIGKILL'), 15_000);
  await stopServe(serve);
  clearTimeout(timer);
}

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
    await store.migrate();
    await store.upsertUnits(DEFAULT_UNITS);
    await store.upsertArticles(TEST_ARTICLES);
    // Provisioned before the instances start: an empty database would have each of them seed the demo customer.
    return await provisionCustomer(store, { code: 'C001', name: 'Cliente C001' }, 'ordini.test');
  } finally {
    await store.close();
  }
}

void describe('several instances on one PostgreSQL', { skip: testDatabaseUrl ? false : SKIP_NO_PG }, () => {
  void it('registers every acknowledged order exactly once when one of three instances is SIGKILLed mid-way', { timeout: 240_000 }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'multi');
    const instances: Instance[] = [];
    const dirs: string[] = [];
    let store: Store | undefined;
    try {
      await within(200_000, (async () => {
        const c = await prepare(schema.url);
        await Promise.all([0, 1, 2].map(async () => {
          const dir = tempDir('intake-multi-');
          dirs.push(dir);
          instances.push({ serve: await spawnServe(dir, { INTAKE_DATABASE_URL: schema.url, INTAKE_SFTP_PORT: '0' }, 60_000), sftpPort: 0 });
        }));
        for (const i of instances) {
          i.sftpPort = await waitFor(() => { try { return sftpPortOf(i.serve); } catch { return undefined; } }, 20_000, 'the SFTP port');
        }
        const [a, b, victim] = instances as [Instance, Instance, Instance];
        const key = c.apiKey;

        // Phase 1, all at once: ordinary traffic over the three, duplicates sent to two instances, and a burst of
        // heavy async orders to the victim, which is killed as soon as it has acknowledged them all.
        const traffic: Promise<Sent>[] = [];
        for (let k = 0; k < 30; k++) traffic.push(rest(instances[k % 3]!, key, order('C001', `S-${k}`), [`S-${k}`]));
        for (let k = 0; k < 15; k++) traffic.push(rest(instances[k % 3]!, key, order('C001', `A-${k}`), [`A-${k}`], true));
        for (let k = 0; k < 6; k++) traffic.push(sftpUpload(instances[k % 3]!, c, `lotto-${k}.json`, [`F-${k}-1`, `F-${k}-2`]));
        for (let k = 0; k < 6; k++) {
          for (const i of [instances[k % 3]!, instances[(k + 1) % 3]!]) traffic.push(rest(i, key, order('C001', `D-${k}`), [`D-${k}`]));
        }
        const burst = await Promise.all(Array.from({ length: 40 }, (_, k) => rest(victim, key, heavy(`H-${k}`), [`H-${k}`], true)));
        assert.ok(burst.every((s) => s.acked), 'the victim acknowledged its burst before dying');
        victim.serve.proc.kill('SIGKILL');
        await victim.serve.exited;
        const left = await adminQuery<{ n: number }>(testDatabaseUrl!, `SELECT count(*)::int AS n FROM ${schema.name}.submissions WHERE state = 'received'`);
        const phase1 = await Promise.all(traffic);

        // Phase 2: the survivors keep taking orders.
        const phase2 = await Promise.all([
          ...Array.from({ length: 10 }, (_, k) => rest([a, b][k % 2]!, key, order('C001', `P-${k}`), [`P-${k}`])),
          sftpUpload(a, c, 'dopo-a.json', ['G-a-1']),
          sftpUpload(b, c, 'dopo-b.json', ['G-b-1']),
        ]);
        const all = [...phase1, ...burst, ...phase2];
        const acked = new Set(all.filter((s) => s.acked).flatMap((s) => s.refs));
        assert.ok(acked.size > 100, `most orders were acknowledged (${acked.size})`);
        assert.ok(left[0]!.n > 0, 'the victim died holding work, so the takeover is exercised');

        // The victim's claims lapse after the lease (30 s) and a survivor's sweeper takes them over.
        store = await openPostgresStore(schema.url);
        const customerId = c.customer.id;
        await waitFor(async () => ((await store!.listSubmissions({ state: 'received', limit: 10 })).length === 0 ? true : undefined),
          150_000, 'every submission to be processed');
        const orders = await store.listOrders({ customerId, limit: 1000 });
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
      })());
    } finally {
      await store?.close();
      for (const i of instances) await stopOrKill(i.serve);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await schema.drop();
    }
  });
});
