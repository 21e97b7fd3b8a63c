/**
 * CPU time of processes on this machine, read from /proc (Linux): the PostgreSQL server's processes (every
 * process named `postgres`) or given pids. Used to split an order's cost between the service and the database,
 * which is what a scaling model for separate machines needs. Clock ticks are 1/100 s on Linux.
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SEC = 100;

/** utime + stime of one process in ms, or 0 when it is gone or unreadable. */
function cpuMsOf(pid: number | string): { comm: string; ms: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    // After "pid (comm) ", field 3 is state; utime and stime are fields 14 and 15 (1-based), i.e. 11 and 12 here.
    return { comm, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SEC };
  } catch {
    return { comm: '', ms: 0 };
  }
}

/** CPU ms used so far by every `postgres` process alive now (backends come and go: sample before and after). */
export function postgresCpuMs(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const { comm, ms } = cpuMsOf(name);
    if (comm === 'postgres') out.set(Number(name), ms);
  }
  return out;
}

/** CPU ms the postgres processes used between two samples (a process new in `after` counts from 0). */
export function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

export function processCpuMs(pid: number): number {
  return cpuMsOf(pid).ms;
}

/**
 * CPU ms so far of each thread of a process, by thread id (Node names them all "node"; the main thread's id is the
 * pid): the main thread against the rest (worker threads, V8's helpers, libuv's pool).
 */
export function threadCpuMs(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out; // the process is gone
  }
  for (const tid of tids) out.set(Number(tid), cpuMsOf(`${pid}/task/${tid}`).ms);
  return out;
}
