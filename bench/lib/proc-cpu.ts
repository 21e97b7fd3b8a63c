/**
 * CPU time of processes on this machine, read from /proc (Linux): the PostgreSQL server's processes (every
 * process named `postgres`) or given pids. Used to split an order's cost between the service and the database,
 * which is what a scaling model for separate machines needs. Clock ticks are 1/100 s on Linux.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

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

/** CPU ms used so far by every `postgres` process alive now (backends come and go: sample through the span, cpuOverSpan). */
export function postgresCpuMs(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const { comm, ms } = cpuMsOf(name);
    if (comm === 'postgres') out.set(Number(name), ms);
  }
  return out;
}

/**
 * The whole machine's CPU so far from /proc/stat, in ms summed over its cores: `busy` (user, nice, system, irq,
 * softirq) and `total` (those, idle and iowait). Steal (the hypervisor's other guests) is in neither: it is not
 * time this machine could have used. Busy over a span divided by its length is the cores the machine kept busy:
 * against the cores it has, it tells a loop bound by CPU from one bound by its own latency (performance-history.md, twenty-first round).
 */
export function machineCpuMs(stat = readFileSync('/proc/stat', 'utf8')): { busy: number; total: number } {
  // The first line sums every core: "cpu  user nice system idle iowait irq softirq steal guest guest_nice", in ticks.
  const line = stat.split('\n', 1)[0]!;
  const [user, nice, system, idle, iowait, irq, softirq] = line.trim().split(/\s+/).slice(1, 8).map(Number) as number[];
  const busy = user! + nice! + system! + irq! + softirq!;
  return { busy: (busy * 1000) / TICKS_PER_SEC, total: ((busy + idle! + iowait!) * 1000) / TICKS_PER_SEC };
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

/**
 * Context switches so far of the process's main thread (its pid): voluntary (it slept: waited for an event) and
 * involuntary (the kernel took the core from it for another process). The event loop runs there, so voluntary
 * switches per order are the wake-ups an order costs, more when fewer requests arrive together (several instances
 * sharing one load); involuntary ones, how much it was crowded off the cores. Zeros when the process is gone.
 */
export function mainThreadSwitches(pid: number): { voluntary: number; involuntary: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const count = (key: string) => Number(new RegExp(`^${key}:\\s*(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { voluntary: count('voluntary_ctxt_switches'), involuntary: count('nonvoluntary_ctxt_switches') };
  } catch {
    return { voluntary: 0, involuntary: 0 };
  }
}

/**
 * The local TCP ports of a process's sockets: for its connections to PostgreSQL, the `client_port` that
 * pg_stat_activity shows for the backend serving each. This is how a bench finds the backends of one service among
 * those of every other user of a shared server (the database name does not tell them apart).
 */
export function tcpPortsOf(pid: number): Set<number> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return new Set(); // the process is gone
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // closed meanwhile
    }
  }
  const ports = new Set<number>();
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    // "sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …", ports in hex.
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9 && inodes.has(cols[9]!)) ports.add(parseInt(cols[1]!.split(':')[1]!, 16));
    }
  }
  return ports;
}

/** CPU ms so far of each of these processes still running (one already gone is left out, not read as 0). */
export function cpuMsOfPids(pids: Iterable<number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const { comm, ms } = cpuMsOf(pid);
    if (comm !== '') out.set(pid, ms);
  }
  return out;
}

export interface CpuSpan {
  /** Samples once more and answers the CPU ms the processes used since the span began. */
  stop(): Promise<number>;
}

/**
 * The CPU ms a changing set of processes uses over a span, `sample` (each running process's CPU so far) taken when
 * the span begins, every `everyMs` and at its end. A process first seen inside the span counts from 0; one that ends
 * inside it keeps what it had used at its last sample, so it loses at most one interval. Sampled at both ends only,
 * a backend that ended in the span lost all it did there, and one read as 0 once gone subtracted its whole past
 * (rest-pg-multi's "its backends' CPU per order" fell to 0.03 ms at three instances that way).
 */
/** How often cpuOverSpan samples by default: a backend's lost last interval is small beside a 5 s drive. */
export const CPU_SAMPLE_MS = 250;

export async function cpuOverSpan(sample: () => Map<number, number> | Promise<Map<number, number>>, everyMs = CPU_SAMPLE_MS): Promise<CpuSpan> {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const take = async (begin: boolean) => {
    for (const [pid, ms] of await sample()) {
      if (begin) first.set(pid, ms);
      last.set(pid, ms);
    }
  };
  await take(true);
  let running = true;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, everyMs);
      });
      // A sample that fails (a lost connection) loses its interval, not the measure: the end's sample still counts.
      if (running) await take(false).catch(() => undefined);
    }
  })();
  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
      await take(false);
      let total = 0;
      for (const [pid, ms] of last) total += ms - (first.get(pid) ?? 0);
      return total;
    },
  };
}
