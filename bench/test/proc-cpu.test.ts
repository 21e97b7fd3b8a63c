/**
 * The CPU the benches charge to PostgreSQL's processes (rest-pg-multi, cpu-per-order.ts): a process that starts or
 * ends inside the measured span is counted for what it did there, and one gone is never read as 0 (which subtracted
 * its whole past from the total).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { cpuMsOfPids, cpuOverSpan } from '../lib/proc-cpu.ts';

/** CPU ms the burner uses before it exits (its own count: the machine's load changes how long, not how much). */
const BURN_MS = 300;

/** A process that waits for a line on stdin, then spins until it has used BURN_MS of CPU, and exits. */
function burner(): ChildProcess {
  const code = `process.stdin.once('data', () => {
    const t0 = process.cpuUsage();
    for (;;) { const u = process.cpuUsage(t0); if ((u.user + u.system) / 1000 >= ${BURN_MS}) break; }
    process.exit(0);
  });`;
  return spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'ignore', 'inherit'] });
}

describe('proc-cpu', () => {
  it('cpuMsOfPids reads running processes and leaves a gone one out', async () => {
    const child = burner();
    const pid = child.pid!;
    assert.ok(cpuMsOfPids([pid, process.pid]).has(pid));
    child.stdin!.write('go\n');
    await once(child, 'exit');
    const after = cpuMsOfPids([pid, process.pid]);
    assert.equal(after.has(pid), false);
    assert.ok(after.has(process.pid));
  });

  it('cpuOverSpan counts what a process did in the span, also when it ended before the span did', async () => {
    const child = burner();
    const pid = child.pid!;
    const span = await cpuOverSpan(() => cpuMsOfPids([pid]), 20);
    child.stdin!.write('go\n');
    await once(child, 'exit');
    const ms = await span.stop();
    // Lost at most: its last interval (20 ms of wall time) and the clock ticks' rounding (10 ms each end).
    assert.ok(ms >= BURN_MS - 100, `counted ${ms} ms of the ${BURN_MS} burned`);
    assert.ok(ms <= BURN_MS + 100, `counted ${ms} ms, more than the ${BURN_MS} burned`);
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
    const child = burner();
    pids.add(child.pid!);
    child.stdin!.write('go\n');
    await once(child, 'exit');
    const ms = await span.stop();
    assert.ok(ms >= BURN_MS - 100 && ms <= BURN_MS + 100, `counted ${ms} ms of the ${BURN_MS} burned`);
  });
});
