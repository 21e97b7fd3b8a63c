/**
 * The CPU the benches charge to PostgreSQL's processes (rest-pg-multi, cpu-per-order.ts): a process that starts or
 * ends inside the measured span is counted for what it did there, and one gone is never read as 0 (which subtracted
 * its whole past from the total). And the context switches rest-pg-multi reports per order, and the whole machine's
 * busy time the REST benches turn into cores kept busy.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { cpuMsOfPids, cpuOverSpan, machineCpuMs, mainThreadSwitches } from '../lib/proc-cpu.ts';

/** CPU ms the burner uses after "go" before it exits (its own count: the machine's load changes how long, not how much). */
const BURN_MS = 300;

interface Burner {
  child: ChildProcess;
  /** Resolves with the process's CPU ms (all threads, its own getrusage) when it is ready for "go": its start-up. */
  ready: Promise<number>;
  /** Resolves with the process's whole CPU ms just before it exits. */
  total: Promise<number>;
}

/**
 * A process that says when it is ready, waits for a line on stdin, spins until it has used BURN_MS of CPU more,
 * reports its whole CPU and exits. Its start-up (Node's own boot, 100 ms or more on a slow machine) is reported
 * apart, so that what a span should count is known exactly rather than guessed.
 */
function burner(): Burner {
  const code = `const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
  process.stdin.once('data', () => {
    const from = cpu();
    while (cpu() - from < ${BURN_MS});
    process.stdout.write(JSON.stringify({ total: cpu() }) + '\\n', () => process.exit(0));
  });
  process.stdout.write(JSON.stringify({ ready: cpu() }) + '\\n');`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const said = (key: 'ready' | 'total') => new Promise<number>((resolve) => {
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as Record<string, number>;
      if (key in msg) resolve(msg[key]!);
    });
  });
  return { child, ready: said('ready'), total: said('total') };
}

describe('proc-cpu', () => {
  it('cpuMsOfPids reads running processes and leaves a gone one out', async () => {
    const { child } = burner();
    const pid = child.pid!;
    assert.ok(cpuMsOfPids([pid, process.pid]).has(pid));
    child.stdin!.write('go\n');
    await once(child, 'exit');
    const after = cpuMsOfPids([pid, process.pid]);
    assert.equal(after.has(pid), false);
    assert.ok(after.has(process.pid));
  });

  it('cpuOverSpan counts what a process did in the span, also when it ended before the span did', async () => {
    const { child, ready, total } = burner();
    const pid = child.pid!;
    const atReady = await ready;
    const span = await cpuOverSpan(() => cpuMsOfPids([pid]), 20);
    child.stdin!.write('go\n');
    const burned = (await total) - atReady;
    await once(child, 'exit');
    const ms = await span.stop();
    // Lost at most: its last interval (20 ms of wall time) and the clock ticks' rounding (10 ms each end).
    assert.ok(burned >= BURN_MS);
    assert.ok(ms >= burned - 100, `counted ${ms} ms of the ${burned} burned`);
    assert.ok(ms <= burned + 100, `counted ${ms} ms, more than the ${burned} burned`);
  });

  it('cpuOverSpan skips a sample that fails between the ends instead of failing the measure', async () => {
    let calls = 0;
    const span = await cpuOverSpan(() => {
      calls++;
      if (calls === 2) throw new Error('connection lost');
      return new Map([[1, calls * 10]]);
    }, 1);
    while (calls < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    const ms = await span.stop();
    assert.equal(ms, calls * 10 - 10);
  });

  it('cpuOverSpan counts a process that started inside the span from 0', async () => {
    const pids = new Set<number>();
    const span = await cpuOverSpan(() => cpuMsOfPids(pids), 20);
    const { child, ready, total } = burner();
    pids.add(child.pid!);
    await ready;
    child.stdin!.write('go\n');
    // From 0: its start-up is counted as well as what it burned after "go".
    const whole = await total;
    await once(child, 'exit');
    const ms = await span.stop();
    assert.ok(whole >= BURN_MS);
    assert.ok(ms >= whole - 100 && ms <= whole + 100, `counted ${ms} ms of the ${whole} it used`);
  });

  it('mainThreadSwitches counts each sleep of the event loop as a voluntary switch, and zeros for a gone process', async () => {
    const SLEEPS = 50;
    // Sleeps SLEEPS times one after the other (each timer a wait in epoll), says so, and stays until stdin ends.
    const code = `process.stdin.once('data', async () => {
      for (let i = 0; i < ${SLEEPS}; i++) await new Promise((r) => setTimeout(r, 2));
      process.stdout.write('slept\\n');
    });
    process.stdin.on('end', () => process.exit(0));`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
    const pid = child.pid!;
    const slept = once(child.stdout!, 'data');
    const before = mainThreadSwitches(pid);
    child.stdin!.write('go\n');
    await slept;
    const after = mainThreadSwitches(pid);
    assert.ok(after.voluntary - before.voluntary >= SLEEPS, `${after.voluntary - before.voluntary} voluntary switches for ${SLEEPS} sleeps`);
    assert.ok(after.involuntary >= before.involuntary);
    child.stdin!.end();
    await once(child, 'exit');
    assert.deepEqual(mainThreadSwitches(pid), { voluntary: 0, involuntary: 0 });
  });

  it('machineCpuMs reads busy as user, nice, system, irq and softirq, and leaves steal out of both', () => {
    // Ticks of 10 ms: busy 100 + 5 + 50 + 3 + 2, idle 1,000, iowait 20, steal 7 (guest is inside user already).
    const stat = 'cpu  100 5 50 1000 20 3 2 7 0 0\ncpu0 50 2 25 500 10 1 1 3 0 0\n';
    assert.deepEqual(machineCpuMs(stat), { busy: 1600, total: 11800 });
  });

  it('machineCpuMs counts as busy at least what a process burned, and never more than the span offered', async () => {
    const { child, ready, total } = burner();
    const atReady = await ready;
    const before = machineCpuMs();
    child.stdin!.write('go\n');
    const burned = (await total) - atReady;
    await once(child, 'exit');
    const after = machineCpuMs();
    const busy = after.busy - before.busy;
    assert.ok(burned >= BURN_MS);
    // The burner's time is on some core, and counted in ticks of 10 ms on each core at each end.
    assert.ok(busy >= burned - 50, `the machine was busy ${busy} ms while a process burned ${burned}`);
    assert.ok(busy <= after.total - before.total, `busy ${busy} ms of ${after.total - before.total} in all`);
  });
});
