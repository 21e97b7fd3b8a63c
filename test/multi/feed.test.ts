// Three `order-intake serve` processes on one PostgreSQL database, registering orders concurrently (REST, some
// refused) and taking production reports, while an ERP reads the event feed page by page from whichever instance,
// always from the last cursor it saw. Commits of the three interleave out of allocation order all the time; the
// reader must end up with exactly the stream a reader from the start sees afterwards: nothing skipped, nothing
// repeated, every event expected. Skipped, visibly, without INTAKE_TEST_DATABASE_URL.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { addIntegration } from '../../src/handoff/integrations.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { spawnServe, stopServe, type ServeProcess } from '../helpers/child.ts';
import { order, tempDir, waitFor } from '../helpers/service.ts';
import { createSchema, PG_SKIP, testDatabaseUrl } from '../store/pg-schema.ts';
import { seedStore } from './seed.ts';

interface Event { id: string; type: string; cursor: string; data: Record<string, unknown> }

const ORDERS = 120;
/** Requests in flight at once, spread over the three instances. */
const CONCURRENCY = 12;

async function prepare(url: string) {
  const store = await openPostgresStore(url);
  try {
    const keys = (await seedStore(store, ['C001', 'C002'])).map((c) => c.apiKey);
    return { keys, mis: (await addIntegration(store, 'MIS')).api_key };
  } finally {
    await store.close();
  }
}

void describe('event feed across three PostgreSQL instances', { skip: PG_SKIP }, () => {
  void it('a reader following its cursor over any instance never skips or repeats while all three commit', { timeout: 240_000 }, async () => {
    const schema = await createSchema(testDatabaseUrl!, 'feed');
    const serves: ServeProcess[] = [];
    const dirs: string[] = [];
    let stopReader = async () => {};
    try {
      const { keys, mis } = await prepare(schema.url);
      await Promise.all([0, 1, 2].map(async () => {
        const dir = tempDir('intake-feed-');
        dirs.push(dir);
        serves.push(await spawnServe(dir, { INTAKE_DATABASE_URL: schema.url, INTAKE_FEED_POLL_MS: '100' }, 60_000));
      }));
      const base = (k: number) => `http://127.0.0.1:${serves[k % serves.length]!.httpPort}`;

      // The ERP: small pages, long polls, a different instance each time, always from the last cursor seen.
      const seen: Event[] = [];
      let cursor: string | null = null;
      let reading = true;
      let polls = 0;
      let networkErrors = 0;
      const reader: Promise<void> = (async () => {
        while (reading) {
          const q = `?limite=7&attesa=1${cursor ? `&dopo=${encodeURIComponent(cursor)}` : ''}`;
          let res: Response;
          try {
            res = await fetch(`${base(polls++)}/api/v1/eventi${q}`, { headers: { 'x-api-key': mis } });
          } catch (e) {
            // A kept-alive socket the instance closed as the request left (a loaded machine): the ERP asks again
            // from the same cursor, as any feed client must; the page is not lost, it was never answered.
            if (++networkErrors > 20) throw e;
            continue;
          }
          assert.equal(res.status, 200, await res.clone().text());
          const page = (await res.json()) as { eventi: Event[]; cursore: string | null };
          seen.push(...page.eventi);
          cursor = page.cursore;
        }
      })();
      stopReader = async () => {
        reading = false;
        await reader;
      };

      // Customers: orders spread over the three instances, one in six refused (unknown article).
      const accepted: string[] = [];
      const refused: string[] = [];
      let next = 0;
      await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
        for (let n = next++; n < ORDERS; n = next++) {
          const ref = `MF-${n}`;
          const bad = n % 6 === 5;
          const body = order(n % 2 ? 'C002' : 'C001', ref, bad ? { righe: [{ codice_articolo: 'NOPE', quantita: 1, unita_misura: 'PZ' }] } : {});
          const res = await fetch(`${base(n)}/api/v1/ordini`, {
            method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-api-key': keys[n % 2]! },
          });
          const answer = (await res.json()) as { id_ordine?: string };
          if (bad) {
            assert.equal(res.status, 400);
            refused.push(ref);
            continue;
          }
          assert.equal(res.status, 201);
          accepted.push(answer.id_ordine!);
          // Production reports on every third order, through another instance than the one that registered it.
          if (n % 3 === 0) {
            const r = await fetch(`${base(n + 1)}/api/v1/ordini/${answer.id_ordine}/stato`, {
              method: 'POST', body: JSON.stringify({ stato: 'in_lavorazione' }), headers: { 'content-type': 'application/json', 'x-api-key': mis },
            });
            assert.equal(r.status, 200);
          }
        }
      }));
      const reports = [...Array(ORDERS).keys()].filter((n) => n % 3 === 0 && n % 6 !== 5).length;
      const expected = accepted.length + refused.length + reports;
      // The reader ends only when told to: if it stops before, its error is the failure, not a timeout.
      await Promise.race([
        waitFor(() => (seen.length >= expected ? true : undefined), 60_000, `${expected} events read by the ERP (has ${seen.length})`),
        reader.then(() => { throw new Error('the reader stopped early'); }),
      ]);
      await stopReader();

      const ids = seen.map((e) => e.id);
      assert.equal(new Set(ids).size, ids.length, 'no event repeated');
      assert.equal(seen.length, expected, 'no event missing, none extra');
      // The same stream, read afterwards from the start in one go: the follower saw exactly it, in that order.
      const whole = (await (await fetch(`${base(0)}/api/v1/eventi?limite=1000`, { headers: { 'x-api-key': mis } })).json()) as { eventi: Event[] };
      assert.deepEqual(ids, whole.eventi.map((e) => e.id), 'the follower\'s stream is the stream');
      const registered = seen.filter((e) => e.type === 'ordine.registrato').map((e) => e.data.id_ordine);
      assert.deepEqual([...registered].sort(), [...accepted].sort(), 'every accepted order once');
      assert.deepEqual(seen.filter((e) => e.type === 'ordine.rifiutato').map((e) => e.data.riferimento_ordine).sort(), [...refused].sort());
      const statusEvents = seen.filter((x) => x.type === 'ordine.stato_aggiornato');
      assert.equal(statusEvents.length, reports);
      for (const e of statusEvents) {
        const registration = seen.findIndex((x) => x.type === 'ordine.registrato' && x.data.id_ordine === e.data.id_ordine);
        assert.ok(registration >= 0 && registration < seen.indexOf(e), 'a status event comes after its order\'s registration');
      }
      assert.ok(polls > serves.length, 'the reader went round the instances');
    } finally {
      // The reader first: its next request must not meet a stopped instance and hide the real failure.
      await stopReader().catch(() => undefined);
      for (const s of serves) await stopServe(s);
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await schema.drop();
    }
  });
});
