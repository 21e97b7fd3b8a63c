/**
 * What the bound on the writers of orders (src/store/postgres/order-writers.ts) costs a statement: the same trivial
 * statement through the pool and through `orderWriters`, alternately, each with the given number in flight; prints
 * the CPU of this process per statement (every thread) for each, the medians over the rounds.
 *
 *   node --import tsx bench/profile/writers-overhead.ts [statements per round, 20000] [in flight, 4] [rounds, 6]
 *
 * Needs PostgreSQL at INTAKE_TEST_DATABASE_URL (or postgres://postgres@127.0.0.1:5432/test). The REST path sends one
 * such statement per group of orders (about ten orders per group at 32 in flight), so the figure per order is this
 * one divided by the group's size.
 */
import pg from 'pg';
import { orderWriters } from '../../src/store/postgres/order-writers.ts';

const [total = 20_000, inFlight = 4, rounds = 6] = process.argv.slice(2).map(Number);
const url = process.env.INTAKE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Query = (q: { name: string; text: string; values: unknown[] }) => Promise<unknown>;

async function cpuPerStatement(query: Query): Promise<number> {
  let next = 0;
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next++ < total) await query({ name: 'overhead', text: 'SELECT $1::int AS n', values: [next] });
  }));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / total;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const pool = new pg.Pool({ connectionString: url, max: 10 });
const writers = orderWriters(pool, 8, 10_000);
const bare: number[] = [];
const bounded: number[] = [];
try {
  await cpuPerStatement((q) => pool.query(q)); // warm-up: connections opened, statement prepared on each
  for (let r = 0; r < rounds; r++) {
    // Alternated, so that a drift of the machine falls on both.
    if (r % 2 === 0) {
      bare.push(await cpuPerStatement((q) => pool.query(q)));
      bounded.push(await cpuPerStatement((q) => writers.query(q)));
    } else {
      bounded.push(await cpuPerStatement((q) => writers.query(q)));
      bare.push(await cpuPerStatement((q) => pool.query(q)));
    }
  }
} finally {
  await pool.end();
}
const fmt = (xs: number[]): string => `${median(xs).toFixed(1)} µs (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
console.log(JSON.stringify({ total, inFlight, rounds, pool: fmt(bare), writers: fmt(bounded), extra: `${(median(bounded) - median(bare)).toFixed(2)} µs` }));
