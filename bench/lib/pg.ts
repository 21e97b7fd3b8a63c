/** The PostgreSQL side of the benchmarks: a throw-away schema per run, and the server's durability settings. */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { cpuMsOfPids, tcpPortsOf } from './proc-cpu.ts';

/** The machine's server, as the tests use it; BENCH_DATABASE_URL points elsewhere. */
export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

export function pgBaseUrl(): string {
  return process.env.BENCH_DATABASE_URL?.trim() || process.env.INTAKE_TEST_DATABASE_URL?.trim() || DEFAULT_PG_URL;
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  // A server that does not answer must make the benchmark skip, not hang.
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000, query_timeout: 60_000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Undefined when the server answers, else why not. */
export async function pgUnreachable(url: string): Promise<string | undefined> {
  try {
    await withClient(url, (c) => c.query('SELECT 1'));
    return undefined;
  } catch (e) {
    return (e as Error).message || String(e);
  }
}

export async function pgDurability(url: string): Promise<Record<string, string>> {
  return withClient(url, async (c) => {
    const out: Record<string, string> = {};
    for (const name of ['server_version', 'fsync', 'synchronous_commit', 'wal_sync_method', 'full_page_writes', 'commit_delay']) {
      const r = await c.query<Record<string, string>>(`SHOW ${name}`);
      out[name] = String(Object.values(r.rows[0] ?? {})[0]);
    }
    return out;
  });
}

export function newSchemaName(): string {
  return `bench_${randomBytes(6).toString('hex')}`;
}

/** The schema name is ours (newSchemaName), never input, so it can be put in the SQL text. */
export async function createSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (c) => c.query(`CREATE SCHEMA ${schema}`));
}

export async function dropSchema(url: string, schema: string): Promise<void> {
  await withClient(url, (c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

export async function countPgOrders(url: string, schema: string): Promise<number> {
  return withClient(url, async (c) => {
    const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.orders`);
    return Number(r.rows[0]?.n ?? 0);
  });
}

/** The service's URL for one schema: search_path set at connection start-up through the `options` parameter. */
export function schemaUrl(base: string, schema: string): string {
  // Spelt out rather than through URLSearchParams, which writes the space as `+` that pg would keep as is.
  const sep = base.includes('?') ? '&' : '?';
  return `${base}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

/**
 * The backends serving these service processes now, with the CPU each has used so far: those whose client port
 * (pg_stat_activity, cluster-wide) is a local port of one of the processes' sockets. The server is shared (other
 * databases, other benches); its whole CPU is not one service's. For cpuOverSpan.
 */
export async function backendCpuMs(client: pg.Client, pids: readonly number[]): Promise<Map<number, number>> {
  const ports = pids.flatMap((p) => [...tcpPortsOf(p)]);
  if (ports.length === 0) return new Map();
  const { rows } = await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [ports]);
  return cpuMsOfPids(rows.map((r) => r.pid));
}
